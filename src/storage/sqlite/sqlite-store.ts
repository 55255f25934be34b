import { type Stats, statSync } from 'node:fs';
import { Mutex, withTimeout } from 'async-mutex';
import Database from 'better-sqlite3';
import { RECORD_KINDS, type RecordKind, zeroCounts } from '../../records/kinds.js';
import { StoreError } from '../../shared/errors.js';
import { DEFAULT_SQLITE_CACHE_MB } from '../../shared/limits.js';
import { createSettingsStore } from '../settings.js';
import type {
  AuthStore,
  ClientRecord,
  ClientUpdate,
  ImportSession,
  ImportSessionOptions,
  LocationInfo,
  LocationSummary,
  RecordStore,
  SigningKeyRecord,
  Store,
  StoredRow,
} from '../store.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { ensurePrivateFile } from './private-file.js';
import { PAGE_HEADROOM, PAGE_TAIL, pageSql, searchSql } from './search-sql.js';
import { createTurnSnapshot } from './turn-snapshot.js';

export interface SqliteStoreOptions {
  /** Database file path. */
  path: string;
  /** Open without applying migrations (fails on an unmigrated file). Default false: migrate on open. */
  readonly?: boolean;
  /** How long to wait for another process's lock (a bulk load in progress) before failing. Default 10 s. */
  busyTimeoutMs?: number;
  /** Each connection's page cache, in MiB (`--sqlite-cache-mb`). Default DEFAULT_SQLITE_CACHE_MB. */
  cacheMb?: number;
}

type Db = Database.Database;

/** pageSql's one row: count, positions, body lengths, bodies (NULLs when no row matches). */
type PageRow = [number, string | null, string | null, Buffer | null];

// NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the last commits.
const SYNCHRONOUS = 'NORMAL';
/** A bulk load's own page cache (its primary-key indexes are written at random), unless the configured one is larger. */
const IMPORT_CACHE_MB = 512;
/** SQLite takes a negative cache_size as KiB. */
const cacheSize = (mb: number): string => `cache_size = ${-mb * 1024}`;

const configure = (db: Db, busyTimeoutMs: number, cacheMb: number): void => {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // Takes effect only on a new, empty file (before WAL is on): 16 KiB pages suit ~3 KB bodies and bulk loads.
  db.pragma('page_size = 16384');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${SYNCHRONOUS}`);
  db.pragma('temp_store = MEMORY');
  db.pragma(cacheSize(cacheMb));
  // No mmap: mapped pages count in the server's RSS (256 MiB of them took it to 515 MB with a million entries
  // stored) and follow the OS page cache, which shrinks on its own here; the page cache keeps hot pages.
  db.pragma('mmap_size = 0');
};

const isBusy = (error: unknown): boolean => (error as { code?: string }).code === 'SQLITE_BUSY';

const UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_UNIQUE']);

/** SQLite finding the file is no sound database: a damaged page (any SQLITE_CORRUPT_*), or no database at all. */
const isDamage = (code: string): boolean =>
  code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_') || code === 'SQLITE_NOTADB';

/** What better-sqlite3 throws for a statement on a closed connection (no code). */
const NOT_OPEN = 'The database connection is not open';

const closedError = (cause?: unknown): StoreError =>
  new StoreError(
    'STORE_CLOSED',
    'The SQLite store was closed before the operation ran.',
    cause === undefined ? {} : { cause },
  );

/**
 * Expected SQLite failures as the StoreErrors every backend raises; anything else is left as it is. A damaged
 * file is named with what to do: SQLite's own words ("database disk image is malformed") say neither.
 */
const toStoreError = (error: unknown, path: string): unknown => {
  if (error instanceof StoreError) return error;
  if (error instanceof TypeError && error.message === NOT_OPEN) return closedError(error);
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return error;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
    return new StoreError('STORE_LOCKED', 'The database is locked by another process.', { cause: error });
  if (UNIQUE_CODES.has(code))
    return new StoreError('STORE_DUPLICATE', 'A row with this key already exists.', { cause: error });
  if (code === 'SQLITE_NOTADB')
    return new StoreError(
      'STORE_DAMAGED',
      `${path} is not a SQLite database (${code}: ${(error as Error).message}): if it was Larder's, it was overwritten or replaced; restore it from a backup.`,
      { cause: error },
    );
  if (isDamage(code))
    return new StoreError(
      'STORE_DAMAGED',
      `The SQLite database ${path} is damaged (${code}: ${(error as Error).message}): restore it from a backup, or save what SQLite can still read with \`sqlite3 ${path} .recover | sqlite3 recovered.db\` and use that file.`,
      { cause: error },
    );
  return error;
};

const sameFile = (a: Stats, b: Stats): boolean => a.dev === b.dev && a.ino === b.ino;

/**
 * Watches the file at `path` (and its WAL) for what an operator or a stray command can do to it under an open
 * store, which SQLite itself notices late or never: replacing or removing it (its connections go on with the old
 * file, unlinked), emptying it, removing its WAL (its commits are then only in this process). `check()` says what
 * happened, if anything, and `moved()` whether the path names another file or none; `direct(true)` while the store has switched the WAL off itself (a bulk load).
 * Undefined for an in-memory database.
 */
const watchFile = (path: string) => {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return undefined;
  const opened = statSync(path);
  const walPath = `${path}-wal`;
  // Learnt again when next seen after a bulk load, which removes it and has SQLite make a new one.
  let wal = statSync(walPath, { throwIfNoEntry: false });
  let direct = false;
  const moved = (): boolean => {
    const now = statSync(path, { throwIfNoEntry: false });
    return now === undefined || !sameFile(now, opened);
  };
  const check = (): StoreError | undefined => {
    if (moved())
      return new StoreError(
        'STORE_DAMAGED',
        `The SQLite database ${path} was replaced or removed while this process had it open: its writes would go to the old file and be lost, so they are refused. Restart to open what is at ${path} now (a new, empty database if nothing is).`,
      );
    if (statSync(path).size === 0)
      return new StoreError(
        'STORE_DAMAGED',
        `The SQLite database ${path} was emptied (truncated to 0 bytes) while this process had it open: restore it from a backup. Started on as it is, it would be taken for a new, empty database.`,
      );
    if (direct) return undefined;
    const nowWal = statSync(walPath, { throwIfNoEntry: false });
    if (wal !== undefined && (nowWal === undefined || !sameFile(nowWal, wal)))
      return new StoreError(
        'STORE_DAMAGED',
        `The SQLite write-ahead log ${walPath} was removed or replaced while this process had it open: the commits it held since the last checkpoint are now only in this process. Stop it cleanly (SIGTERM), which writes them back into ${path}; killing it loses them.`,
      );
    wal ??= nowWal;
    return undefined;
  };
  return {
    check,
    moved,
    direct: (on: boolean) => {
      direct = on;
      wal = undefined;
    },
  };
};

/** Runs `action` without waiting for locks; undefined if another connection holds one. */
const unlessBusy = <T>(db: Db, action: () => T): T | undefined => {
  const busyTimeoutMs = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    return action();
  } catch (error) {
    if (isBusy(error)) return undefined;
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  }
};

/**
 * Refuses a SQLite database that is not Larder's (no schema version, yet tables of its own), before anything
 * changes it: a mistyped --db naming another program's file must not get Larder's tables and WAL mode added.
 */
const refuseForeign = (db: Db, path: string): void => {
  if ((db.pragma('user_version', { simple: true }) as number) !== 0) return;
  const names = db
    .prepare("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 4")
    .pluck()
    .all() as string[];
  if (names.length === 0) return;
  throw new StoreError(
    'STORE_SCHEMA',
    `${path} is a SQLite database but not Larder's (it holds ${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''}); Larder adds its tables only to a new file or one of its own. Nothing was changed.`,
  );
};

const migrate = (db: Db, path: string): void => {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SQLITE_MIGRATIONS.length) {
    throw new StoreError(
      'STORE_SCHEMA',
      `${path} has schema version ${current}, newer than this Larder understands (${SQLITE_MIGRATIONS.length}). Upgrade Larder.`,
    );
  }
  for (let version = current; version < SQLITE_MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(SQLITE_MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
};

interface ClientRow {
  client_id: string;
  name: string;
  secret_hash: string;
  scopes: string;
  all_locations: number;
  locations: string;
  created_at: string;
  revoked_at: string | null;
}

const toClient = (row: ClientRow): ClientRecord => ({
  clientId: row.client_id,
  name: row.name,
  secretHash: row.secret_hash,
  scopes: JSON.parse(row.scopes) as string[],
  allLocations: row.all_locations === 1,
  locations: JSON.parse(row.locations) as string[],
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

interface KeyRow {
  kid: string;
  alg: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
  retired_at: string | null;
}

const toKey = (row: KeyRow): SigningKeyRecord => ({
  kid: row.kid,
  alg: row.alg,
  privateJwk: row.private_jwk,
  publicJwk: row.public_jwk,
  createdAt: row.created_at,
  retiredAt: row.retired_at,
});

const placeholders = (count: number): string => Array.from({ length: count }, () => '?').join(', ');

export const createSqliteStore = async (options: SqliteStoreOptions): Promise<Store> => {
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  const cacheMb = options.cacheMb ?? DEFAULT_SQLITE_CACHE_MB;
  if (options.readonly !== true) ensurePrivateFile(options.path);
  const db = new Database(options.path, { fileMustExist: options.readonly === true });
  try {
    if (options.readonly !== true) refuseForeign(db, options.path);
    configure(db, busyTimeoutMs, cacheMb);
    if (options.readonly !== true) migrate(db, options.path);
  } catch (error) {
    db.close();
    if (!isBusy(error)) throw toStoreError(error, options.path);
    throw new StoreError(
      'STORE_LOCKED',
      `${options.path} is locked by another process: most likely a \`larder import\` or \`larder seed\` is still writing to it. Try again when it has finished.`,
      { cause: error },
    );
  }

  // One writer at a time in this process, waited for without blocking: SQLite's own lock is waited for
  // synchronously (busy_timeout), which would stop the event loop, and with it the import session holding the
  // lock, so a second writer could only wait out the timeout. Across processes, busy_timeout still applies.
  const writeLock = withTimeout(
    new Mutex(),
    busyTimeoutMs,
    new StoreError(
      'STORE_LOCKED',
      'The database is busy with another write (an import) in this server. Try again when it has finished.',
    ),
  );
  // A damaged file stays damaged: the first statement that finds it so marks the store, and its ping fails from
  // then on (/readyz 503), although the ping itself reads only pages that are still sound. Only a restart clears it.
  let damage: StoreError | undefined;
  const failure = (error: unknown): unknown => {
    const mapped = toStoreError(error, options.path);
    if (mapped instanceof StoreError && mapped.code === 'STORE_DAMAGED') damage ??= mapped;
    return mapped;
  };
  const watch = watchFile(options.path);
  /**
   * Throws once the file is damaged, or is no longer the one this store opened. Checked by the ping, before every
   * write and before a new connection opens (never per read: a stat costs as much as a read by id): a connection
   * opened on a replaced path would not share the open ones' locks, and would corrupt the file put there.
   */
  const checkFile = (): void => {
    if (damage === undefined) {
      damage = watch?.check();
      releaseMovedWal();
    }
    if (damage !== undefined) throw damage;
  };
  /** Runs `action`, raising its expected failures as StoreErrors. */
  const guarded = async <T>(action: () => T): Promise<T> => {
    try {
      return action();
    } catch (error) {
      throw failure(error);
    }
  };
  // A damaged or replaced file takes no writes: they would spread the damage, or be lost with the old file.
  const writing = <T>(action: () => T): Promise<T> =>
    writeLock.runExclusive(() =>
      guarded(() => {
        checkFile();
        return action();
      }),
    );

  // The retail reads (by id and searches) go through the turn snapshot; searches with variable filters are
  // prepared once per SQL text (a bounded set).
  const snapshot = createTurnSnapshot(() => {
    // Opened on first use, which must not come after close() (a request the stop cut, reading on).
    if (!db.open) throw closedError();
    checkFile();
    const reader = new Database(options.path, { fileMustExist: true });
    configure(reader, busyTimeoutMs, cacheMb);
    reader.pragma('query_only = ON');
    return reader;
  });
  const runSearch = (sql: string, params: unknown[]): StoredRow[] => {
    const statement = snapshot.prepare<unknown[], StoredRow>(sql);
    snapshot.begin();
    return statement.all(...params);
  };
  // Bodies as their UTF-8 bytes (one buffer, copied out of SQLite), not as strings V8 would decode only for the
  // response to encode back: for non-ASCII text, which V8 holds as two-byte strings, that is 3× the cost.
  const byId = (table: string) => {
    let statement: Database.Statement<[string, string], Buffer> | undefined;
    return (locationId: string, id: string): Buffer | undefined => {
      statement ??= snapshot
        .prepare<[string, string], Buffer>(
          `SELECT CAST(body AS BLOB) FROM ${table} WHERE location_id = ? AND id = ?`,
        )
        .pluck();
      snapshot.begin();
      return statement.get(locationId, id.toLowerCase());
    };
  };
  /**
   * Once the file was moved away, empties its WAL into it (the old file, which this store still has open): SQLite
   * leaves a moved file's WAL where it is, and the next open of the file now at the path would apply the old
   * file's pages over it. Without waiting: busy, it is tried again at close.
   */
  const releaseMovedWal = (): void => {
    if (watch?.moved() !== true || !db.open) return;
    snapshot.end();
    try {
      unlessBusy(db, () => db.pragma('wal_checkpoint(TRUNCATE)'));
    } catch {
      // The old file is beyond reading: its WAL stays, and the log says the file was replaced.
    }
  };
  const getters = new Map(RECORD_KINDS.map((kind) => [kind.table, byId(kind.table)]));
  const spanOf = (table: string, locationId: string) => {
    const statement = snapshot.prepare<[string], { first: number | null; last: number | null }>(
      `SELECT min(modified_at) AS first, max(modified_at) AS last FROM ${table} WHERE location_id = ?`,
    );
    snapshot.begin();
    return statement.get(locationId);
  };
  const getLocation = db.prepare<[string], LocationInfo>(
    'SELECT id, name, created_at AS createdAt FROM locations WHERE id = ?',
  );
  const insertLocation = db.prepare<[string, string, string]>(
    'INSERT INTO locations (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
  );
  const renameLocation = db.prepare<[string, string]>('UPDATE locations SET name = ? WHERE id = ?');
  const listLocations = db.prepare<[], LocationSummary>(`
    SELECT l.id, l.name, l.created_at AS createdAt${RECORD_KINDS.map(
      (kind) => `,
      (SELECT count(*) FROM ${kind.table} r WHERE r.location_id = l.id) AS ${kind.countField}`,
    ).join('')}
    FROM locations l ORDER BY l.id`);
  const getSetting = db.prepare<[string], string>('SELECT value FROM settings WHERE name = ?');
  getSetting.pluck();
  const putSetting = db.prepare<[string, string]>(
    'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  );
  const addSetting = db.prepare<[string, string]>(
    'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
  );
  const swapSetting = db.prepare<[string, string, string]>(
    'UPDATE settings SET value = ? WHERE name = ? AND value = ?',
  );
  const putSettings = db.transaction((values: readonly (readonly [string, string])[]) => {
    for (const [name, value] of values) putSetting.run(name, value);
  });
  const bumpAuthVersion = db.prepare('UPDATE auth_version SET version = version + 1 WHERE id = 1');
  const readAuthVersion = db.prepare<[], number>('SELECT version FROM auth_version WHERE id = 1');
  readAuthVersion.pluck();
  const insertClient = db.prepare<[string, string, string, string, number, string, string, string | null]>(
    `INSERT INTO clients (client_id, name, secret_hash, scopes, all_locations, locations, created_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const selectClient = db.prepare<[string], ClientRow>('SELECT * FROM clients WHERE client_id = ?');
  const selectClients = db.prepare<[], ClientRow>('SELECT * FROM clients ORDER BY created_at, client_id');
  const saveClient = db.prepare<[string, string, string, number, string, string | null, string]>(
    'UPDATE clients SET name = ?, secret_hash = ?, scopes = ?, all_locations = ?, locations = ?, revoked_at = ? WHERE client_id = ?',
  );
  const selectKeys = db.prepare<[], KeyRow>('SELECT * FROM signing_keys ORDER BY created_at, kid');
  const retireKeys = db.prepare<[string]>('UPDATE signing_keys SET retired_at = ? WHERE retired_at IS NULL');
  const insertKey = db.prepare<[string, string, string, string, string, string | null]>(
    `INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created_at, retired_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const removeKey = db.prepare<[string]>('DELETE FROM signing_keys WHERE kid = ?');
  const replacePrivateJwk = db.prepare<[string, string]>(
    'UPDATE signing_keys SET private_jwk = ? WHERE kid = ?',
  );

  const now = () => new Date().toISOString();

  const ensureLocation = (location: { id: string; name?: string }): LocationInfo => {
    insertLocation.run(location.id, location.name ?? location.id, now());
    if (location.name !== undefined) renameLocation.run(location.name, location.id);
    return getLocation.get(location.id)!;
  };

  const createClient = db.transaction((client: ClientRecord) => {
    insertClient.run(
      client.clientId,
      client.name,
      client.secretHash,
      JSON.stringify(client.scopes),
      client.allLocations ? 1 : 0,
      JSON.stringify(client.locations),
      client.createdAt,
      client.revokedAt,
    );
    bumpAuthVersion.run();
  });

  const updateClient = db.transaction((clientId: string, update: ClientUpdate): ClientRecord | undefined => {
    const row = selectClient.get(clientId);
    if (row === undefined) return undefined;
    const next: ClientRecord = { ...toClient(row), ...update };
    saveClient.run(
      next.name,
      next.secretHash,
      JSON.stringify(next.scopes),
      next.allLocations ? 1 : 0,
      JSON.stringify(next.locations),
      next.revokedAt,
      clientId,
    );
    bumpAuthVersion.run();
    return next;
  });

  const removeClient = db.prepare<[string]>('DELETE FROM clients WHERE client_id = ?');
  const deleteClient = db.transaction((clientId: string): boolean => {
    const removed = removeClient.run(clientId).changes > 0;
    if (removed) bumpAuthVersion.run();
    return removed;
  });

  const removeLocation = db.prepare<[string]>('DELETE FROM locations WHERE id = ?');
  const removeRecords = RECORD_KINDS.map((kind) =>
    db.prepare<[string]>(`DELETE FROM ${kind.table} WHERE location_id = ?`),
  );
  const deleteLocation = db.transaction((id: string): boolean => {
    for (const statement of removeRecords) statement.run(id);
    return removeLocation.run(id).changes > 0;
  });

  const rotateKey = db.transaction((key: SigningKeyRecord) => {
    retireKeys.run(key.createdAt);
    insertKey.run(key.kid, key.alg, key.privateJwk, key.publicJwk, key.createdAt, key.retiredAt);
    bumpAuthVersion.run();
  });

  const deleteKey = db.transaction((kid: string) => {
    if (removeKey.run(kid).changes > 0) bumpAuthVersion.run();
  });

  async function* scan(table: string, locationId: string, batchSize = 1000): AsyncIterable<string[]> {
    const statement = db.prepare<
      [string, number, string, number],
      { modified_at: number; id: string; body: string }
    >(
      `SELECT modified_at, id, body FROM ${table}
       WHERE location_id = ? AND (modified_at, id) > (?, ?) ORDER BY modified_at, id LIMIT ?`,
    );
    let after = { modifiedAt: Number.MIN_SAFE_INTEGER, id: '' };
    for (;;) {
      let rows: { modified_at: number; id: string; body: string }[];
      try {
        rows = statement.all(locationId, after.modifiedAt, after.id, batchSize);
      } catch (error) {
        throw failure(error);
      }
      if (rows.length === 0) return;
      yield rows.map((row) => row.body);
      const last = rows[rows.length - 1]!;
      after = { modifiedAt: last.modified_at, id: last.id };
    }
  }

  /**
   * Leaves the WAL for a rollback journal while this is the only connection to the file. Pages appended past the
   * end of the file need no journal, so a bulk load is written once, straight into the file, instead of into the
   * WAL and again by the checkpoint (a 2.5 GB load: 26 s → 12 s, its commit 9.5 → 1.8 s). False, keeping the
   * WAL, while any other connection (another process, or a server) has the file open.
   */
  const enterDirectMode = (): boolean =>
    unlessBusy(db, () => db.pragma('journal_mode = DELETE', { simple: true }) === 'delete') ?? false;

  const leaveDirectMode = (): void => {
    db.pragma(`synchronous = ${SYNCHRONOUS}`);
    db.pragma(cacheSize(cacheMb));
    // A process that opened the file meanwhile keeps it from changing back; it switches the file to WAL itself.
    unlessBusy(db, () => db.pragma('journal_mode = WAL'));
  };

  /** `INSERT … ON CONFLICT DO UPDATE` of one kind's rows: location, id, modified_at, the columns, the body. */
  const upsertSql = (kind: RecordKind): string => {
    const columns = kind.columns.map((column) => column.name);
    const all = ['location_id', 'id', 'modified_at', ...columns, 'body'];
    const updated = ['modified_at', ...columns, 'body'].map((name) => `${name} = excluded.${name}`);
    return `INSERT INTO ${kind.table} (${all.join(', ')}) VALUES (${placeholders(all.length)})
       ON CONFLICT (location_id, id) DO UPDATE SET ${updated.join(', ')}`;
  };

  /** Rollbacks of the imports open in this process: close() ends them rather than wait for them. */
  const openImports = new Set<() => void>();

  const beginImport = async (
    location: { id: string; name?: string },
    sessionOptions: ImportSessionOptions = {},
  ): Promise<ImportSession> => {
    const release = await writeLock.acquire();
    let direct: boolean;
    let writer: Db;
    try {
      // An import has a connection of its own, which a closed store would otherwise still open.
      if (!db.open) throw closedError();
      checkFile();
      direct = sessionOptions.exclusive === true && enterDirectMode();
      watch?.direct(direct);
      // Otherwise a connection of its own: in-process readers keep seeing the last committed state until commit.
      writer = direct ? db : new Database(options.path);
    } catch (error) {
      release();
      throw failure(error);
    }
    try {
      if (direct) {
        // A rollback journal is only as safe as its syncs: FULL until the session ends.
        db.pragma('synchronous = FULL');
      } else {
        configure(writer, busyTimeoutMs, cacheMb);
      }
      // Bulk loads insert into the primary-key indexes at random (UUID ids): once those outgrow the cache, each
      // row re-reads a spilled page (1M orders: ~300 MB of index). The cache only grows as pages are used, so
      // small imports cost nothing extra; it is freed when the session ends.
      writer.pragma(cacheSize(Math.max(IMPORT_CACHE_MB, cacheMb)));
      writer.exec('BEGIN IMMEDIATE');
      writer
        .prepare('INSERT INTO locations (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING')
        .run(location.id, location.name ?? location.id, now());
      if (location.name !== undefined) {
        writer.prepare('UPDATE locations SET name = ? WHERE id = ?').run(location.name, location.id);
      }
    } catch (error) {
      if (writer.inTransaction) writer.exec('ROLLBACK');
      if (direct) leaveDirectMode();
      else writer.close();
      watch?.direct(false);
      release();
      throw failure(error);
    }
    const upserts = new Map<string, Database.Statement<unknown[]>>();
    const counts = zeroCounts();
    let open = true;
    const finish = (commit: boolean) => {
      if (!open) return;
      open = false;
      openImports.delete(abandon);
      try {
        if (writer.inTransaction) writer.exec(commit ? 'COMMIT' : 'ROLLBACK');
      } catch (error) {
        if (writer.inTransaction) writer.exec('ROLLBACK');
        throw failure(error);
      } finally {
        if (direct) leaveDirectMode();
        else writer.close();
        watch?.direct(false);
        release();
      }
    };
    /** Rolled back by close(): the caller learns it from its next put or commit. */
    let abandoned = false;
    const abandon = () => {
      abandoned = true;
      finish(false);
    };
    openImports.add(abandon);
    return {
      put: async (kind, rows) => {
        if (abandoned) throw closedError();
        let upsert = upserts.get(kind.name);
        if (upsert === undefined) {
          upsert = writer.prepare<unknown[]>(upsertSql(kind));
          upserts.set(kind.name, upsert);
        }
        const width = kind.columns.length;
        const params: unknown[] = new Array(width + 4);
        params[0] = location.id;
        try {
          for (const row of rows) {
            params[1] = row.id;
            params[2] = row.modifiedAt;
            for (let i = 0; i < width; i++) {
              const value = row.values[i];
              params[i + 3] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
            }
            params[width + 3] = row.json;
            upsert.run(params);
          }
        } catch (error) {
          throw failure(error);
        }
        counts[kind.name] += rows.length;
      },
      commit: async () => {
        if (abandoned) throw closedError();
        finish(true);
        // This process's reads see its own import from now, not from the next turn.
        snapshot.end();
        return { ...counts };
      },
      rollback: async () => finish(false),
    };
  };

  const records: RecordStore = {
    get: (kind, locationId, id) => guarded(() => getters.get(kind.table)!(locationId, id)),
    search: (kind, query) =>
      guarded(() => {
        const { sql, params } = searchSql(kind.table, query);
        return runSearch(sql, params);
      }),
    span: (kind, locationId) =>
      guarded(() => {
        const row = spanOf(kind.table, locationId);
        return row?.first == null || row.last == null ? undefined : { first: row.first, last: row.last };
      }),
    page: (kind, query) =>
      guarded(() => {
        const { sql, params } = pageSql(kind.table, query);
        const statement = snapshot.prepare<unknown[], PageRow>(sql).raw();
        snapshot.begin();
        const [found, positions, lengths, joined] = statement.get(...params) as unknown as PageRow;
        if (found === 0 || positions === null || lengths === null || joined === null)
          return { chunks: [], count: 0, last: undefined, more: false };
        const more = found > query.limit;
        const count = more ? query.limit : found;
        // The headroom and its comma come off the front; the closing ", " and, with one row past the page, its
        // body and the comma before it off the end. What comes off is the envelope's room.
        const start = PAGE_HEADROOM + 1;
        const extra = more ? Number(lengths.slice(lengths.lastIndexOf(' ') + 1)) + 1 : 0;
        const end = joined.length - PAGE_TAIL - extra;
        const keys = positions.split(' ');
        return {
          chunks: [joined.subarray(start, end)],
          count,
          last: { modifiedAt: Number(keys[2 * count - 2]), id: keys[2 * count - 1]! },
          more,
          room: { before: start, after: joined.length - end },
        };
      }),
    scan: (kind, locationId, batchSize) => scan(kind.table, locationId, batchSize),
    beginImport,
  };

  const auth: AuthStore = {
    createClient: (client) => writing(() => createClient(client)),
    getClient: (clientId) =>
      guarded(() => {
        const row = selectClient.get(clientId);
        return row === undefined ? undefined : toClient(row);
      }),
    listClients: () => guarded(() => selectClients.all().map(toClient)),
    updateClient: (clientId, update) => writing(() => updateClient(clientId, update)),
    deleteClient: (clientId) => writing(() => deleteClient(clientId)),
    listSigningKeys: () => guarded(() => selectKeys.all().map(toKey)),
    rotateSigningKey: (key) => writing(() => rotateKey.immediate(key)),
    deleteSigningKey: (kid) => writing(() => deleteKey(kid)),
    sealSigningKey: (kid, privateJwk) =>
      writing(() => {
        replacePrivateJwk.run(privateJwk, kid);
      }),
    version: () => guarded(() => readAuthVersion.get()!),
  };

  return {
    records,
    locations: {
      upsert: (location) => writing(() => ensureLocation(location)),
      get: (id) => guarded(() => getLocation.get(id)),
      list: () => guarded(() => listLocations.all()),
      delete: (id) =>
        writing(() => {
          const removed = deleteLocation.immediate(id);
          // This process's readers see the deletion at once, as they see its imports.
          snapshot.end();
          return removed;
        }),
    },
    auth,
    settings: createSettingsStore({
      get: (name) => guarded(() => getSetting.get(name)),
      set: (values) => writing(() => putSettings(values)),
      ensure: (name, value) =>
        writing(() => {
          addSetting.run(name, value);
          return getSetting.get(name)!;
        }),
      swap: (name, expected, value) =>
        writing(
          () =>
            (expected === undefined ? addSetting.run(name, value) : swapSetting.run(value, name, expected))
              .changes === 1,
        ),
    }),
    capabilities: { writesOnMainThread: true, embedded: true },
    describe: () => 'sqlite',
    ping: () =>
      guarded(() => {
        checkFile();
        readAuthVersion.get();
      }),

    close: async () => {
      if (!db.open) return;
      // As on PostgreSQL, an import still open (one a stop cut) is rolled back: it holds the write lock, which
      // PRAGMA optimize would otherwise wait the busy timeout for, with the event loop blocked.
      for (const abandon of [...openImports]) abandon();
      snapshot.close();
      try {
        db.pragma('optimize');
      } catch {
        // Only a helping hand for the planner: a file too damaged to optimise is still closed, and a stop finishes.
      }
      releaseMovedWal();
      db.close();
    },
  };
};
