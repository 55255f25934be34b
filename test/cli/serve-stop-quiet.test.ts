import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { parseCommandArgs } from '../../src/cli/command.js';
import { serveCommand } from '../../src/cli/commands/serve-command.js';
import { serve } from '../../src/cli/serve.js';
import { parseServeConfig, type ServeConfig } from '../../src/cli/serve-config.js';
import { createTestClock } from '../../src/shared/clock.js';
import { createLogger } from '../../src/shared/logger.js';
import { openStore } from '../../src/storage/open-store.js';
import { captureIo, serveConfigIn } from '../helpers/serve-config.js';
import { adminQuery, postgresUnreachable, postgresUrl } from '../storage/backends.js';
import { startTcpProxy, type TcpProxy } from '../storage/tcp-proxy.js';

/**
 * Stopping `larder serve` is quiet and ordered: a request the stop cut logs no ERROR for a failure only the stop
 * caused, and no background work (the auth state's polling, the live demo's catch-up) logs after "stopped".
 */

const LOGIN = '/authentication/v1/authentication/login';

interface Line {
  level: string;
  msg: string;
  error?: { message?: string };
}

const capture = () => {
  const lines: Line[] = [];
  const logger = createLogger({ level: 'debug', sink: { write: (line) => lines.push(JSON.parse(line)) } });
  return { lines, logger };
};

const configFor = (...argv: string[]): ServeConfig => {
  const args = parseCommandArgs(serveCommand, ['--port', '0', '--no-demo', ...argv], captureIo());
  assert.notEqual(args, 'help');
  return parseServeConfig(args as Exclude<typeof args, 'help'>);
};

const shown = (lines: readonly Line[]) =>
  lines.map((line) => `${line.level} ${line.msg}${line.error ? ` (${line.error.message})` : ''}`).join('\n');

const unreachable = await postgresUnreachable();

describe('stopping serve while PostgreSQL is silent', { skip: unreachable ?? false }, () => {
  const database = `larder_stop_${randomBytes(4).toString('hex')}`;
  let proxy: TcpProxy;
  let proxiedUrl: string;
  before(async () => {
    await adminQuery(`CREATE DATABASE ${database}`);
    const target = new URL(postgresUrl);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const url = new URL(postgresUrl);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    url.pathname = `/${database}`;
    proxiedUrl = url.href;
  });
  after(async () => {
    await proxy.close();
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  test('the request cut at the stop logs no error, and nothing is logged after "stopped"', async () => {
    const { lines, logger } = capture();
    const handle = await serve(
      configFor('--database-url', proxiedUrl, '--migrate', '--no-live', '--shutdown-timeout', '0'),
      captureIo(),
      { logger },
    );
    proxy.blackhole();
    // A login reads its client from the store: a request waiting on the silent database.
    const answer = fetch(`${handle.url}${LOGIN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        clientId: 'nobody',
        clientSecret: 'wrong',
        userAccessType: 'PLATFORM_MACHINE_CLIENT',
      }),
    }).then(
      async (response) => ({ status: response.status, body: await response.text() }),
      () => 'cut' as const,
    );
    // The login's read and the auth state's poll, both waiting.
    await proxy.heard(2);
    await handle.stop();

    // The cut request: its connection closed (the shutdown timeout is 0), or a 503 ErrorMessage.
    const outcome = await answer;
    if (outcome !== 'cut') {
      assert.equal(outcome.status, 503, outcome.body);
      assert.match(outcome.body, /"requestId"/);
    }
    // The pool has ended, so nothing waits on the database any more: a line still to come would come in this turn.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(lines.at(-1)?.msg, 'stopped', shown(lines));
    assert.deepEqual(
      lines.filter((line) => line.level === 'error'),
      [],
      shown(lines),
    );
    assert.ok(
      lines.some((line) => line.level === 'debug' && line.msg === 'request failed'),
      `the cut login's failure is logged at debug:\n${shown(lines)}`,
    );
    assert.ok(
      !lines.some((line) => /auth state reload failing/.test(line.msg)),
      `the poll the stop ended is no outage:\n${shown(lines)}`,
    );
  });
});

describe('stopping serve on SQLite during the live demo catch-up', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-stop-quiet-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('the catch-up is cut short and rolled back before "stopped", which is the last line', async () => {
    const path = join(dir, 'live.db');
    const endDate = '2025-01-01';
    const store = await openStore({ db: path });
    await store.locations.upsert({ id: 'live-1' });
    await store.settings.liveDemo.set({
      seed: 1,
      firstDays: 1,
      firstEndDate: endDate,
      days: 1,
      endDate,
      locations: [{ id: 'live-1', locationIndex: 0 }],
    });
    await store.close();

    const { lines, logger } = capture();
    // A year behind the clock: serving starts with a catch-up that yields between days, so it is in flight.
    const clock = createTestClock(Date.UTC(2026, 0, 2, 12));
    const handle = await serve(serveConfigIn(() => dir)('--db', path), captureIo(), { clock, logger });
    await handle.stop();

    // The catch-up yields a turn between days: one still running would have gone on, and said so, by now.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(lines.at(-1)?.msg, 'stopped', shown(lines));
    assert.ok(!lines.some((line) => /catch-up/.test(line.msg)), shown(lines));
    // The catch-up's import no longer holds the database: another writer gets it without waiting.
    const other = new Database(path);
    try {
      other.pragma('busy_timeout = 0');
      other.exec('BEGIN IMMEDIATE');
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    const reopened = await openStore({ db: path });
    try {
      assert.equal((await reopened.settings.liveDemo.get())?.endDate, endDate, 'the next start catches up');
    } finally {
      await reopened.close();
    }
  });
});
