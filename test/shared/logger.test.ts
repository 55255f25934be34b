import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';

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
