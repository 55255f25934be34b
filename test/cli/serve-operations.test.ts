import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LATEST_SCHEMA_VERSION } from '../../src/storage/postgres/migrations.js';
import { larder, startServe, stop } from '../helpers/cli.js';
import { adminQuery, postgresUnreachable, postgresUrl } from '../storage/backends.js';

/** Operator paths of `larder serve`: workers, a busy port, and PostgreSQL schema handling. */

/** A port this test holds: nothing else can take it meanwhile. */
const holdPort = () =>
  new Promise<{ port: number; release: () => void }>((resolve) => {
    const holder = createServer().listen(0, '127.0.0.1', () => {
      const address = holder.address();
      resolve({
        port: typeof address === 'object' && address !== null ? address.port : 0,
        release: () => holder.close(),
      });
    });
  });

describe('serve on SQLite', () => {
  let dir: string;
  let db: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-ops-'));
    db = join(dir, 'larder.db');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('--workers 2 serves from two processes and stops them all on SIGTERM', async () => {
    // Port 0 with workers: the cluster's primary picks one port for all of them, and the banner names it.
    const server = await startServe(['--db', db, '--no-demo', '--port', '0', '--workers', '2']);
    try {
      assert.match(server.output(), /2 worker\(s\)/);
      const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(`${server.url}/healthz`)));
      assert.deepEqual(
        answers.map((response) => response.status),
        Array(8).fill(200),
      );
    } finally {
      assert.equal(await stop(server.child), 0);
    }
  });

  const admin = 'workers-admin-token-0123456789';
  /** A sandbox of two workers on the shared database. */
  const sandboxWorkers = (...extra: string[]) =>
    startServe(['--db', db, '--no-demo', '--port', '0', '--workers', '2', '--admin-token', admin, ...extra]);

  test('--workers 2: the request journal covers every worker, whichever answers the admin API', async () => {
    const server = await sandboxWorkers();
    try {
      const headers = { authorization: `Bearer ${admin}` };
      await fetch(`${server.url}/_larder/requests`, { method: 'DELETE', headers });
      // Fresh connections each, so both workers answer some (the primary hands connections round-robin).
      for (let i = 0; i < 20; i++)
        await fetch(`${server.url}/.well-known/jwks.json`, {
          headers: { connection: 'close', 'x-request-id': `journal-${i}` },
        });
      for (let i = 0; i < 4; i++) {
        const { requests, next } = (await (
          await fetch(`${server.url}/_larder/requests`, { headers: { ...headers, connection: 'close' } })
        ).json()) as { requests: { id: string; seq: number; requestId: string }[]; next: string };
        assert.deepEqual(
          requests.map((r) => r.requestId),
          Array.from({ length: 20 }, (_, n) => `journal-${n}`),
        );
        // Each worker counts its own seq, so seq repeats; the id names the worker as `next` does, and is unique.
        assert.ok(new Set(requests.map((r) => r.seq)).size < 20, 'seq repeats across the workers');
        assert.equal(new Set(requests.map((r) => r.id)).size, 20);
        const journals = new Set(next.split(',').map((pair) => pair.split(':')[0]));
        for (const { id, seq } of requests) {
          const [journal, own] = id.split(':');
          assert.ok(journals.has(journal), `${id} of a journal in ${next}`);
          assert.equal(Number(own), seq);
        }
      }
      // `larder requests --json` prints them as listed: one line per request, each id once.
      const listed = await larder(['requests', '--json', '--url', server.url, '--admin-token', admin]);
      const ids = listed.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id);
      assert.equal(new Set(ids).size, 20, listed.stdout);
    } finally {
      assert.equal(await stop(server.child), 0);
    }
  });

  test("--workers 2: what each worker's journal dropped is summed, so held plus dropped is every request", async () => {
    const server = await sandboxWorkers('--journal-size', '3');
    try {
      const headers = { authorization: `Bearer ${admin}`, connection: 'close' };
      for (let i = 0; i < 20; i++)
        await fetch(`${server.url}/.well-known/jwks.json`, {
          headers: { connection: 'close', 'x-request-id': `wrap-${i}` },
        });
      const { requests, dropped } = (await (
        await fetch(`${server.url}/_larder/requests`, { headers })
      ).json()) as { requests: { requestId: string }[]; dropped: number };
      // However the connections were shared out, each worker holds its newest 3 at most.
      assert.ok(requests.length <= 6, String(requests.length));
      assert.equal(requests.length + dropped, 20);
      assert.equal(requests.at(-1)?.requestId, 'wrap-19');
    } finally {
      assert.equal(await stop(server.child), 0);
    }
  });

  test('a port already in use ends serve with exit code 1 and says so', async () => {
    const { port, release } = await holdPort();
    try {
      const run = await larder(['serve', '--db', db, '--no-demo', '--port', String(port), '--workers', '2']);
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`Port ${port} on 127.0.0.1 is already in use`));
    } finally {
      release();
    }
  });

  test('an invalid flag value is a usage error naming the flag', async () => {
    const run = await larder(['serve', '--db', db, '--port', '70000']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--port must be a whole number from 0 to 65535/);
  });
});

const unreachable = await postgresUnreachable();

describe('serve on PostgreSQL', { skip: unreachable ?? false }, () => {
  const database = `larder_cli_${randomBytes(4).toString('hex')}`;
  const url = postgresUrl.replace(/\/[^/]*$/, `/${database}`);
  before(() => adminQuery(`CREATE DATABASE ${database}`));
  after(() => adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));

  test('serve refuses an unmigrated schema and says how to migrate', async () => {
    const run = await larder(['serve', '--database-url', url, '--port', '0']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /larder migrate --database-url/);
  });

  test('migrate, import-free seed, then serve answers with the stored data', async () => {
    const latest = LATEST_SCHEMA_VERSION;
    assert.match(
      (await larder(['migrate', '--database-url', url])).stdout,
      new RegExp(`from version 0 to ${latest}`),
    );
    assert.match(
      (await larder(['migrate', '--database-url', url])).stdout,
      new RegExp(`already at version ${latest}`),
    );
    const seeded = await larder(['seed', '--locations', '1', '--days', '7', '--end-date', '2024-06-30'], {
      DATABASE_URL: url,
    });
    assert.equal(seeded.code, 0, seeded.stderr);
    const server = await startServe(['--database-url', url, '--port', '0']);
    try {
      assert.match(server.output(), /postgres storage/);
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    } finally {
      assert.equal(await stop(server.child), 0);
    }
  });
});
