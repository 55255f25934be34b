import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createTestClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { REPO } from '../helpers/repo.js';

const ROOT = REPO;

const capture = (format: 'json' | 'pretty', level: 'debug' | 'info' | 'warn' = 'info') => {
  const lines: string[] = [];
  const logger = createLogger({
    format,
    level,
    sink: { write: (line) => lines.push(line) },
    clock: createTestClock(0),
  });
  return { logger, lines };
};

test('json: one object per line with ISO time, level name, pid, message, fields and errors with their stack', () => {
  const { logger, lines } = capture('json');
  logger.error('store down', { requestId: 'r1', error: new Error('ECONNREFUSED') });
  assert.equal(lines.length, 1);
  const entry = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
  assert.equal(entry['time'], '1970-01-01T00:00:00.000Z');
  assert.equal(entry['level'], 'error');
  assert.equal(entry['pid'], process.pid);
  assert.equal(entry['msg'], 'store down');
  assert.equal(entry['requestId'], 'r1');
  assert.match(String((entry['error'] as { stack: string }).stack), /ECONNREFUSED/);
});

test('pretty: human lines (not JSON) with the level, message and fields', () => {
  const { logger, lines } = capture('pretty');
  logger.warn('slow query', { durationMs: 1200 });
  assert.equal(lines.length, 1);
  assert.throws(() => JSON.parse(lines[0] ?? ''));
  assert.match(lines[0] ?? '', /WARN.*slow query/);
  assert.match(lines[0] ?? '', /durationMs: 1200/);
});

test('the level filters: debug lines only at debug', () => {
  const info = capture('json', 'info');
  info.logger.debug('probe');
  assert.equal(info.lines.length, 0);
  const debug = capture('json', 'debug');
  debug.logger.debug('probe');
  assert.equal(JSON.parse(debug.lines[0] ?? '').level, 'debug');
});

/** A child that logs `lines` lines to its stderr through the built logger, settles them, and exits. */
const logAndSettle = (lines: number, settleMs: number) =>
  spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { createLogger } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'shared', 'logger.js')).href)});
const logger = createLogger();
for (let i = 0; i < ${lines}; i++) logger.info('line ' + i, { pad: 'x'.repeat(200) });
await logger.settle(${settleMs});
process.exit(0);`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );

test('settle: every line so far is written, in order, before an exit that follows it', async () => {
  const child = logAndSettle(5000, 60_000);
  let text = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  const [code] = await once(child, 'close');
  assert.equal(code, 0);
  const numbers = text
    .trim()
    .split('\n')
    .map((line) => Number((JSON.parse(line) as { msg: string }).msg.slice('line '.length)));
  assert.deepEqual(
    numbers,
    Array.from({ length: 5000 }, (_, i) => i),
  );
});

test('settle: a reader that stopped reading holds the exit no longer than the bound', async () => {
  // Far more than a pipe holds, and nobody reads it: the child's write stays pending.
  const child = logAndSettle(5000, 100);
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
  child.stderr.destroy();
});
