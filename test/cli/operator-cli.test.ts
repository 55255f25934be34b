import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { COMMANDS } from '../../src/cli/main.js';
import { larder, runMain } from '../helpers/cli.js';
import { purchaseOrderFixture } from '../helpers/fixtures.js';
import { REPO } from '../helpers/repo.js';
import { adminQuery, freshSchemaName, postgresUnreachable, postgresUrl } from '../storage/backends.js';

/** The operator's CLI as a new user meets it, run in process through `main` with captured output. */

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-operator-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const run = (...argv: string[]) => runMain(argv);
/** In CI PostgreSQL must answer (backends.ts); elsewhere its one test here skips and says why. */
const pgUnreachable = await postgresUnreachable();

describe('errors a new user meets', () => {
  test('larder --version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
      version: string;
    };
    const result = await run('--version');
    assert.equal(result.code, 0);
    assert.equal(result.stdout, `larder ${version}\n`);
  });

  test('--version with a stray word is a usage error; -v and other near spellings are told --version', async () => {
    for (const argv of [
      ['--version', 'extra'],
      ['-V', 'extra', 'more'],
      ['version', 'extra'],
    ]) {
      const result = await run(...argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.equal(result.stdout, '', argv.join(' '));
      assert.equal(
        result.stderr,
        `larder: Unexpected argument: ${argv.slice(1).join(' ')} (${argv[0]} takes none).\nRun \`larder --help\` for usage.\n`,
      );
    }
    for (const [given, meant] of [
      ['-v', '--version'],
      ['--verison', '--version'],
      ['-version', '--version'],
      ['-H', '--help'],
      ['--hlep', '--help'],
    ] as const) {
      const result = await run(given);
      assert.equal(result.code, 2, given);
      assert.ok(
        result.stderr.startsWith(`larder: unknown option '${given}'. Did you mean 'larder ${meant}'?\n`),
        result.stderr,
      );
    }
    // Nothing near: said as an option all the same, with no guess.
    const far = await run('--frobnicate');
    assert.equal(far.code, 2);
    assert.ok(far.stderr.startsWith("larder: unknown option '--frobnicate'.\n"), far.stderr);
  });

  test("larder help COMMAND (or --help COMMAND) prints that command's help; an unknown one or a stray word is a usage error", async () => {
    const own = await run('serve', '--help');
    assert.equal(own.code, 0);
    for (const argv of [
      ['help', 'serve'],
      ['--help', 'serve'],
      ['-h', 'serve'],
    ]) {
      const result = await run(...argv);
      assert.equal(result.code, 0, argv.join(' '));
      assert.equal(result.stdout, own.stdout, argv.join(' '));
    }
    const unknown = await run('help', 'serv');
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stdout, '');
    assert.ok(
      unknown.stderr.startsWith("larder: unknown command 'serv'. Did you mean 'larder serve'?\n"),
      unknown.stderr,
    );
    const stray = await run('help', 'serve', 'extra');
    assert.equal(stray.code, 2);
    assert.equal(stray.stdout, '');
    assert.equal(
      stray.stderr,
      'larder: Unexpected argument: extra (help takes one command).\nRun `larder --help` for usage.\n',
    );
  });

  test('a SQLite path that cannot be opened is named, with the cause', async () => {
    const missingDir = await run('keys', 'rotate', '--db', join(dir, 'no-such-dir', 'x.db'));
    assert.equal(missingDir.code, 1);
    assert.match(
      missingDir.stderr,
      // Created 0600 by an explicit open first, so the cause is that open's.
      /Cannot open the SQLite database .*no-such-dir\/x\.db: .*(directory does not exist|no such file or directory)/,
    );
    const notADatabase = join(dir, 'notes.txt');
    await writeFile(notADatabase, 'hello, this is not SQLite'.repeat(100));
    const wrongFile = await run('locations', 'list', '--db', notADatabase);
    assert.match(
      wrongFile.stderr,
      /Cannot open the SQLite database .*notes\.txt: .*notes\.txt is not a SQLite database \(SQLITE_NOTADB: file is not a database\): if it was Larder's/,
    );
  });

  test('an unreachable PostgreSQL is named by user, host, port and database (never the password), with the cause', async () => {
    // A port nothing listens on: bound and closed again by this test.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const result = await run(
      'locations',
      'list',
      '--database-url',
      `postgres://ops:hunter2@127.0.0.1:${port}/larder`,
    );
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      new RegExp(`PostgreSQL at ops@127\\.0\\.0\\.1:${port}/larder: .*ECONNREFUSED`),
    );
    assert.ok(!result.stderr.includes('hunter2'));
  });

  test('a PostgreSQL that answers but refuses the login is not called unreachable', {
    skip: pgUnreachable,
  }, async () => {
    const url = new URL(postgresUrl);
    url.username = 'larder_no_such_role';
    url.password = '';
    const result = await run('locations', 'list', '--database-url', url.href);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /PostgreSQL is unavailable \(unreachable, refusing this login or database, .*\): role "larder_no_such_role" does not exist/,
    );
  });

  test('a --database-url that is no postgres:// URL is a usage error that does not repeat it', async () => {
    for (const url of ['host=127.0.0.1 password=S3cretPW', 'mysql://ops:S3cretPW@127.0.0.1/larder']) {
      const result = await run('locations', 'list', '--database-url', url);
      assert.equal(result.code, 2, url);
      assert.match(result.stderr, /--database-url must be a postgres:\/\/ or postgresql:\/\/ URL/);
      assert.ok(!result.stderr.includes('S3cretPW'), result.stderr);
    }
  });

  test('a stray positional argument is a usage error, not ignored', async () => {
    for (const argv of [
      ['check', 'loc-1', '--db', join(dir, 'stray.db')],
      ['serve', '8080'],
      ['import', 'po.json', '--location', 'a'],
    ]) {
      const result = await run(...argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.match(result.stderr, /Unexpected argument/);
    }
    assert.equal(existsSync(join(dir, 'stray.db')), false);
  });

  test('a mistyped command or option names what was most likely meant', async () => {
    for (const [argv, hint] of [
      [['server'], "unknown command 'server'. Did you mean 'larder serve'?"],
      [['client', 'list'], "Did you mean 'larder clients'?"],
      [['serve', '--database', 'x.db'], "Unknown option '--database'. Did you mean --database-url?"],
      [['serve', '--prot', '80'], 'Did you mean --port?'],
      [['serve', '--live'], 'Did you mean --no-live?'],
      [['clients', 'create', '--scope', 'retail:read'], 'Did you mean --scopes?'],
    ] as const) {
      const result = await run(...argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.ok(result.stderr.includes(hint), `${argv.join(' ')}: ${result.stderr}`);
    }
    // Nothing near: the plain message, no guess.
    const far = await run('export', '--out', 'x');
    assert.equal(far.code, 2);
    assert.match(far.stderr, /Unknown option '--out'\.\n/);
    assert.doesNotMatch(far.stderr, /Did you mean/);
    const unknown = await run('frobnicate');
    assert.doesNotMatch(unknown.stderr, /Did you mean/);
  });

  test('usage mistakes are named as the user typed them', async () => {
    const admin = ['--url', 'http://127.0.0.1:9', '--admin-token', 'x'.repeat(20)];
    const pull = [
      'pull',
      '--from',
      'http://127.0.0.1:9',
      '--client-id',
      'c',
      '--client-secret',
      's',
      '--location',
      'l',
      '--since',
    ];
    for (const [argv, message] of [
      [
        ['seed', '--end-date', '2025-02-30'],
        '--end-date must be a calendar date YYYY-MM-DD, not 2025-02-30.',
      ],
      [
        ['import', '--location', 'café', '--purchase-orders', 'x.json'],
        "--location must be 1 to 200 visible ASCII characters (no spaces), not . or .. alone: it travels in the Platform-Restaurant-External-ID header and in the admin API's paths, where a URL resolves those away.",
      ],
      // Imported, such a location could never be reached at /_larder/locations/{id}.
      [['import', '--location', '..', '--purchase-orders', 'x.json'], '--location must be 1 to 200'],
      [['import', '--location', '.', '--purchase-orders', 'x.json'], '--location must be 1 to 200'],
      [
        ['import', '--location', `#/${'x'.repeat(199)}`, '--purchase-orders', 'x.json'],
        '--location must be 1 to 200 visible ASCII characters',
      ],
      [[...pull, '2025-02-30'], '--since must be a day (YYYY-MM-DD) or a date-time (RFC 3339'],
      [[...pull, '2025-06-01 09:00:00Z'], 'not 2025-06-01 09:00:00Z.'],
      [['clock', 'advance', '-1d', ...admin], 'A negative value is not taken'],
      [
        ['faults', 'add', 'not json', ...admin],
        'neither a rule in JSON ({"effect": …}) nor a file that exists.',
      ],
    ] as const) {
      const result = await run(...argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.ok(result.stderr.includes(message), result.stderr);
    }
  });

  test('a wrong key-encryption key is the command’s own message, exit 1, no stack', async () => {
    const db = join(dir, 'sealed.db');
    const [right, wrong] = [join(dir, 'right.kek'), join(dir, 'wrong.kek')];
    await writeFile(right, 'the-right-key-encryption-key-0000000000000', { mode: 0o600 });
    await writeFile(wrong, 'the-wrong-key-encryption-key-0000000000000', { mode: 0o600 });
    assert.equal(
      (await run('clients', 'create', '--name', 'a', '--all-locations', '--db', db, '--key-file', right))
        .code,
      0,
    );
    const result = await run('clients', 'list', '--db', db, '--key-file', wrong);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^larder clients: The \w+ was encrypted with another key-encryption key/);
  });

  test('a command that only reads refuses a database file that does not exist, and creates none', async () => {
    const typo = join(dir, 'typo.db');
    for (const argv of [
      ['locations', 'list'],
      ['check'],
      ['clients', 'list'],
      ['keys', 'list'],
      ['export', '--location', 'a', '--purchase-orders', join(dir, 'out.ndjson')],
    ]) {
      const result = await run(...argv, '--db', typo);
      assert.equal(result.code, 1, argv.join(' '));
      assert.equal(
        result.stderr,
        `larder ${argv[0]}: No database at ${typo}: check --db (env LARDER_DB). Nothing was created.\n`,
      );
      assert.equal(existsSync(typo), false, argv.join(' '));
    }
    // A database that exists but holds no keys yet says so, rather than print nothing.
    const fresh = join(dir, 'no-keys.db');
    assert.equal((await run('clients', 'create', '--name', 'x', '--all-locations', '--db', fresh)).code, 0);
    const keys = await run('keys', 'list', '--db', fresh);
    assert.equal(keys.code, 0);
    assert.match(keys.stdout, /^No signing keys yet/);
  });

  test('check --location of an unknown location fails, and a failing command leaves no database file', async () => {
    const db = join(dir, 'check.db');
    const result = await run('check', '--location', 'nope', '--db', db);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /No database at /);
    assert.equal(existsSync(db), false);
    const existing = join(dir, 'check-existing.db');
    await run('clients', 'create', '--name', 'x', '--all-locations', '--db', existing);
    const unknown = await run('check', '--location', 'nope', '--db', existing);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /location nope does not exist/);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '[{"id": 1}]');
    const imported = await run('import', '--location', 'a', '--purchase-orders', bad, '--db', db);
    assert.equal(imported.code, 1);
    assert.equal(existsSync(db), false);
    const unknownClient = await run('clients', 'revoke', 'no-such-client', '--db', db);
    assert.equal(unknownClient.code, 1);
    assert.equal(existsSync(db), false);
  });

  test('--token-ttl names its bounds in serve --help', async () => {
    const help = await run('serve', '--help');
    assert.match(help.stdout, /--token-ttl SECONDS +Access token lifetime, 1 to 31536000 \(1 s to 1 year\)/);
  });

  test('the port is checked before any demo data is built', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const db = join(dir, 'port.db');
      // Spawned: serve logs (JSON) to the process's own stderr.
      const result = await larder(['serve', '--db', db, '--port', String(port)]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use`));
      assert.doesNotMatch(result.stdout + result.stderr, /demo data/);
      assert.equal(existsSync(db), false);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});

describe('larder import', () => {
  const db = () => join(dir, 'import.db');
  const importFile = async (name: string, text: string) => {
    const file = join(dir, name);
    await writeFile(file, text);
    return run('import', '--location', 'loc-i', '--purchase-orders', file, '--db', db());
  };
  const order = (n: number) => purchaseOrderFixture(n, { modifiedAt: Date.UTC(2025, 0, n) });

  test('an empty file, or an empty array, says so and imports nothing', async () => {
    for (const [name, text] of [
      ['empty.json', ''],
      ['blank.ndjson', '\n\n'],
      ['empty-array.json', '[]'],
    ] as const) {
      const result = await importFile(name, text);
      assert.equal(result.code, 1, name);
      assert.match(result.stderr, new RegExp(`${name}:0 \\(file\\): holds no records`));
    }
    assert.equal(existsSync(db()), false);
  });

  test('a directory or a file that cannot be opened is a problem at line 0, exit 1, and nothing is imported', async () => {
    const existing = join(dir, 'unreadable.db');
    const valid = join(dir, 'valid.ndjson');
    await writeFile(valid, JSON.stringify(order(1)));
    assert.equal(
      (await run('import', '--location', 'first', '--purchase-orders', valid, '--db', existing)).code,
      0,
    );
    const directory = await mkdtemp(join(dir, 'a-directory-'));
    const loop = join(dir, 'loop.ndjson');
    await symlink(loop, loop);
    for (const [path, problem] of [
      [directory, 'is a directory, not a file'],
      [loop, 'cannot be read (ELOOP: too many symbolic links encountered'],
    ] as const) {
      const result = await run(
        'import',
        '--location',
        'second',
        '--purchase-orders',
        valid,
        '--inventory-history',
        path,
        '--db',
        existing,
      );
      assert.equal(result.code, 1, path);
      assert.equal(result.stdout, '');
      assert.ok(result.stderr.startsWith(`${path}:0 (file): ${problem}`), result.stderr);
      assert.match(result.stderr, /1 problem\(s\); nothing was imported\.\n$/);
    }
    const listed = JSON.parse((await run('locations', 'list', '--db', existing, '--json')).stdout) as {
      id: string;
    }[];
    assert.deepEqual(
      listed.map((location) => location.id),
      ['first'],
    );
    // Into a new database: it is not left behind.
    const fresh = join(dir, 'never.db');
    const result = await run('import', '--location', 'x', '--purchase-orders', directory, '--db', fresh);
    assert.equal(result.code, 1);
    assert.equal(existsSync(fresh), false);
  });

  test('repeated ids say so, naming both lines, and nothing is imported', async () => {
    const lines = [order(1), order(2), order(1)].map((record) => JSON.stringify(record)).join('\n');
    const result = await importFile('repeats.ndjson', lines);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /repeats\.ndjson:3 id: repeats the id of the record at line 1 /);
    assert.match(result.stderr, /nothing was imported/);
  });

  test('in a pretty-printed JSON array, a problem names the line of its field, not of its record', async () => {
    const bad = { ...order(2), status: 'NOPE' };
    const text = JSON.stringify([order(1), bad], null, 2);
    const statusLine = text.split('\n').findIndex((line) => line.includes('"NOPE"')) + 1;
    const recordLine = text.split('\n').findIndex((line, i) => i > 1 && line === '  {') + 1;
    assert.ok(statusLine > recordLine + 1);
    const result = await importFile('pretty.json', text);
    assert.match(result.stderr, new RegExp(`pretty\\.json:${statusLine} status: must be one of`));
  });
});

describe('an unmigrated PostgreSQL schema', { skip: pgUnreachable ?? false }, () => {
  const schema = freshSchemaName();
  const url = new URL(postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  before(() => adminQuery(`CREATE SCHEMA ${schema}`));
  after(() => adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));

  const flagsOf = (name: string): string[] =>
    Object.keys(COMMANDS.find((command) => command.name === name)?.options ?? {});

  /**
   * What the refusal tells the user to run: each `larder CMD …` it quotes names only flags CMD takes, and any
   * flag it names outside one is the failed command's own.
   */
  const advice = (command: string, stderr: string): string[] => {
    assert.match(stderr, /schema is at version 0, this Larder needs version \d+/, stderr);
    const quoted = [...stderr.matchAll(/`larder (\w+)([^`]*)`/g)];
    for (const [, name, rest] of quoted)
      for (const [, flag] of rest!.matchAll(/--([a-z-]+)/g))
        assert.ok(flagsOf(name!).includes(flag!), `\`larder ${name}\` has no --${flag}: ${stderr}`);
    for (const [, flag] of stderr.replace(/`[^`]*`/g, '').matchAll(/--([a-z-]+)/g))
      assert.ok(flagsOf(command).includes(flag!), `larder ${command} has no --${flag}: ${stderr}`);
    return quoted.map(([text]) => text);
  };

  test('each command says what to run, naming no flag it lacks', async () => {
    const file = join(dir, 'unmigrated.ndjson');
    await writeFile(file, JSON.stringify(purchaseOrderFixture(1, { modifiedAt: Date.UTC(2025, 0, 1) })));
    for (const argv of [
      ['import', '--location', 'x', '--purchase-orders', file],
      ['export', '--location', 'x', '--purchase-orders', join(dir, 'unmigrated-out.ndjson')],
      ['seed', '--locations', '1', '--days', '1'],
      ['check'],
      ['locations', 'list'],
      ['clients', 'list'],
      ['keys', 'list'],
    ]) {
      const result = await run(...argv, '--database-url', url.href);
      assert.equal(result.code, 1, argv.join(' '));
      assert.deepEqual(advice(argv[0]!, result.stderr), ['`larder migrate --database-url …`']);
    }
    const served = await larder(['serve', '--database-url', url.href, '--port', '0', '--no-demo']);
    assert.equal(served.code, 1);
    assert.deepEqual(advice('serve', served.stderr), [
      '`larder migrate --database-url …`',
      '`larder serve --migrate …`',
    ]);
  });
});

describe('larder clients', () => {
  const db = () => join(dir, 'clients.db');
  const clients = (...argv: string[]) => run('clients', ...argv, '--db', db());
  let clientId = '';

  before(async () => {
    const seeded = await run('seed', '--locations', '1', '--days', '3', '--db', db());
    assert.equal(seeded.code, 0, seeded.stderr);
  });

  test('granting a location that does not exist warns, and grants anyway', async () => {
    const locations = JSON.parse((await run('locations', 'list', '--json', '--db', db())).stdout) as {
      id: string;
    }[];
    const created = await clients(
      'create',
      '--name',
      'Ops',
      '--locations',
      `${locations[0]?.id},loc-typo`,
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /no location loc-typo exists yet/);
    assert.doesNotMatch(created.stderr, new RegExp(`${locations[0]?.id}`));
    clientId = (JSON.parse(created.stdout) as { clientId: string }).clientId;
    const updated = await clients('update', clientId, '--locations', 'loc-other');
    assert.match(updated.stderr, /no location loc-other exists yet/);
  });

  test('update gives readable errors in the flags the user typed', async () => {
    const nothing = await clients('update', clientId);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /Give what to change: --locations ID,ID, --all-locations and\/or --scopes/);
    const both = await clients('update', clientId, '--locations', 'a', '--all-locations');
    assert.match(both.stderr, /--locations or --all-locations, not both/);
    const scope = await clients('update', clientId, '--scopes', 'retail:write');
    assert.equal(scope.code, 2);
    assert.match(scope.stderr, /--scopes has unknown scope retail:write/);
    const missing = await clients('update', 'no-such-id', '--all-locations');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No client with id no-such-id/);
  });

  test('rename, rotate-secret, revoke, restore and delete', async () => {
    const renamed = await clients('rename', clientId, '--name', 'Ops renamed', '--json');
    assert.equal((JSON.parse(renamed.stdout) as { name: string }).name, 'Ops renamed');
    const first = await clients('rotate-secret', clientId, '--json');
    const second = await clients('rotate-secret', clientId, '--json');
    const secretOf = (out: string) => (JSON.parse(out) as { clientSecret: string }).clientSecret;
    assert.notEqual(secretOf(first.stdout), secretOf(second.stdout));
    assert.match(secretOf(second.stdout), /^\S{40,}$/);
    const revoked = await clients('revoke', clientId, '--json');
    assert.notEqual((JSON.parse(revoked.stdout) as { revokedAt: string | null }).revokedAt, null);
    const restored = await clients('restore', clientId, '--json');
    assert.equal((JSON.parse(restored.stdout) as { revokedAt: string | null }).revokedAt, null);
    assert.equal((await clients('delete', clientId)).code, 0);
    const list = JSON.parse((await clients('list', '--json')).stdout) as { clientId: string }[];
    assert.ok(!list.some((client) => client.clientId === clientId));
    assert.equal((await clients('delete', clientId)).code, 1);
  });
});
