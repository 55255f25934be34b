import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { BIN, startServe } from '../helpers/cli.js';

/**
 * `larder serve`'s start and stop as an operator meets them (built CLI, real processes): a SIGTERM that comes
 * while it is still starting (its demo being made, its banner being written) stops it as cleanly as one that comes
 * later, and the primary of --workers says last, once every worker has exited, that it stopped.
 */

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-lifecycle-'));
});
after(() => rm(dir, { recursive: true, force: true }));

interface LogLine {
  pid: number;
  level: string;
  msg: string;
}

const logLines = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{"level"'))
    .map((line) => JSON.parse(line) as LogLine);

/**
 * Runs `larder serve ARGS` and sends it SIGTERM as soon as `due(stdout, stderr)` holds; resolves once it has
 * exited and all its output has been read. No sleeping: the signal goes on the output that says where it is.
 */
const signalWhen = async (args: string[], due: (stdout: string, stderr: string) => boolean) => {
  const child = spawn(process.execPath, [BIN, 'serve', ...args]);
  let stdout = '';
  let stderr = '';
  let sent = false;
  const check = () => {
    if (sent || !due(stdout, stderr)) return;
    sent = true;
    child.kill('SIGTERM');
  };
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    check();
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    check();
  });
  const [code, signal] = await once(child, 'close');
  return { code, signal, sent, stdout, stderr, pid: child.pid };
};

/** The first whole line either stream has written. */
const anyLine = (stdout: string, stderr: string) => stdout.includes('\n') || stderr.includes('\n');
/** The banner's first line: credentials and URL (one JSON line, stdout being a pipe). */
const bannerLine = (stdout: string) => stdout.includes('\n');

const integrity = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('integrity_check', { simple: true });
  } finally {
    db.close();
  }
};

const assertStoppedCleanly = (run: Awaited<ReturnType<typeof signalWhen>>, what: string) => {
  const shown = `${what}:\n${run.stdout}${run.stderr}`;
  assert.ok(run.sent, shown);
  assert.equal(run.signal, null, `not ended by the signal's default action: ${shown}`);
  assert.equal(run.code, 0, shown);
  const lines = logLines(run.stderr);
  assert.match(lines.find((line) => /SIGTERM: stopping/.test(line.msg))?.msg ?? '', /stopping/, shown);
  assert.deepEqual(
    { pid: lines.at(-1)?.pid, msg: lines.at(-1)?.msg },
    { pid: run.pid, msg: 'larder: stopped.' },
    shown,
  );
};

test('a SIGTERM while serve is still starting (making its demo, writing its banner) stops it cleanly: exit 0, "stopped" last, the SQLite file intact', {
  timeout: 120_000,
}, async () => {
  const db = join(dir, 'starting.db');
  // A new database: the demo takes a second or more to make, and the signal comes while it is being made.
  assertStoppedCleanly(await signalWhen(['--db', db, '--port', '0'], anyLine), 'while making the demo');
  assert.equal(integrity(db), 'ok');
  for (let round = 0; round < 2; round++) {
    assertStoppedCleanly(
      await signalWhen(['--db', db, '--port', '0'], anyLine),
      `round ${round}: first line`,
    );
    const banner = await signalWhen(['--db', db, '--port', '0'], bannerLine);
    assertStoppedCleanly(banner, `round ${round}: banner`);
    // The demo made under the first signal was made whole: its credentials are in the banner.
    assert.match(banner.stdout, /"clientSecret":"[^"]+"/);
    assert.equal(integrity(db), 'ok');
  }
});

test('--workers 2: a SIGTERM while the primary is still starting stops it cleanly, before any worker is started', {
  timeout: 120_000,
}, async () => {
  const db = join(dir, 'starting-workers.db');
  const run = await signalWhen(['--db', db, '--port', '0', '--workers', '2'], anyLine);
  assertStoppedCleanly(run, 'while making the demo');
  assert.deepEqual(new Set(logLines(run.stderr).map((line) => line.pid)), new Set([run.pid]));
  assert.equal(integrity(db), 'ok');
});

test('--workers 2, SIGTERM: the primary says last, after every worker has exited, that it stopped', {
  timeout: 120_000,
}, async () => {
  const server = await startServe([
    '--db',
    join(dir, 'workers.db'),
    '--no-demo',
    '--port',
    '0',
    '--workers',
    '2',
  ]);
  const closed = once(server.child, 'close');
  server.child.kill('SIGTERM');
  const [code] = await closed;
  const shown = server.output();
  assert.equal(code, 0, shown);
  const lines = logLines(shown);
  const workers = new Set(lines.map((line) => line.pid).filter((pid) => pid !== server.child.pid));
  assert.equal(workers.size, 2, shown);
  for (const pid of workers)
    assert.ok(
      lines.some((line) => line.pid === pid && line.msg === 'stopped'),
      `worker ${pid} stopped: ${shown}`,
    );
  assert.deepEqual(
    { pid: lines.at(-1)?.pid, level: lines.at(-1)?.level, msg: lines.at(-1)?.msg },
    { pid: server.child.pid, level: 'info', msg: 'larder: stopped.' },
    shown,
  );
});
