import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CommandIo, parseCommandArgs } from '../../src/cli/command.js';
import { serveCommand } from '../../src/cli/commands/serve-command.js';
import { main } from '../../src/cli/main.js';
import { type ServeHandle, serve } from '../../src/cli/serve.js';
import { parseServeConfig } from '../../src/cli/serve-config.js';
import { silentLogger } from '../../src/shared/logger.js';
import { BIN, larderToHead } from '../helpers/cli.js';

/** The admin CLI commands against a server started in process. */

const ADMIN = 'cli-admin-token-0123456789';
let dir: string;
let handle: ServeHandle;

const capture = (): CommandIo & { out: () => string; err: () => string } => {
  let out = '';
  let err = '';
  return {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    env: {},
    isTty: false,
    out: () => out,
    err: () => err,
  };
};

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-admin-cli-'));
  const args = parseCommandArgs(
    serveCommand,
    ['--db', join(dir, 'larder.db'), '--port', '0', '--no-demo', '--admin-token', ADMIN],
    capture(),
  );
  assert.notEqual(args, 'help');
  handle = await serve(parseServeConfig(args as Exclude<typeof args, 'help'>), capture(), {
    logger: silentLogger,
  });
});
after(async () => {
  await handle.stop();
  await rm(dir, { recursive: true, force: true });
});

const larder = async (...argv: string[]) => {
  const io = capture();
  const code = await main([...argv, '--url', handle.url, '--admin-token', ADMIN], io);
  return { code, out: io.out(), err: io.err() };
};

test('clock set, advance, show and reset drive the server', async () => {
  assert.match(
    (await larder('clock', 'set', '2025-01-01T00:00:00Z', '--frozen')).out,
    /^2025-01-01T00:00:00.000Z \(frozen\)/,
  );
  assert.match((await larder('clock', 'advance', '1d2h')).out, /^2025-01-02T02:00:00.000Z \(frozen\)/);
  const shown = JSON.parse((await larder('clock', 'show', '--json')).out) as { now: string; frozen: boolean };
  assert.deepEqual([shown.now, shown.frozen], ['2025-01-02T02:00:00.000Z', true]);
  // A date alone is its midnight UTC.
  assert.match((await larder('clock', 'set', '2025-03-04')).out, /^2025-03-04T00:00:0\d\.\d{3}Z/);
  const reset = await larder('clock', 'reset');
  assert.equal(reset.code, 0);
  assert.match(reset.out, /offset \+0 s/);
});

test('clock mistakes are usage errors; a wrong token is the server refusing', async () => {
  assert.equal((await larder('clock', 'advance', 'soon')).code, 2);
  assert.equal((await larder('clock', 'set', 'yesterday')).code, 2);
  // Refused by the CLI as the server would refuse them, before any request: not a day, not RFC 3339.
  for (const value of ['2025-02-30', '2025-06-01 09:00:00Z', '2025-06-01T09:00:00+0500'])
    assert.match((await larder('clock', 'set', value)).err, /clock set needs a date-time \(RFC 3339/, value);
  const io = capture();
  const code = await main(
    ['clock', 'show', '--url', handle.url, '--admin-token', 'wrong-token-0123456789'],
    io,
  );
  assert.equal(code, 1);
  assert.match(io.err(), /refused the admin token \(wrong or missing\)/);
});

test('a --url that is no http(s) URL is a usage error; one that cannot be reached says why, in plain words', async () => {
  const at = async (url: string) => {
    const io = capture();
    const code = await main(['clock', 'show', '--url', url, '--admin-token', ADMIN], io);
    return { code, err: io.err() };
  };
  for (const url of ['127.0.0.1:8080', 'ftp://larder.test', 'notaurl']) {
    const refused = await at(url);
    assert.equal(refused.code, 2, url);
    assert.match(refused.err, /^larder clock: --url must be an http\(s\) URL/, url);
  }
  // fetch refuses port 1 before connecting: said as that, naming the URL and the port, not as a bare "bad port".
  assert.deepEqual(await at('http://127.0.0.1:1'), {
    code: 1,
    err:
      'larder clock: cannot reach http://127.0.0.1:1: port 1 is one fetch refuses to connect to (a "bad port" of ' +
      'the Fetch standard, blocked by browsers too; nothing was sent): serve it on another port\n',
  });
});

test('requests lists the journal, filtered by client and status', async () => {
  await fetch(`${handle.url}/v1/purchaseOrders/search`, { method: 'POST' });
  const listed = await larder('requests', '--status', '401', '--json');
  assert.equal(listed.code, 0);
  const entries = listed.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { status: number; operation: string });
  assert.ok(entries.length >= 1);
  assert.ok(entries.every((e) => e.status === 401 && e.operation === 'searchPurchaseOrders'));
});

test('requests --limit keeps the newest, --since the later ones (a day alone: its midnight UTC)', async () => {
  for (let i = 0; i < 3; i++) await fetch(`${handle.url}/v1/purchaseOrders/search`, { method: 'POST' });
  const all = (await larder('requests', '--json')).out.trim().split('\n');
  const newest = (await larder('requests', '--json', '--limit', '2')).out.trim().split('\n');
  assert.deepEqual(newest, all.slice(-2));
  const last = JSON.parse(all.at(-1)!) as { time: string };
  const since = (await larder('requests', '--json', '--since', last.time)).out.trim().split('\n');
  assert.deepEqual(
    since,
    all.filter((entry) => (JSON.parse(entry) as { time: string }).time >= last.time),
  );
  const day = last.time.slice(0, 10);
  const fromDay = (await larder('requests', '--json', '--since', day)).out.trim().split('\n');
  assert.deepEqual(
    fromDay,
    all.filter((entry) => (JSON.parse(entry) as { time: string }).time >= `${day}T00:00:00.000Z`),
  );
  const nextDay = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
  assert.equal((await larder('requests', '--since', nextDay)).out, 'No recorded requests match.\n');
  assert.equal((await larder('requests', 'purge')).code, 2);
});

test('a bad --since, --status or --operation of requests is a usage error naming the flag', async () => {
  for (const [flag, value, message] of [
    [
      '--since',
      'yesterday',
      /^larder requests: --since must be a day \(YYYY-MM-DD\) or a date-time \(RFC 3339/,
    ],
    ['--since', '2025-02-30', /^larder requests: --since must be a day/],
    ['--status', '5x', /^larder requests: --status must be an HTTP status \(429\) or class \(4xx\)/],
    [
      '--operation',
      'searchPurchaseOrder',
      /^larder requests: --operation must be .*did you mean searchPurchaseOrders\?/,
    ],
    ['--limit', 'lots', /^larder requests: --limit must be a whole number/],
  ] as const) {
    const bad = await larder('requests', flag, value);
    assert.equal(bad.code, 2, `${flag} ${value}`);
    assert.match(bad.err, message, `${flag} ${value}`);
    assert.doesNotMatch(bad.err, /400/, `${flag} ${value}`);
  }
});

/**
 * `larder requests --follow --json …` from bin/ against `url`: once it printed its first listing, `act` runs;
 * then its output once `settled` says so, and it is stopped.
 */
const follow = async (
  url: string,
  argv: string[],
  act: () => Promise<void>,
  settled: (out: string[], err: string) => boolean,
): Promise<{ out: string[]; err: string }> => {
  const child = spawn(process.execPath, [BIN, 'requests', '--follow', '--json', ...argv], {
    env: { ...process.env, LARDER_URL: url, LARDER_ADMIN_TOKEN: ADMIN },
  });
  let out = '';
  let err = '';
  let check = () => {};
  child.stdout.on('data', (chunk) => {
    out += chunk;
    check();
  });
  child.stderr.on('data', (chunk) => {
    err += chunk;
    check();
  });
  const lines = () => out.split('\n').filter((text) => text !== '');
  // Output is the event: a follow that never prints what is awaited fails by the test's own timeout.
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      check = () => {
        if (done()) resolve();
      };
      check();
    });
  try {
    await until(() => lines().length > 0);
    await act();
    await until(() => settled(lines(), err));
    return { out: lines(), err };
  } finally {
    child.kill();
    await once(child, 'close');
  }
};

const nothing = (url: string, n: number) =>
  fetch(`${url}/v1/nothing-${n}`).then((response) => response.text());
const paths = (lines: string[]) => lines.map((text) => (JSON.parse(text) as { path: string }).path);

test('requests --follow --limit 1 prints the newest, then every request after it, however close together', async () => {
  await larder('requests', 'clear');
  await nothing(handle.url, 0);
  await nothing(handle.url, 1);
  const followed = await follow(
    handle.url,
    ['--limit', '1'],
    async () => {
      for (let n = 2; n <= 6; n++) await nothing(handle.url, n);
    },
    (out) => out.length >= 6,
  );
  assert.deepEqual(
    paths(followed.out),
    [1, 2, 3, 4, 5, 6].map((n) => `/v1/nothing-${n}`),
  );
  assert.equal(followed.err, '');
});

test('requests --follow ends, exit 0 and no stack, once it finds its reader gone (`larder requests --follow | head -1`)', async () => {
  await larder('requests', 'clear');
  await nothing(handle.url, 0);
  const run = larderToHead(['requests', '--follow', '--json'], {
    LARDER_URL: handle.url,
    LARDER_ADMIN_TOKEN: ADMIN,
  });
  // The reader takes the first listing and goes; the request after that is what the next poll writes into the
  // closed pipe, which is how a follow learns its reader has gone.
  await run.readerGone;
  await nothing(handle.url, 1);
  assert.deepEqual(await run.closed, { code: 0, stderr: '' });
});

test('requests --follow says how many requests the full journal let go between two polls', async () => {
  const { server, run } = await sandboxWithJournal('follow.db', '2');
  try {
    await nothing(server.url, 0);
    let missed = 0;
    const followed = await follow(
      server.url,
      [],
      async () => {
        // Within one poll interval, or two: either way one holds three or more, one more than the journal keeps.
        for (let n = 1; n <= 5; n++) await nothing(server.url, n);
      },
      (out, err) => {
        missed = [
          ...err.matchAll(/^Warning: (\d+) requests? \(of any client\) arrived and left the full journal/gm),
        ]
          .map((match) => Number(match[1]))
          .reduce((sum, count) => sum + count, 0);
        return out.length - 1 + missed >= 5;
      },
    );
    assert.ok(missed > 0, followed.err);
    assert.equal(followed.out.length - 1 + missed, 5);
    assert.equal(paths(followed.out).at(-1), '/v1/nothing-5');
    assert.equal((await run('requests', 'clear')).code, 0);
  } finally {
    await server.stop();
  }
});

test('requests says so when nothing matches, except in --json output', async () => {
  const cleared = await larder('requests', 'clear');
  assert.equal(cleared.code, 0);
  assert.equal(cleared.out, 'Cleared the request journal: it is empty now.\n');
  const empty = await larder('requests');
  assert.equal(empty.out, 'No requests recorded yet.\n');
  const none = await larder('requests', '--client', 'nobody-has-this-id');
  assert.equal(none.code, 0);
  assert.equal(none.out, 'No recorded requests match.\n');
  const json = await larder('requests', '--client', 'nobody-has-this-id', '--json');
  assert.equal(json.out, '');
});

test('requests --limit 0 lists nothing, and never claims the journal is empty when it is not', async () => {
  await fetch(`${handle.url}/v1/purchaseOrders/search`, { method: 'POST' });
  assert.notEqual((await larder('requests')).out, 'No requests recorded yet.\n');
  // Zero entries is what was asked for (with --follow: only what comes next), not a sign of an empty journal.
  assert.deepEqual(await larder('requests', '--limit', '0'), { code: 0, out: '', err: '' });
});

test('report judges a client: findings with exit code 3, none with 0, no requests at all with 4', async () => {
  // A client id of a client id's shape: any other claimed id is journaled as "(not a client id)".
  const reportClient = '0f0e0d0c-0b0a-4908-8706-050403020100';
  const login = (clientSecret: string, clientId = reportClient) =>
    fetch(`${handle.url}/authentication/v1/authentication/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
    });
  for (let i = 0; i < 3; i++) await login('wrong');
  const judged = await larder('report', '--client', reportClient);
  assert.equal(judged.code, 3, judged.err);
  assert.match(judged.out, /token-requests-per-hour/);
  assert.match(judged.out, /repeated-failing-request/);
  const created = (await (
    await fetch(`${handle.url}/_larder/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'well-behaved', allLocations: true }),
    })
  ).json()) as { clientId: string; clientSecret: string };
  assert.equal((await login(created.clientSecret, created.clientId)).status, 200);
  const clean = await larder('report', '--client', created.clientId, '--json');
  assert.equal(clean.code, 0);
  assert.deepEqual((JSON.parse(clean.out) as { findings: unknown[] }).findings, []);
  // A misspelt id judges nothing: not a pass.
  const nobody = await larder('report', '--client', 'nobody-at-all');
  assert.equal(nobody.code, 4);
  assert.match(nobody.out, /no recorded requests, so nothing was judged/);
  assert.equal((await larder('report')).code, 2);
});

/** A second sandbox with its own journal size, and the admin CLI against it. */
const sandboxWithJournal = async (db: string, journalSize: string) => {
  const args = parseCommandArgs(
    serveCommand,
    [
      '--db',
      join(dir, db),
      '--port',
      '0',
      '--no-demo',
      '--admin-token',
      ADMIN,
      '--journal-size',
      journalSize,
    ],
    capture(),
  );
  assert.notEqual(args, 'help');
  const server = await serve(parseServeConfig(args as Exclude<typeof args, 'help'>), capture(), {
    logger: silentLogger,
  });
  const run = async (...argv: string[]) => {
    const io = capture();
    const code = await main([...argv, '--url', server.url, '--admin-token', ADMIN], io);
    return { code, out: io.out(), err: io.err() };
  };
  return { server, run };
};

test('requests and report warn, on stderr, when the journal has dropped entries', async () => {
  const { server: small, run } = await sandboxWithJournal('small.db', '2');
  try {
    for (let i = 0; i < 2; i++) await fetch(`${small.url}/v1/purchaseOrders/search`, { method: 'POST' });
    assert.equal((await run('requests')).err, '');
    await fetch(`${small.url}/.well-known/jwks.json`);
    const listed = await run('requests');
    assert.equal(listed.code, 0);
    assert.equal(listed.out.trim().split('\n').length, 2);
    // Said as report says it: a warning, so named.
    assert.match(listed.err, /^Warning: the journal dropped its 1 oldest entry since it was last cleared/);
    const reported = await run('report', '--client', 'someone');
    assert.equal(reported.code, 4);
    assert.match(
      reported.err,
      /^Warning: the journal dropped its 1 oldest entry .* so earlier traffic was not judged/,
    );
  } finally {
    await small.stop();
  }
});

test('requests clear with the journal off says nothing is recorded, not that the journal is empty', async () => {
  const { server, run } = await sandboxWithJournal('off.db', '0');
  try {
    const cleared = await run('requests', 'clear');
    assert.equal(cleared.code, 0);
    assert.match(cleared.out, /^The request journal is off \(--journal-size 0\): nothing is recorded/);
  } finally {
    await server.stop();
  }
});

test('faults set, show and clear drive the server; a bad file names the file and the field', async () => {
  const file = join(dir, 'faults.json');
  await writeFile(
    file,
    JSON.stringify({
      rules: [{ id: 'tenth', when: { every: 10 }, effect: { type: 'status', status: 503 } }],
    }),
  );
  const set = await larder('faults', 'set', file);
  assert.equal(set.code, 0, set.err);
  assert.match(
    set.out,
    /^tenth: \{"type":"status","status":503\} when \{"every":10\} match \{\}: matched 0, applied 0/,
  );
  const shown = JSON.parse((await larder('faults', 'show', '--json')).out) as { rules: { id: string }[] };
  assert.deepEqual(
    shown.rules.map((rule) => rule.id),
    ['tenth'],
  );
  assert.equal((await larder('faults', 'clear')).out, 'No fault rules.\n');
  const bad = join(dir, 'bad.json');
  await writeFile(bad, JSON.stringify({ rules: [{ effect: { type: 'latency' } }] }));
  const refused = await larder('faults', 'set', bad);
  assert.equal(refused.code, 2);
  assert.match(refused.err, /faults set .*bad\.json: rules\[0\]\.effect\.ms is required/);
  assert.equal((await larder('faults', 'set')).code, 2);
});

test('faults add and remove change one rule at a time; a bad rule names its field, an unknown id fails', async () => {
  const rules = join(dir, 'tenth.json');
  await writeFile(
    rules,
    JSON.stringify({ rules: [{ id: 'tenth', when: { every: 10 }, effect: { type: 'reset' } }] }),
  );
  assert.equal((await larder('faults', 'set', rules)).code, 0);
  const inline = await larder('faults', 'add', '{"id": "cut", "effect": {"type": "cutBody"}}');
  assert.equal(inline.code, 0, inline.err);
  const file = join(dir, 'rule.json');
  await writeFile(file, JSON.stringify({ effect: { type: 'reset' }, match: { pathPrefix: '/nowhere' } }));
  const fromFile = await larder('faults', 'add', file, '--json');
  assert.deepEqual(
    (JSON.parse(fromFile.out) as { rules: { id: string }[] }).rules.map((rule) => rule.id),
    ['tenth', 'cut', 'rule-3'],
  );
  const removed = await larder('faults', 'remove', 'cut');
  assert.equal(removed.code, 0, removed.err);
  assert.doesNotMatch(removed.out, /^cut:/m);
  assert.match(removed.out, /^rule-3:/m);
  const bad = await larder('faults', 'add', '{"effect": {"type": "latency"}}');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /faults add: effect\.ms is required/);
  const unknown = await larder('faults', 'remove', 'cut');
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /No fault rule cut/);
  const twice = await larder('faults', 'add', '{"id": "tenth", "effect": {"type": "reset"}}');
  assert.equal(twice.code, 1);
  assert.match(twice.err, /A fault rule tenth exists already/);
  assert.equal((await larder('faults', 'add')).code, 2);
  assert.equal((await larder('faults', 'remove')).code, 2);
  await larder('faults', 'clear');
});

test('rate-limits shows what each address has used, clears it; off says so', async () => {
  assert.equal((await larder('rate-limits')).out, 'No rate limits: the server runs with --rate-limit off.\n');
  const args = parseCommandArgs(
    serveCommand,
    [
      '--db',
      join(dir, 'limited.db'),
      '--port',
      '0',
      '--no-demo',
      '--admin-token',
      ADMIN,
      '--rate-limit',
      '2/h',
    ],
    capture(),
  );
  assert.notEqual(args, 'help');
  const limited = await serve(parseServeConfig(args as Exclude<typeof args, 'help'>), capture(), {
    logger: silentLogger,
  });
  try {
    const on = async (...argv: string[]) => {
      const io = capture();
      const code = await main([...argv, '--url', limited.url, '--admin-token', ADMIN], io);
      return { code, out: io.out(), err: io.err() };
    };
    assert.equal(
      (await on('rate-limits', 'show')).out,
      'Rate limits: 2/3600s\nNothing counted in the current windows.\n',
    );
    const login = await fetch(`${limited.url}/authentication/v1/authentication/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(login.status, 400);
    assert.match(
      (await on('rate-limits')).out,
      /^address 127\.0\.0\.1: 1 of 2 in 3600 s \(until \d{4}-\d\d-\d\dT\d\d:00:00\.000Z\)$/m,
    );
    const json = JSON.parse((await on('rate-limits', '--json')).out) as { counted: unknown[] };
    assert.equal(json.counted.length, 1);
    assert.equal(
      (await on('rate-limits', 'clear')).out,
      'Rate limits: 2/3600s\nNothing counted in the current windows.\n',
    );
    assert.equal((await on('rate-limits', 'reset')).code, 2);
    assert.equal((await on('rate-limits', 'show', 'extra')).code, 2);
  } finally {
    await limited.stop();
  }
});
