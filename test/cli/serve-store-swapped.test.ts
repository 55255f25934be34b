import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, open, readFile, rename, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { larder, startServe, stop } from '../helpers/cli.js';

/**
 * The SQLite file changed under a running `larder serve` (built CLI, real processes): what the operator sees on
 * the wire, in /readyz, in the log, and at the next start. SQLite notices a file overwritten in place only when it
 * reads it again; another process's checkpoint (as after any commit of theirs) drops every connection's page cache,
 * so the server's next read goes to the file: that is how the tests reach it, without waiting.
 */

const ADMIN = 'swapped-e2e-admin-token-0123456789';
const NOT_A_DATABASE = 'These bytes are not a SQLite database.\n'.repeat(2000);
const NOT_READY =
  'not ready: the database file is damaged or was replaced; writes are refused, and reads of what is damaged fail, until the server is restarted on a sound file';
const DAMAGED =
  'The database file is damaged or was replaced; the server log says which file and what to do.';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-swapped-e2e-'));
});
after(() => rm(dir, { recursive: true, force: true }));

interface Answer {
  status: number;
  requestId: string | undefined;
  body: Record<string, unknown>;
}

/** One request on a connection of its own (so `--workers` hands each to the next worker in turn). */
const send = (url: string, method = 'GET', body?: string) =>
  new Promise<Answer>((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${ADMIN}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const outgoing = request(url, { method, agent: false, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          requestId: response.headers['x-request-id'] as string | undefined,
          body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });

/** The ErrorMessage a request that needs the lost file gets: a 500 saying so, with its request id. */
const assertDamagedAnswer = (answer: Answer) => {
  assert.equal(answer.status, 500);
  assert.deepEqual(answer.body, {
    status: '500',
    code: 50001,
    message: DAMAGED,
    requestId: answer.requestId,
    canRetry: 'true',
  });
};

const assertNotReady = (answer: Answer) => {
  assert.equal(answer.status, 503);
  assert.equal(answer.body['message'], DAMAGED);
  assert.equal(typeof answer.body['requestId'], 'string');
};

interface LogLine {
  level: string;
  msg: string;
  pid: number;
  error?: { message?: string };
}

const logLines = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{"level"'))
    .map((line) => JSON.parse(line) as LogLine);

type Served = Awaited<ReturnType<typeof startServe>>;

/** Stops `server`, which exits 0, and returns its error lines: all of them are written by then. */
const stopForErrors = async (server: Served): Promise<LogLine[]> => {
  const code = await stop(server.child);
  assert.equal(code, 0, server.output());
  return logLines(server.output()).filter((line) => line.level === 'error');
};

/** Another process's checkpoint: the server's connections read the file again at their next read. */
const checkpointElsewhere = (path: string): void => {
  const other = new Database(path);
  try {
    other.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    other.close();
  }
};

/** Puts `bytes` over the file in place (same inode), in one write: a read meanwhile sees the old page 1 or the new. */
const putInPlace = async (path: string, bytes: Buffer | string): Promise<void> => {
  const file = await open(path, 'r+');
  try {
    await file.write(typeof bytes === 'string' ? Buffer.from(bytes) : bytes, 0, undefined, 0);
    await file.truncate(Buffer.byteLength(bytes));
  } finally {
    await file.close();
  }
};

/**
 * Overwrites the server's file with other bytes until `noticed` says the server saw it. The server reads on its
 * own too (the auth and clock polls, every 250 ms): one falling between the checkpoint and the overwrite reloads
 * its cache from the sound file, and a process whose next reads all hit that cache goes on answering 200. Then
 * the sound bytes go back and it is tried again, which leaves any process that already saw the damage latched.
 */
const overwriteUntil = async (path: string, noticed: () => Promise<boolean>): Promise<void> => {
  checkpointElsewhere(path);
  const sound = await readFile(path);
  for (let attempt = 1; ; attempt++) {
    await putInPlace(path, NOT_A_DATABASE);
    if (await noticed()) return;
    assert.ok(attempt < 5, 'the server never noticed its file overwritten');
    await putInPlace(path, sound);
    checkpointElsewhere(path);
  }
};

const serveOn = (path: string, ...extra: string[]) =>
  startServe(['--db', path, '--no-demo', '--port', '0', '--admin-token', ADMIN, ...extra]);

test('larder serve: its file overwritten with other bytes (SQLITE_NOTADB) answers 500s saying so, /readyz 503, logged once; the file is left as put there, and a restart refuses it saying what to do', {
  timeout: 90_000,
}, async () => {
  const path = join(dir, 'overwritten.db');
  const server = await serveOn(path);
  let errors: LogLine[] = [];
  try {
    assert.equal((await send(`${server.url}/_larder/locations`)).status, 200);
    assert.equal((await send(`${server.url}/readyz`)).status, 200);

    let first: Answer | undefined;
    await overwriteUntil(path, async () => {
      first = await send(`${server.url}/_larder/locations`);
      return first.status !== 200;
    });
    assertDamagedAnswer(first!);
    for (let attempt = 0; attempt < 2; attempt++)
      assertDamagedAnswer(await send(`${server.url}/_larder/locations`));
    // Writes too: none may put Larder's pages back over what the operator put there.
    assertDamagedAnswer(
      await send(`${server.url}/_larder/clients`, 'POST', '{"name":"late","allLocations":true}'),
    );
    for (let probe = 0; probe < 3; probe++) assertNotReady(await send(`${server.url}/readyz`));
    assert.equal(server.child.exitCode, null, 'the server is still up');
  } finally {
    errors = await stopForErrors(server);
  }
  // The failing requests and probes said it once each, naming the file and what to do.
  assert.deepEqual(
    errors.map((line) => line.msg),
    ['request failed', NOT_READY],
  );
  // Page 1 read again says SQLITE_NOTADB; a page read from the file while page 1 was still cached (a poll between
  // the checkpoint and the overwrite), SQLITE_CORRUPT. Both name the file and say to restore it.
  for (const line of errors) {
    assert.ok(line.error?.message?.includes(path), line.error?.message);
    assert.match(line.error?.message ?? '', /SQLITE_(NOTADB|CORRUPT).*restore it from a backup/);
  }
  assert.equal(await readFile(path, 'utf8'), NOT_A_DATABASE);

  const restart = await larder(['serve', '--db', path, '--no-demo', '--port', '0']);
  assert.equal(restart.code, 1);
  assert.equal(
    logLines(restart.stderr)
      .map((line) => line.msg)
      .join('\n'),
    `cannot start: Cannot open the SQLite database ${path}: ${path} is not a SQLite database (SQLITE_NOTADB: file is not a database): if it was Larder's, it was overwritten or replaced; restore it from a backup.`,
  );
});

test('larder serve: its file replaced through a rename goes not ready, logged once, and refuses writes (which would be lost with the old file); the file put there is untouched and served after a restart', {
  timeout: 90_000,
}, async () => {
  const path = join(dir, 'renamed.db');
  const otherPath = join(dir, 'other.db');
  const seeded = await larder(['seed', '--db', otherPath, '--locations', '1', '--days', '2']);
  assert.equal(seeded.code, 0, seeded.stderr);
  const replacement = await readFile(otherPath);
  const server = await serveOn(path);
  let errors: LogLine[] = [];
  try {
    assert.deepEqual((await send(`${server.url}/_larder/locations`)).body, { locations: [] });
    await rename(otherPath, path);
    for (let probe = 0; probe < 3; probe++) assertNotReady(await send(`${server.url}/readyz`));
    assertDamagedAnswer(
      await send(`${server.url}/_larder/clients`, 'POST', '{"name":"lost","allLocations":true}'),
    );
  } finally {
    errors = await stopForErrors(server);
  }
  assert.deepEqual(
    errors.map((line) => line.msg),
    [NOT_READY, 'request failed'],
  );
  assert.match(errors[0]?.error?.message ?? '', /was replaced or removed while this process had it open/);
  assert.deepEqual(await readFile(path), replacement);

  // The database put in its place is what a restart serves.
  const restarted = await serveOn(path);
  try {
    assert.equal((await send(`${restarted.url}/readyz`)).status, 200);
    const { body } = await send(`${restarted.url}/_larder/locations`);
    assert.ok((body['locations'] as unknown[]).length > 0, JSON.stringify(body));
  } finally {
    await stop(restarted.child);
  }
});

test('larder serve --workers 2: its file overwritten, each worker latches on its own and answers not ready; a worker that dies is not replaced forever: its replacement cannot open the file, and the server stops (exit 1) saying why', {
  timeout: 120_000,
}, async () => {
  const path = join(dir, 'workers.db');
  const server = await serveOn(path, '--workers', '2');
  const workerPids = () =>
    new Set(
      logLines(server.output())
        .map((line) => line.pid)
        .filter((pid) => pid !== server.child.pid),
    );
  const workers = workerPids();
  assert.equal(workers.size, 2, server.output());
  // 'close': its output read to the end, the primary's last line included.
  const exited = once(server.child, 'close');
  const notReady = () =>
    logLines(server.output()).filter((line) => line.level === 'error' && line.msg.startsWith('not ready'));
  try {
    // The primary hands connections to the workers in turn: each gets probes, and finds the file so on its own.
    const probes: Answer[] = [];
    await overwriteUntil(path, async () => {
      probes.length = 0;
      for (let probe = 0; probe < 6; probe++) probes.push(await send(`${server.url}/readyz`));
      return probes.every((answer) => answer.status !== 200);
    });
    for (const answer of probes) assertNotReady(answer);
    await server.until(() => new Set(notReady().map((line) => line.pid)).size === 2);
    assert.deepEqual(new Set(notReady().map((line) => line.pid)), workers);

    const [victim] = workers;
    process.kill(victim!, 'SIGKILL');
    const [code] = await exited;
    assert.equal(code, 1, server.output());
  } finally {
    if (server.child.exitCode === null) await stop(server.child);
  }
  assert.equal(notReady().length, 2, 'each worker said it once');
  const lines = logLines(server.output());
  const replacement = lines.find((line) => !workers.has(line.pid) && line.pid !== server.child.pid);
  assert.match(
    replacement?.msg ?? server.output(),
    /^cannot start: Cannot open the SQLite database .+ is not a SQLite database \(SQLITE_NOTADB/,
  );
  assert.match(server.output(), /worker \d+ exited \(1\) before serving; stopping\./);
  // The primary's last word, once every worker has gone: that it stopped, with its exit code and why.
  const last = lines.at(-1);
  assert.equal(last?.pid, server.child.pid, server.output());
  assert.match(
    last?.msg ?? '',
    /^larder: stopped \(exit code 1\): worker \d+ exited \(1\) before serving; stopping\.$/,
  );
  assert.equal(await readFile(path, 'utf8'), NOT_A_DATABASE);
});
