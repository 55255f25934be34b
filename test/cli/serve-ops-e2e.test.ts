import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { type ClientRequest, get } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startServe, stop } from '../helpers/cli.js';

/**
 * `larder serve --workers 2` as an operator runs it: every line it writes is JSON, and one scrape covers all; and
 * what it shows of connections over --max-connections.
 */

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-ops-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** `larder serve --workers 2 --metrics-port 0` on a new database of `dir`. */
const serveWithWorkers = (file: string) =>
  startServe(['--db', join(dir, file), '--port', '0', '--workers', '2', '--metrics-port', '0', '--no-demo']);

/** A GET on a new connection each time, so the cluster spreads them over its workers. */
const getOnce = (url: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    get(url, { agent: false, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    })
      .on('error', reject)
      // A guard: a connection held unanswered (as Node's primary held one it was handing a dying worker) fails.
      .setTimeout(5000, function (this: ClientRequest) {
        this.destroy(new Error('no answer within 5 s'));
      });
  });

test('with --workers 2: JSON lines only (banner, logs, access log of every worker), and /metrics merges the workers', async () => {
  const server = await serveWithWorkers('larder.db');
  let code: number | null = null;
  try {
    const banner = server
      .output()
      .split('\n')
      .find((line) => line.includes('listening on'));
    const { metricsUrl } = JSON.parse(banner ?? '{}') as { metricsUrl?: string };
    assert.match(metricsUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const requests = 20;
    for (let i = 0; i < requests; i++) assert.equal(await getOnce(`${server.url}/openapi.json`), 200);
    assert.equal((await fetch(`${server.url}/metrics`)).status, 404);
    const scraped = await (await fetch(metricsUrl ?? '')).text();
    // Summed over both workers: one worker alone saw about half.
    assert.match(
      scraped,
      new RegExp(
        `larder_http_requests_total\\{operation="/openapi.json",method="GET",status="200"\\} ${requests}\\n`,
      ),
    );
    assert.match(scraped, /nodejs_eventloop_lag_p99_seconds/);
    assert.match(scraped, /^larder_http_connections_refused_total 0$/m);
    assert.match(scraped, /^larder_http_connections_open \d+$/m);
    // A per-process limit is one process's, not the workers' sum (the workers inherit this process's limit).
    const limit = /^Max open files\s+(\d+)/m.exec(await readFile('/proc/self/limits', 'utf8'))?.[1];
    assert.match(scraped, new RegExp(`^process_max_fds ${limit}$`, 'm'));
  } finally {
    code = await stop(server.child);
  }
  assert.equal(code, 0);
  const lines = server
    .output()
    .split('\n')
    .filter((line) => line !== '');
  for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
  const entries = lines.map((line) => JSON.parse(line) as { msg: string; pid: number; route?: string });
  const accessPids = new Set(
    entries.filter((e) => e.msg === 'request' && e.route === '/openapi.json').map((e) => e.pid),
  );
  assert.equal(accessPids.size, 2, 'both workers logged requests');
});

test('with --workers 2, a worker killed with SIGKILL is replaced, and every scrape meanwhile answers at once', async () => {
  const server = await serveWithWorkers('replaced.db');
  const entries = () =>
    server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; pid: number; metricsUrl?: string });
  let code: number | null = null;
  try {
    const metricsUrl = entries().find((e) => e.metricsUrl !== undefined)?.metricsUrl ?? '';
    const primary = server.child.pid;
    const workers = new Set(entries().map((e) => e.pid));
    workers.delete(primary!);
    assert.equal(workers.size, 2, 'both workers logged');
    const [victim] = workers;
    // Both workers count some of these; a scrape lets the primary hear each one's counts.
    const served = () =>
      fetch(metricsUrl)
        .then((response) => response.text())
        .then((text) =>
          Number(/^larder_http_requests_total\{operation="\/openapi.json"[^}]*\} (\d+)$/m.exec(text)?.[1]),
        );
    for (let i = 0; i < 20; i++) assert.equal(await getOnce(`${server.url}/openapi.json`), 200);
    assert.equal(await served(), 20);
    process.kill(victim!, 'SIGKILL');
    // Scrape from the kill until the replacement has started: before, every scrape of its start-up waited 5 s
    // for an answer it could not give yet, then failed.
    const replaced = () => entries().some((e) => !workers.has(e.pid) && e.pid !== primary);
    let scrapes = 0;
    for (let after = 0; after < 20; scrapes++) {
      const started = performance.now();
      assert.equal(await getOnce(metricsUrl), 200);
      assert.ok(performance.now() - started < 1000, 'a scrape answered at once');
      if (replaced()) after++;
    }
    assert.ok(scrapes > 20);
    assert.match(
      server.output(),
      new RegExp(`"msg":"worker ${victim} exited \\(SIGKILL\\); starting another\\."`),
    );
    // The dead worker's share stays in the sum: a drop would read as a counter reset.
    assert.equal(await served(), 20);
    // A replacement still building its app holds what it is handed (it answered 503 "Starting up").
    for (let i = 0; i < 10; i++) assert.equal(await getOnce(`${server.url}/openapi.json`), 200);
    assert.equal(await served(), 30);
  } finally {
    code = await stop(server.child);
  }
  assert.equal(code, 0);
});

test('with --workers 2, journal listings while a worker is killed never take the primary (and so the instance) down', async () => {
  const admin = 'ops-e2e-admin-token-0123456789';
  const server = await startServe([
    '--db',
    join(dir, 'listed.db'),
    '--port',
    '0',
    '--workers',
    '2',
    '--no-demo',
    '--admin-token',
    admin,
  ]);
  const pids = () =>
    new Set(
      server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid)
        .filter((pid) => pid !== server.child.pid),
    );
  let code: number | null = null;
  let listing = true;
  let lists: Promise<void>[] = [];
  try {
    const workers = pids();
    assert.equal(workers.size, 2, 'both workers logged');
    // Each listing sends to every worker through the primary; one reaching the killed worker's closed channel
    // was an unhandled 'error' event in the primary, which ended it and every worker with it.
    let listed = 0;
    const list = async () => {
      while (listing)
        if (
          (await getOnce(`${server.url}/_larder/requests?limit=1`, {
            authorization: `Bearer ${admin}`,
          }).catch(() => 0)) === 200
        )
          listed++;
    };
    lists = Array.from({ length: 6 }, list);
    // Listings under way on both workers before the kill.
    while (listed < 50) await getOnce(`${server.url}/healthz`);
    const [victim] = workers;
    process.kill(victim!, 'SIGKILL');
    const replaced = () => [...pids()].some((pid) => !workers.has(pid));
    // A request the primary handed the dying worker is reset: what counts is that the primary lives on.
    while (!replaced() && server.child.exitCode === null)
      await getOnce(`${server.url}/healthz`).catch(() => 0);
    assert.equal(server.child.exitCode, null, 'the primary is still running');
    // A replacement still building its app holds what it is handed (it answered 503 "Starting up").
    for (let i = 0; i < 10; i++) assert.equal(await getOnce(`${server.url}/openapi.json`), 200);
  } finally {
    listing = false;
    await Promise.all(lists);
    code = server.child.exitCode ?? (await stop(server.child));
  }
  assert.equal(code, 0);
});

test('--max-connections 1: a refused connection is counted in /metrics and warned of in the log', async () => {
  const server = await startServe([
    '--db',
    join(dir, 'capped.db'),
    '--port',
    '0',
    '--max-connections',
    '1',
    '--metrics-port',
    '0',
    '--no-demo',
  ]);
  const port = Number(new URL(server.url).port);
  const kept = connect(port, '127.0.0.1');
  let code: number | null = null;
  try {
    kept.on('error', () => {});
    // Answered: the server holds it, and the one slot is taken.
    await new Promise<void>((resolve) => {
      kept.on('data', (chunk) => {
        if (chunk.toString().includes('"status":"ok"')) resolve();
      });
      kept.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    await new Promise<void>((resolve) => {
      const extra = connect(port, '127.0.0.1');
      extra.on('error', () => {});
      extra.on('close', () => resolve());
    });
    const banner = server
      .output()
      .split('\n')
      .find((line) => line.includes('listening on'));
    const { metricsUrl } = JSON.parse(banner ?? '{}') as { metricsUrl?: string };
    const scraped = await (await fetch(metricsUrl ?? '')).text();
    assert.match(scraped, /^larder_http_connections_refused_total 1$/m);
    assert.match(scraped, /^larder_http_connections_open 1$/m);
    await server.until((output) => output.includes('"refused":'));
    const warning = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string; refused?: number })
      .find((entry) => entry.refused !== undefined);
    assert.equal(warning?.level, 'warn');
    assert.equal(warning?.refused, 1);
    assert.match(warning?.msg ?? '', /--max-connections/);
  } finally {
    kept.destroy();
    code = await stop(server.child);
  }
  assert.equal(code, 0);
});
