import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, constants, existsSync, fstatSync, openSync, statSync } from 'node:fs';
import {
  link,
  lstat,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  watch,
  writeFile,
} from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, before, describe, type TestContext, test } from 'node:test';
import Database from 'better-sqlite3';
import { NUMBER_PLACEHOLDERS, parseCommandArgs, UsageError } from '../../src/cli/command.js';
import { serveCommand } from '../../src/cli/commands/serve-command.js';
import { COMMANDS } from '../../src/cli/main.js';
import { parseServeConfig } from '../../src/cli/serve-config.js';
import { BIN, larder, runMain } from '../helpers/cli.js';
import { purchaseOrderFixture } from '../helpers/fixtures.js';
import { captureIo } from '../helpers/serve-config.js';

/** How options reach a command: flags, environment variables and their precedence, run in process. */

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-options-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const run = runMain;

/** Nothing listens on port 1: a store opened there fails, naming PostgreSQL. */
const NOWHERE = 'postgres://larder@127.0.0.1:1/nowhere';

describe('flags beat the environment', () => {
  test('an explicit --db wins over DATABASE_URL in the environment', async () => {
    const db = join(dir, 'flag-db.db');
    const migrated = await run(['migrate', '--db', db], { DATABASE_URL: NOWHERE });
    assert.equal(migrated.stderr, '');
    // A new file is said to be new: a mistyped --db must not read as a database found up to date.
    assert.equal(migrated.stdout, `Created a new, empty SQLite database at ${db}.\n`);
    assert.equal(migrated.code, 0);
    const again = await run(['migrate', '--db', db], { DATABASE_URL: NOWHERE });
    assert.equal(again.stdout, `SQLite database ${db} is up to date.\n`);
    const listed = await run(['locations', 'list', '--db', db], { DATABASE_URL: NOWHERE });
    assert.equal(listed.stderr, '');
    assert.equal(listed.code, 0);
  });

  test('an explicit --database-url wins over LARDER_DB in the environment', async () => {
    const db = join(dir, 'env-db.db');
    const listed = await run(
      ['clients', 'create', '--name', 'x', '--all-locations', '--database-url', NOWHERE],
      {
        LARDER_DB: db,
      },
    );
    assert.equal(listed.code, 1);
    assert.match(listed.stderr, /PostgreSQL at larder@127\.0\.0\.1:1\/nowhere/);
    assert.equal(existsSync(db), false);
  });

  test('DATABASE_URL still wins over LARDER_DB when both come from the environment', async () => {
    const db = join(dir, 'both-env.db');
    const listed = await run(['clients', 'create', '--name', 'x', '--all-locations'], {
      LARDER_DB: db,
      DATABASE_URL: NOWHERE,
    });
    assert.equal(listed.code, 1);
    assert.match(listed.stderr, /PostgreSQL at larder@127\.0\.0\.1:1\/nowhere/);
  });

  test('--db and --database-url together are a usage error', async () => {
    const both = await run(['locations', 'list', '--db', join(dir, 'x.db'), '--database-url', NOWHERE]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /Give --db or --database-url, not both\./);
  });
});

/** The config `larder serve` parses from these flags and this environment. */
const serveConfig = (argv: string[], env: Record<string, string>) => {
  const args = parseCommandArgs(serveCommand, ['--db', join(dir, 'serve.db'), ...argv], {
    ...captureIo(),
    env,
  });
  assert.notEqual(args, 'help');
  return parseServeConfig(args as Exclude<typeof args, 'help'>);
};

test("--sqlite-cache-mb sizes each SQLite connection's page cache: 64 MiB unless the flag or its variable says, within bounds", async () => {
  assert.equal(serveConfig([], {}).store.sqliteCacheMb, 64);
  assert.equal(serveConfig([], { LARDER_SQLITE_CACHE_MB: '256' }).store.sqliteCacheMb, 256);
  assert.equal(
    serveConfig(['--sqlite-cache-mb', '128'], { LARDER_SQLITE_CACHE_MB: '256' }).store.sqliteCacheMb,
    128,
  );
  for (const bad of ['0', '65537', '1.5', 'lots'])
    assert.throws(
      () => serveConfig(['--sqlite-cache-mb', bad], {}),
      (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, /--sqlite-cache-mb/);
        return true;
      },
    );
});

describe('on/off environment variables', () => {
  test('take 1/0, true/false, yes/no and on/off in any case; empty is unset', () => {
    for (const on of ['1', 'true', 'YES', 'On'])
      assert.equal(serveConfig([], { LARDER_NO_DEMO: on }).demo, false);
    for (const off of ['0', 'False', 'no', 'OFF', ''])
      assert.equal(serveConfig([], { LARDER_NO_DEMO: off }).demo, true);
  });

  test('any other value is a usage error naming the variable, never taken as off', async () => {
    const run = await runMain(['serve', '--db', join(dir, 'never.db'), '--port', '0'], {
      LARDER_NO_DEMO: 'maybe',
    });
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /^larder serve: LARDER_NO_DEMO \(--no-demo\) must be 1, true, yes or on \(or 0, false, no, off\), not maybe\./,
    );
    assert.equal(existsSync(join(dir, 'never.db')), false);
  });

  test('the flag itself needs no value and wins over its variable', () => {
    assert.equal(serveConfig(['--no-demo'], { LARDER_NO_DEMO: 'off' }).demo, false);
  });
});

describe('a bad value from the environment is named by its variable and its flag', () => {
  test('serve names the variable first, the flag after; a bad flag alone is named as typed', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PORT: 'abc' }, /^PORT \(--port\) must be a whole number from 0 to 65535, not abc\.$/],
      [{ LARDER_LOG_LEVEL: 'loud' }, /^LARDER_LOG_LEVEL \(--log-level\) must be one of /],
      [{ LARDER_PUBLIC_URL: 'nope' }, /^LARDER_PUBLIC_URL \(--public-url\) must be an absolute/],
      [{ LARDER_TRUST_PROXY: 'x/99' }, /^LARDER_TRUST_PROXY \(--trust-proxy\) takes a hop count/],
      [{ LARDER_CORS: 'example.com' }, /^LARDER_CORS \(--cors\) takes origins/],
      [{ LARDER_RATE_LIMIT: 'lots' }, /^LARDER_RATE_LIMIT \(--rate-limit\) must be platform/],
      [{ LARDER_TLS_CERT: 'cert.pem' }, /^LARDER_TLS_CERT \(--tls-cert\) needs --tls-key too/],
      [{ LARDER_ADMIN_TOKEN: 'short' }, /^LARDER_ADMIN_TOKEN \(--admin-token\) must be at least/],
      [
        { LARDER_FAULTS: join(dir, 'absent.json') },
        /^LARDER_FAULTS \(--faults\) .*absent\.json: cannot read it/,
      ],
    ];
    for (const [env, message] of cases) assert.throws(() => serveConfig([], env), { message });
    assert.throws(() => serveConfig(['--port', 'abc'], { PORT: '1' }), {
      message: /^--port must be a whole number/,
    });
  });

  test('other commands too: keys rotate, pull', async () => {
    const keys = await runMain(['keys', 'rotate', '--db', join(dir, 'keys.db')], { LARDER_TOKEN_TTL: 'abc' });
    assert.equal(keys.code, 2);
    assert.match(keys.stderr, /^larder keys: LARDER_TOKEN_TTL \(--token-ttl\) must be a whole number/);
    const pull = await runMain(['pull', '--client-id', 'c', '--client-secret', 's', '--location', 'l'], {
      LARDER_PULL_FROM: 'ftp://example.com',
    });
    assert.equal(pull.code, 2);
    assert.match(pull.stderr, /^larder pull: LARDER_PULL_FROM \(--from\) must be an http\(s\) URL, not ftp:/);
  });

  test('a --from URL holding credentials is refused without echoing them, before any store is opened', async () => {
    for (const from of ['http://ops:hunter2@127.0.0.1:9', 'ftp://ops:hunter2@example.com']) {
      const pull = await runMain([
        'pull',
        ...['--from', from, '--client-id', 'c', '--client-secret', 's', '--location', 'l'],
        ...['--db', join(dir, 'credentials.db')],
      ]);
      assert.equal(pull.code, 2, from);
      assert.match(
        pull.stderr,
        /^larder pull: --from must (not hold credentials|be an http\(s\) URL, not ftp:\/\/\*\*\*@)/,
      );
      assert.ok(!pull.stderr.includes('hunter2'), pull.stderr);
    }
    assert.equal(existsSync(join(dir, 'credentials.db')), false);
  });

  test('a --public-url that cannot be an issuer is refused: credentials (never echoed), a query, a fragment, spaces', () => {
    // Each would be served in discovery and signed into every token as the issuer (RFC 8414 §2: no query or
    // fragment), and a password with them.
    const cases: [string, RegExp][] = [
      [
        'https://ops:hunter2@larder.example.com',
        /^--public-url must not hold credentials \(user:password@\)\.$/,
      ],
      ['https://larder.example.com/?tenant=1', /^--public-url must have no query \(\?…\) or fragment \(#…\)/],
      ['https://larder.example.com#top', /^--public-url must have no query \(\?…\) or fragment \(#…\)/],
      [' https://larder.example.com', /^--public-url must not start or end with spaces\.$/],
    ];
    for (const [url, message] of cases)
      assert.throws(() => serveConfig(['--public-url', url], {}), { message });
    assert.throws(() => serveConfig([], { LARDER_PUBLIC_URL: 'https://ops:hunter2@larder.example.com' }), {
      message: /^LARDER_PUBLIC_URL \(--public-url\) must not hold credentials/,
    });
    assert.equal(
      serveConfig(['--public-url', 'https://larder.example.com/larder/'], {}).publicUrl,
      'https://larder.example.com/larder',
    );
  });

  test('a missing required option names the variable that can give it too', async () => {
    const pull = await runMain(['pull', '--client-id', 'c', '--client-secret', 's', '--location', 'l']);
    assert.equal(pull.code, 2);
    assert.match(pull.stderr, /^larder pull: --from \(or LARDER_PULL_FROM\) is required\./);
    const imported = await runMain([
      'import',
      '--db',
      join(dir, 'required.db'),
      '--purchase-orders',
      'orders.ndjson',
    ]);
    assert.equal(imported.code, 2);
    assert.match(imported.stderr, /--location is required\./);
  });
});

describe('a negative number after a flag that takes a number', () => {
  test("is that flag's value, refused as --flag=-1 is (what the flag takes, named), not a dash argument to quote", () => {
    const message = '--port must be a whole number from 0 to 65535, not -1.';
    assert.throws(() => serveConfig(['--port=-1'], {}), { message });
    assert.throws(() => serveConfig(['--port', '-1'], {}), { message });
    assert.throws(() => serveConfig(['--workers', '-2'], {}), {
      message: '--workers must be a whole number from 1 to 64, not -2.',
    });
    assert.throws(() => serveConfig(['--shutdown-timeout', '-5'], {}), {
      message: /^--shutdown-timeout must be a whole number from 0 to \d+, not -5\.$/,
    });
  });

  /** The action word (if any) with which `command` takes `--name`. */
  const actionTaking = (command: (typeof COMMANDS)[number], name: string): string[] => {
    const actions = command.actions ?? { '': [] };
    const names = Object.keys(actions);
    const taker = names.find((action) => actions[action]!.includes(name)) ?? ('' in actions ? '' : names[0]);
    return taker === undefined || taker === '' ? [] : [taker];
  };

  test('for every flag of every command whose value is a number', () => {
    const numeric = COMMANDS.flatMap((command) =>
      Object.entries(command.options)
        .filter(([, spec]) => spec.type === 'string' && NUMBER_PLACEHOLDERS.has(spec.placeholder ?? ''))
        .map(([name]) => [command, name] as const),
    );
    // --port, --metrics-port, --workers, --token-ttl, seed's counts, --page-size, --limit, --status…
    assert.ok(numeric.length >= 20, String(numeric.length));
    for (const [command, name] of numeric) {
      const spaced = parseCommandArgs(
        command,
        [...actionTaking(command, name), `--${name}`, '-1'],
        captureIo(),
      );
      assert.notEqual(spaced, 'help');
      assert.equal(
        (spaced as Exclude<typeof spaced, 'help'>).strings[name],
        '-1',
        `${command.name} --${name}`,
      );
    }
  });

  test('other commands say what the flag takes too', async () => {
    const seed = await runMain(['seed', '--db', join(dir, 'never-seeded.db'), '--days', '-3']);
    assert.equal(seed.code, 2);
    assert.match(seed.stderr, /^larder seed: --days must be a whole number from 1 to 7320, not -3\.\n/);
    const keys = await runMain(['keys', 'rotate', '--db', join(dir, 'keys.db'), '--token-ttl', '-60']);
    assert.equal(keys.code, 2);
    assert.match(
      keys.stderr,
      /^larder keys: --token-ttl must be a whole number from \d+ to \d+, not -60\.\n/,
    );
  });

  test('a flag whose value is no number still refuses a dash word, rather than taking it as a file name', () => {
    assert.throws(() => parseCommandArgs(serveCommand, ['--db', '-1'], captureIo()), UsageError);
  });

  test('larder serve --port -1 (the built CLI) names --port and what it takes, exit 2', async () => {
    const run = await larder(['serve', '--db', join(dir, 'never-served.db'), '--port', '-1']);
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      'larder serve: --port must be a whole number from 0 to 65535, not -1.\nRun `larder serve --help` for usage.\n',
    );
    assert.equal(existsSync(join(dir, 'never-served.db')), false);
  });
});

describe('an action given an option only another action takes', () => {
  test('is a usage error naming the option and the actions that take it', async () => {
    const cases: [string[], string][] = [
      [
        ['keys', 'list', '--token-ttl', 'abc'],
        'larder keys list does not take --token-ttl (only larder keys rotate).',
      ],
      [['keys', 'retire', 'kid', '--token-ttl', '60'], 'larder keys retire does not take --token-ttl'],
      [
        ['clock', 'advance', '1d', '--frozen'],
        'larder clock advance does not take --frozen (only larder clock set).',
      ],
      [['clock', '--frozen'], 'larder clock does not take --frozen (only larder clock set).'],
      [
        ['requests', 'clear', '--client', 'c'],
        'larder requests clear does not take --client (only larder requests).',
      ],
      [
        ['clients', 'list', '--name', 'x'],
        'larder clients list does not take --name (only larder clients create, larder clients rename).',
      ],
      [
        ['clients', 'revoke', 'id', '--scopes', 'retail:read'],
        'larder clients revoke does not take --scopes',
      ],
    ];
    for (const [argv, message] of cases) {
      const store = ['keys', 'clients'].includes(argv[0] ?? '') ? ['--db', join(dir, 'actions.db')] : [];
      const run = await runMain([...argv, ...store]);
      assert.equal(run.code, 2, argv.join(' '));
      assert.ok(run.stderr.includes(message), `${argv.join(' ')}: ${run.stderr}`);
    }
    assert.equal(existsSync(join(dir, 'actions.db')), false);
  });

  test('an option every action takes, or one set in the environment, is no mistake', async () => {
    const db = join(dir, 'actions-ok.db');
    assert.equal((await runMain(['keys', 'rotate', '--db', db, '--token-ttl', '60'])).code, 0);
    const listed = await runMain(['keys', 'list', '--db', db], { LARDER_TOKEN_TTL: '60' });
    assert.equal(listed.stderr, '');
    assert.equal(listed.code, 0);
    assert.equal((await runMain(['clients', 'list', '--db', db, '--json'])).stdout, '[]\n');
  });
});

describe('a word too many', () => {
  test('is named itself, not the action before it', async () => {
    const db = join(dir, 'words.db');
    const cases: [string[], string][] = [
      [['requests', 'clear', 'extra'], "Unexpected argument 'extra'"],
      [['requests', 'purge'], "Unexpected argument 'purge'"],
      [['keys', 'list', 'extra', '--db', db], "Unexpected argument 'extra'"],
      [['keys', 'retire', 'kid', 'extra', '--db', db], "Unexpected argument 'extra'"],
      [['keys', 'retire', '--db', db], 'keys retire needs the KID'],
      [['keys', 'turn', '--db', db], "Unknown keys action 'turn'"],
      [['locations', 'list', 'extra', '--db', db], "Unexpected argument 'extra'"],
      [['locations', 'show', '--db', db], "Unknown locations action 'show'"],
    ];
    for (const [argv, message] of cases) {
      const run = await runMain(argv);
      assert.equal(run.code, 2, argv.join(' '));
      assert.ok(run.stderr.includes(message), `${argv.join(' ')}: ${run.stderr}`);
    }
  });
});

describe('a key id beginning with -', () => {
  test('is told to go after --, not called an unknown option; a genuine unknown option is still one', async () => {
    const db = join(dir, 'dash-kid.db');
    // Kids are 43 base64url characters; one in 64 begins with '-', and some of those with '--' or '-<digit>'.
    for (const kid of [`-jA${'x'.repeat(40)}`, `--${'Q'.repeat(41)}`, `-3_${'b'.repeat(40)}`]) {
      const run = await runMain(['keys', 'retire', kid, '--db', db]);
      assert.equal(run.code, 2, kid);
      assert.ok(
        run.stderr.includes(
          `'${kid}' looks like a key id beginning with '-': put it after --, as in: larder keys retire -- ${kid}`,
        ),
        run.stderr,
      );
    }
    for (const option of ['-x', `-jA${'x'.repeat(20)}`, '--kid']) {
      const run = await runMain(['keys', 'retire', option, '--db', db]);
      assert.equal(run.code, 2, option);
      assert.ok(run.stderr.includes('Unknown option'), run.stderr);
      assert.ok(!run.stderr.includes('looks like a key id'), run.stderr);
    }
    assert.equal(existsSync(db), false);
  });
});

describe('a mistyped or missing action', () => {
  test('lists the actions and names the one most likely meant, before any server or database is asked', async () => {
    const db = join(dir, 'mistyped-action.db');
    const cases: [string[], string][] = [
      [['clock', 'sho'], "Unknown clock action 'sho': use show, set, advance or reset. Did you mean show?"],
      [
        ['faults', 'ad'],
        "Unknown faults action 'ad': use show, set, add, remove or clear. Did you mean add?",
      ],
      [
        ['keys', 'lst', '--db', db],
        "Unknown keys action 'lst': use list, rotate or retire. Did you mean list?",
      ],
      [
        ['clients', 'creat', '--db', db],
        "Unknown clients action 'creat': use create, list, update, rename, rotate-secret, revoke, restore or delete. Did you mean create?",
      ],
      [
        ['clients', '--db', db],
        'larder clients: An action is required: create, list, update, rename, rotate-secret, revoke, restore or delete.',
      ],
      [['keys', '--db', db], 'larder keys: An action is required: list, rotate or retire.'],
    ];
    for (const [argv, message] of cases) {
      const run = await runMain(argv);
      assert.equal(run.code, 2, argv.join(' '));
      assert.ok(run.stderr.includes(message), `${argv.join(' ')}: ${run.stderr}`);
    }
    assert.equal(existsSync(db), false);
  });
});

test('--help describes --since by the rule its refusal gives, and pull --help shows --page-size in its usage', async () => {
  // `2025-06-01T09:00` is ISO 8601, and refused: the help must not promise it. A day alone is taken by both.
  for (const command of ['pull', 'requests']) {
    const help = (await runMain([command, '--help'])).stdout;
    const since = /^ {2}--since .*$/m.exec(help)?.[0] ?? '';
    assert.match(since, /RFC 3339/, `larder ${command} --help: ${since}`);
    assert.match(since, /day \(YYYY-MM-DD/, `larder ${command} --help: ${since}`);
    assert.doesNotMatch(since, /ISO/, `larder ${command} --help: ${since}`);
  }
  assert.match((await runMain(['pull', '--help'])).stdout, /^Usage: larder pull .*\[--page-size 500\]$/m);
});

describe('larder export', () => {
  const seeded = async () => {
    const db = join(dir, 'seeded.db');
    if (!existsSync(db))
      assert.equal((await runMain(['seed', '--db', db, '--locations', '1', '--days', '60'])).code, 0);
    const [location] = JSON.parse((await runMain(['locations', 'list', '--db', db, '--json'])).stdout) as {
      id: string;
    }[];
    return { db, location: location!.id };
  };
  const quoted = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const exportArgs = async (...targets: string[]) => {
    const { db, location } = await seeded();
    return ['export', '--db', db, '--location', location, ...targets];
  };

  test('Ctrl-C stops it with exit code 130, leaving neither a file nor a temporary one', async () => {
    const out = await mkdtemp(join(dir, 'interrupted-'));
    const argv = await exportArgs(
      '--purchase-orders',
      join(out, 'po.ndjson'),
      '--inventory-history',
      join(out, 'ih.ndjson'),
    );
    const pending = runMain(argv);
    process.emit('SIGINT');
    const run = await pending;
    assert.equal(run.code, 130);
    assert.equal(run.stderr, 'larder export: interrupted; nothing was written.\n');
    assert.deepEqual(await readdir(out), []);
    assert.equal(process.listenerCount('SIGINT'), 0);
  });

  /** The real CLI exporting to `targets`, killed when the test ends (a run that hangs fails by the test's timeout). */
  const spawnExport = (t: TestContext, ...targets: string[]) => spawnExportTo(t, 'ignore', ...targets);

  /** spawnExport with its standard output on `stdout`: a descriptor, closed here once the child has it, or a pipe. */
  const spawnExportTo = async (t: TestContext, stdout: number | 'ignore' | 'pipe', ...targets: string[]) => {
    const child = spawn(process.execPath, [BIN, ...(await exportArgs(...targets))], {
      stdio: ['ignore', stdout, 'pipe'],
    });
    if (typeof stdout === 'number') closeSync(stdout);
    t.after(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const closed = once(child, 'close') as Promise<[number | null]>;
    return { child, closed, stderr: () => stderr };
  };

  /** Resolves on the first chunk `stream` reads of the export's; fails if the export ends before writing one. */
  const firstChunk = (run: Awaited<ReturnType<typeof spawnExport>>, stream: Readable) =>
    Promise.race([
      once(stream, 'data'),
      run.closed.then(() => assert.fail(`export ended before writing: ${run.stderr()}`)),
    ]);

  /** Resolves once the run's standard error holds `text`. */
  const saying = (run: Awaited<ReturnType<typeof spawnExport>>, text: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!run.stderr().includes(text)) return;
        run.child.stderr?.off('data', check);
        resolve();
      };
      run.child.stderr?.on('data', check);
      check();
    });

  /** A FIFO in a directory of its own, and a reader of it opened without waiting for the writer, which finds it. */
  const fifoWithReader = async (t: TestContext, name: string) => {
    const out = await mkdtemp(join(dir, 'fifo-'));
    const fifo = join(out, name);
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const reader = new Socket({
      fd: openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK),
      writable: false,
    });
    t.after(() => reader.destroy());
    return { out, fifo, reader };
  };

  /**
   * Purchase orders to one FIFO, read here to their end, and inventory history to another that nobody opens: once
   * the first has ended, the export is on its way to (or waiting in) opening the second.
   */
  const exportToUnreadFifo = async (t: TestContext) => {
    const { out, fifo: po, reader } = await fifoWithReader(t, 'po.fifo');
    const ih = join(out, 'ih.fifo');
    assert.equal(spawnSync('mkfifo', [ih]).status, 0);
    const run = await spawnExport(t, '--purchase-orders', po, '--inventory-history', ih);
    const orders = await Promise.race([
      text(reader),
      run.closed.then(() => assert.fail(`export ended before its purchase orders did: ${run.stderr()}`)),
    ]);
    return { ...run, out, po, ih, orders };
  };

  for (const [signal, code, said] of [
    ['SIGINT', 130, 'interrupted'],
    ['SIGTERM', 143, 'stopped (SIGTERM)'],
  ] as const)
    test(`${signal} ends an export waiting on a FIFO nobody reads at once, exit code ${code}`, {
      timeout: 60_000,
    }, async (t) => {
      const run = await exportToUnreadFifo(t);
      assert.ok(run.orders.length > 0);
      run.child.kill(signal);
      const [exitCode] = await run.closed;
      assert.equal(exitCode, code, run.stderr());
      // The purchase orders reached their FIFO as the export went: they stay sent, and the message says so.
      const orders = run.orders.split('\n').length - 1;
      assert.equal(
        run.stderr(),
        `larder export: ${said}. What went to a device, FIFO or standard output stays sent:\n` +
          `  --purchase-orders ${run.po}: ${orders} purchase orders sent\n` +
          `  --inventory-history ${run.ih}: nothing written\n`,
      );
      assert.deepEqual((await readdir(run.out)).sort(), ['ih.fifo', 'po.fifo']);
      assert.ok((await lstat(run.ih)).isFIFO());
    });

  test('Ctrl-C ends an export whose FIFO reader stopped reading at once, exit code 130', {
    timeout: 60_000,
  }, async (t) => {
    const { fifo, reader } = await fifoWithReader(t, 'ih.fifo');
    const run = await spawnExport(t, '--inventory-history', fifo);
    // One chunk read, then no more: the export's writes fill the pipe and wait for room that never comes.
    await firstChunk(run, reader);
    reader.pause();
    run.child.kill('SIGINT');
    const [code] = await run.closed;
    assert.equal(code, 130, run.stderr());
    // Its first batch was still going out: some of it reached the FIFO, ending mid-line.
    assert.equal(
      run.stderr(),
      'larder export: interrupted. What went to a device, FIFO or standard output stays sent:\n' +
        `  --inventory-history ${fifo}: part of the inventory entries sent (the last line may be cut short)\n`,
    );
  });

  test('a file that cannot be written is named with its flag and the reason', async () => {
    const missing = await runMain(
      await exportArgs('--purchase-orders', join(dir, 'no-such-dir', 'po.ndjson')),
    );
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /^larder export: --purchase-orders .*no-such-dir\/po\.ndjson: cannot write it: its directory does not exist\./,
    );
    const isDir = await mkdtemp(join(dir, 'a-directory-'));
    const directory = await runMain(await exportArgs('--inventory-history', isDir));
    assert.equal(directory.code, 1);
    assert.match(
      directory.stderr,
      /^larder export: --inventory-history .*a-directory-\w+: cannot write it: it is a directory\./,
    );
    assert.deepEqual(await readdir(isDir), []);
    assert.deepEqual(
      (await readdir(dir)).filter((name) => name.endsWith('.tmp')),
      [],
    );
  });

  /** An export whose standard output is read here until its first chunk, then closed: `larder export … | head`. */
  const exportToHead = async (t: TestContext, ...targets: string[]) => {
    const run = await spawnExportTo(t, 'pipe', ...targets);
    run.child.stdout?.once('data', () => run.child.stdout?.destroy());
    const [code] = await run.closed;
    return { code, stderr: run.stderr() };
  };

  test('standard output closed early (| head) ends quietly, exit 0, when every target is a stream', async (t) => {
    const { code, stderr } = await exportToHead(
      t,
      '--inventory-history',
      '-',
      '--purchase-orders',
      '/dev/null',
    );
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });

  test('a reader gone early (| head, a FIFO) says which file it left unwritten, exit 1, no temporary file left', {
    timeout: 60_000,
  }, async (t) => {
    // The file's kind written before the stream's (its temporary file then removed) or after it (never reached).
    for (const [stream, file] of [
      ['--inventory-history', '--purchase-orders'],
      ['--purchase-orders', '--inventory-history'],
    ] as const) {
      const out = await mkdtemp(join(dir, 'piped-'));
      const target = join(out, 'records.ndjson');
      const { code, stderr } = await exportToHead(t, stream, '-', file, target);
      assert.equal(
        stderr,
        `larder export: ${stream} -: its reader stopped early, so the export stopped and ${file} ${target} was not written (a file appears only once the whole export is done).\n`,
      );
      assert.equal(code, 1);
      assert.deepEqual(await readdir(out), []);
    }
    const { out, fifo, reader } = await fifoWithReader(t, 'ih.fifo');
    const target = join(out, 'po.ndjson');
    const run = await spawnExport(t, '--inventory-history', fifo, '--purchase-orders', target);
    reader.once('data', () => reader.destroy());
    const [code] = await run.closed;
    assert.equal(
      run.stderr(),
      `larder export: --inventory-history ${fifo}: its reader stopped early, so the export stopped and --purchase-orders ${target} was not written (a file appears only once the whole export is done).\n`,
    );
    assert.equal(code, 1);
    assert.deepEqual(await readdir(out), ['ih.fifo']);
  });

  test('Ctrl-C ends an export at once when its standard output (a pipe) stopped being read, exit 130 even as the reader then goes', {
    timeout: 60_000,
  }, async (t) => {
    // A pipe as the shell makes for `larder export … - | slow-reader`: a FIFO's two ends.
    const { fifo, reader } = await fifoWithReader(t, 'stdout.fifo');
    const run = await spawnExportTo(t, openSync(fifo, 'w'), '--inventory-history', '-');
    await firstChunk(run, reader);
    reader.pause();
    run.child.kill('SIGINT');
    const said = 'larder export: interrupted. What went to a device, FIFO or standard output stays sent:\n';
    await Promise.race([run.closed, saying(run, said)]);
    // The reader giving up now (EPIPE, were the export still writing) changes nothing: it was interrupted.
    reader.destroy();
    const [code] = await run.closed;
    assert.equal(code, 130, run.stderr());
    assert.equal(
      run.stderr(),
      `${said}  --inventory-history -: part of the inventory entries sent (the last line may be cut short)\n`,
    );
  });

  test('SIGTERM ends an export at once when its standard output (a socket) stopped being read, exit 143', {
    timeout: 60_000,
  }, async (t) => {
    const run = await spawnExportTo(t, 'pipe', '--purchase-orders', '-');
    const stdout = run.child.stdout!;
    await firstChunk(run, stdout);
    stdout.pause();
    run.child.kill('SIGTERM');
    const [code] = await run.closed;
    assert.equal(code, 143, run.stderr());
    assert.match(run.stderr(), /^larder export: stopped \(SIGTERM\)\. What went to a device/);
  });

  /** The real CLI with its standard output on `stdout`, a descriptor it takes over. */
  const exportWithStdout = async (stdout: number, ...targets: string[]) => {
    const child = spawn(process.execPath, [BIN, ...(await exportArgs(...targets))], {
      stdio: ['ignore', stdout, 'pipe'],
    });
    closeSync(stdout);
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = (await once(child, 'close')) as [number];
    return { code, stderr };
  };

  test('a full disk behind standard output is one line and exit 1, no stack trace', async () => {
    const { code, stderr } = await exportWithStdout(openSync('/dev/full', 'w'), '--inventory-history', '-');
    assert.equal(stderr, 'larder: cannot write to standard output: ENOSPC: no space left on device, write\n');
    assert.equal(code, 1);
  });

  test('a descriptor named as a file (/dev/stdout) is written through, after what it already holds', async () => {
    // /dev/stdout is a link to /proc/self/fd/1; one made here stands for it, so /dev itself is never at stake.
    const out = await mkdtemp(join(dir, 'descriptor-'));
    const stdout = join(out, 'stdout');
    await symlink('/proc/self/fd/1', stdout);
    const file = join(out, 'appended.ndjson');
    await writeFile(file, 'earlier output\n');
    const { code, stderr } = await exportWithStdout(openSync(file, 'a'), '--purchase-orders', stdout);
    assert.equal(code, 0, stderr);
    const orders = Number(/Exported (\d+) purchase orders/.exec(stderr)?.[1]);
    const lines = (await readFile(file, 'utf8')).split('\n');
    assert.equal(lines[0], 'earlier output');
    assert.equal(lines.length, orders + 2);
    assert.ok((await lstat(stdout)).isSymbolicLink());
    assert.deepEqual((await readdir(out)).sort(), ['appended.ndjson', 'stdout']);
  });

  test('a kind with no records makes an empty file, which export says import refuses', async () => {
    const out = await mkdtemp(join(dir, 'empty-kind-'));
    const db = join(out, 'orders-only.db');
    const orders = join(out, 'in.ndjson');
    await writeFile(orders, JSON.stringify(purchaseOrderFixture(1, { modifiedAt: Date.UTC(2025, 0, 1) })));
    const imported = await runMain([
      'import',
      '--db',
      db,
      '--location',
      'orders-only',
      '--purchase-orders',
      orders,
    ]);
    assert.equal(imported.code, 0, imported.stderr);
    const [po, ih] = [join(out, 'po.ndjson'), join(out, 'ih.ndjson')];
    const exportOrders = ['export', '--db', db, '--location', 'orders-only', '--purchase-orders', po];
    const exported = await runMain([...exportOrders, '--inventory-history', ih]);
    assert.equal(exported.code, 0);
    assert.equal(
      exported.stderr,
      'Exported 1 purchase orders, 0 inventory entries from orders-only.\n' +
        `--inventory-history ${ih}: empty, as orders-only has no inventory entries. \`larder import\` refuses an ` +
        'empty file (there it is most likely a mistake): leave --inventory-history out when importing.\n',
    );
    assert.equal(await readFile(ih, 'utf8'), '');
    // As it says: refused with the empty file, imported without it.
    const copy = ['import', '--db', join(out, 'copy.db'), '--location', 'copy', '--purchase-orders', po];
    const refused = await runMain([...copy, '--inventory-history', ih]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /ih\.ndjson:0 \(file\): holds no records/);
    assert.equal((await runMain(copy)).code, 0);
    // A kind not asked for is not counted: "0 inventory entries" would read as the location holding none.
    assert.equal((await runMain(exportOrders)).stderr, 'Exported 1 purchase orders from orders-only.\n');
  });

  /** `larder export --purchase-orders PO --inventory-history IH`, on a database that is never reached. */
  const exportBoth = (po: string, ih: string) =>
    runMain([
      'export',
      '--db',
      join(dir, 'export.db'),
      '--location',
      'loc',
      '--purchase-orders',
      po,
      '--inventory-history',
      ih,
    ]);

  test('two flags reaching one file (as typed, ./a and a, a symlink, a hard link, a name still to be made) are a usage error naming both', async () => {
    const out = await mkdtemp(join(dir, 'same-file-'));
    const file = join(out, 'both.ndjson');
    await writeFile(file, 'kept\n');
    await symlink(file, join(out, 'link.ndjson'));
    await link(file, join(out, 'hard.ndjson'));
    await symlink('later.ndjson', join(out, 'dangling.ndjson'));
    const typed = relative(process.cwd(), file);
    const real = await realpath(file);
    const cases: [po: string, ih: string, real: string][] = [
      [file, `${out}/./both.ndjson`, real],
      [`./${typed}`, typed, real],
      [join(out, 'link.ndjson'), file, real],
      [file, join(out, 'hard.ndjson'), real],
      [join(out, 'dangling.ndjson'), join(out, 'later.ndjson'), join(await realpath(out), 'later.ndjson')],
    ];
    for (const [po, ih, real] of cases) {
      const run = await exportBoth(po, ih);
      assert.equal(run.code, 2, `${po} ${ih}: ${run.stderr}`);
      assert.match(
        run.stderr,
        new RegExp(
          `^larder export: --purchase-orders ${quoted(po)} and --inventory-history ${quoted(ih)} both write to the same file \\(${quoted(real)}\\): the kind written second would replace the first\\. Give each kind its own file\\.\n`,
        ),
      );
    }
    assert.equal(await readFile(file, 'utf8'), 'kept\n');
    assert.deepEqual((await readdir(out)).sort(), [
      'both.ndjson',
      'dangling.ndjson',
      'hard.ndjson',
      'link.ndjson',
    ]);
  });

  test('two flags reaching one stream (standard output, a FIFO) are a usage error; /dev/null may take both kinds', async () => {
    const out = await mkdtemp(join(dir, 'same-stream-'));
    // /dev/stdout is a link to /proc/self/fd/1; one made here stands for it.
    await symlink('/proc/self/fd/1', join(out, 'stdout'));
    const fifo = join(out, 'records.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    await symlink(fifo, join(out, 'fifo-link'));
    const stream =
      /both write to (?:standard output|the same FIFO \(.*\)): `larder import` could not read the kinds back from one stream \(it takes one kind per file\)\. Only \/dev\/null takes several kinds; to send both down one stream, run export once for each\./;
    // This process's own standard output is the one `-` names; were it /dev/null, both kinds could go there.
    const stdout = fstatSync(1);
    const discarded = stdout.isCharacterDevice() && stdout.rdev === statSync('/dev/null').rdev;
    const standard: [string, string][] = discarded
      ? []
      : [
          ['-', '-'],
          ['-', join(out, 'stdout')],
        ];
    for (const [po, ih] of [...standard, [fifo, join(out, 'fifo-link')] as [string, string]]) {
      const run = await exportBoth(po, ih);
      assert.equal(run.code, 2, `${po} ${ih}: ${run.stderr}`);
      assert.match(
        run.stderr,
        new RegExp(`^larder export: --purchase-orders ${quoted(po)} and --inventory-history ${quoted(ih)} `),
      );
      assert.match(run.stderr, stream);
    }
    if (!discarded) assert.match((await exportBoth('-', '-')).stderr, /both write to standard output:/);
    assert.match(
      (await exportBoth(fifo, join(out, 'fifo-link'))).stderr,
      new RegExp(`both write to the same FIFO \\(${quoted(await realpath(fifo))}\\):`),
    );
    // A character device as /dev/null is (root may make one here, so /dev itself is never at stake), once by a link.
    const device = join(out, 'null');
    if (spawnSync('mknod', [device, 'c', '1', '3']).status !== 0) return;
    await symlink(device, join(out, 'null-link'));
    const run = await runMain(
      await exportArgs('--purchase-orders', device, '--inventory-history', join(out, 'null-link')),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /^Exported \d+ purchase orders, \d+ inventory entries from /);
    assert.ok((await lstat(device)).isCharacterDevice());
  });
});

test('migrate against an unreachable PostgreSQL names it (never the password) and the cause', async () => {
  const run = await runMain(['migrate', '--database-url', 'postgres://larder:s3cret@127.0.0.1:1/nowhere']);
  assert.equal(run.code, 1);
  assert.match(
    run.stderr,
    /^larder migrate: Cannot migrate PostgreSQL at larder@127\.0\.0\.1:1\/nowhere: .*ECONNREFUSED 127\.0\.0\.1:1\.\n$/,
  );
  assert.ok(!run.stderr.includes('s3cret'));
});

describe('an interrupted import into a new SQLite file', () => {
  /** `larder import` reading purchase orders from a stdin left open, so it is surely mid-way when signalled. */
  const importInterrupted = async (db: string) => {
    // Watching before the child starts, so the file's creation cannot come between a look and the watch.
    const stopWatching = new AbortController();
    const changes = watch(dirname(db), { signal: stopWatching.signal })[Symbol.asyncIterator]();
    const child = spawn(process.execPath, [
      BIN,
      'import',
      '--db',
      db,
      '--location',
      'x',
      '--purchase-orders',
      '-',
    ]);
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdin.write('{"id": "not yet complete"');
    while (!existsSync(db)) await changes.next();
    stopWatching.abort();
    child.kill('SIGINT');
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, stderr };
  };

  test('removes the file it created, with exit code 130', async () => {
    const db = join(dir, 'interrupted-import.db');
    const run = await importInterrupted(db);
    assert.equal(run.code, 130);
    assert.match(run.stderr, /SIGINT: stopped; the new database .*interrupted-import\.db was removed\./);
    assert.deepEqual(
      (await readdir(dir)).filter((name) => name.startsWith('interrupted-import.db')),
      [],
    );
  });

  test('never removes a file that existed before', async () => {
    const db = join(dir, 'existing-import.db');
    assert.equal((await runMain(['migrate', '--db', db])).code, 0);
    await importInterrupted(db);
    assert.ok(existsSync(db));
  });
});

test("a SQLite file that is not Larder's is refused by every command, and left unchanged", async () => {
  const db = join(dir, 'foreign.db');
  const foreign = new Database(db);
  foreign.exec('CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES (1)');
  foreign.close();
  const before = await readFile(db);
  for (const argv of [
    ['check'],
    ['keys', 'list'],
    ['locations', 'list'],
    ['clients', 'create', '--name', 'n', '--all-locations'],
  ]) {
    const run = await runMain([...argv, '--db', db]);
    assert.equal(run.code, 1, argv.join(' '));
    assert.match(run.stderr, /foreign\.db is a SQLite database but not Larder's \(it holds notes\)/);
  }
  assert.deepEqual(await readFile(db), before);
  assert.deepEqual(
    (await readdir(dir)).filter((name) => name.startsWith('foreign.db')),
    ['foreign.db'],
  );
});
