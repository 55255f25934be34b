import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  createWriteStream,
  fstatSync,
  open,
  openSync,
  rmSync,
  type Stats,
  statSync,
} from 'node:fs';
import { lstat, readlink, realpath, rename, stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { promisify } from 'node:util';
import {
  type FieldCounts,
  RECORD_KINDS,
  type RecordKindName,
  toFieldCounts,
  zeroCounts,
} from '../records/kinds.js';
import { LarderError } from '../shared/errors.js';
import type { Store } from '../storage/store.js';

export interface ExportTarget {
  /** A file, or `-` for `output` (standard output). */
  path: string;
  /** Where `-` writes. */
  output?: Writable;
}

/** One target per kind, under the kind's name (purchaseOrders, inventoryHistory). */
export interface ExportOptions extends Partial<Record<RecordKindName, ExportTarget>> {
  locationId: string;
  /** Called after each batch with the records written so far. */
  onProgress?: (records: number) => void;
  /** Stops the export (Ctrl-C): it rejects with an ExportStoppedError, and no file is left behind. */
  signal?: AbortSignal;
}

/** A kind's target could not be written (a missing directory, a full disk, a reader gone): which one, and why. */
export class ExportTargetError extends Error {
  override readonly name = 'ExportTargetError';
  readonly code = 'EXPORT_TARGET';
  constructor(
    readonly kind: RecordKindName,
    readonly path: string,
    /** The system's error code (ENOENT, EISDIR, ENOSPC, EPIPE), when it gave one. */
    readonly errno: string | undefined,
    cause: unknown,
    /** Records had gone to the target, standard output or a device or FIFO written directly, before it failed. */
    readonly partlyWritten = false,
    /**
     * The targets bound for a regular file (replaced whole once the export is done), none of which the failure
     * let be written: with a stream's reader gone early (EPIPE), these are what the export did not deliver.
     */
    readonly unwritten: readonly { kind: RecordKindName; path: string }[] = [],
  ) {
    super(`cannot write ${path === '-' ? 'standard output' : path}: ${(cause as Error).message}`, { cause });
  }
}

/** What a target written as the export goes (a device, FIFO, descriptor or `-`) had been sent when it stopped. */
export interface SentRecords {
  kind: RecordKindName;
  path: string;
  /** Records it took whole. */
  records: number;
  /** A batch was going out: part of it may have gone too, its last line cut short. */
  cut: boolean;
}

/**
 * The export was stopped (its signal aborted). No file was left, but what went to a target written directly is
 * gone: `sent` says what, for each such target opened (a kind not reached yet has none).
 */
export class ExportStoppedError extends Error {
  override readonly name = 'ExportStoppedError';
  constructor(
    readonly sent: readonly SentRecords[],
    cause: unknown,
  ) {
    super('The export was stopped.', { cause });
  }
}

/**
 * How a target is written. A regular file, or one not there yet, is replaced whole: written beside it and renamed
 * into place, symlinks followed so that a link stays and its target is replaced. Anything else is written
 * directly, as it goes: a rename would replace a device (/dev/null) or FIFO with a regular file, and a name for
 * an open descriptor (/dev/stdout is /proc/self/fd/1) with a file of its own, rather than write through it.
 */
type Placement = { direct: true } | { direct: false; path: string };

/** Links followed before giving up, as the kernel does (ELOOP). */
const MAX_LINKS = 40;

const placementOf = async (path: string): Promise<Placement> => {
  let at = resolve(path);
  for (let links = 0; links <= MAX_LINKS; links++) {
    const directory = await realpath(dirname(at));
    // Every name under /proc is the kernel's: the descriptors of /proc/self/fd, where /dev/stdout leads.
    if (directory === '/proc' || directory.startsWith('/proc/')) return { direct: true };
    at = join(directory, basename(at));
    const stats = await lstat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (stats === undefined || stats.isFile()) return { direct: false, path: at };
    if (!stats.isSymbolicLink()) return { direct: true };
    at = resolve(directory, await readlink(at));
  }
  throw Object.assign(new Error(`ELOOP: too many symbolic links encountered, open '${path}'`), {
    code: 'ELOOP',
    syscall: 'open',
  });
};

/** What two targets share, when they are one: a file, standard output, a FIFO, a device (each kind's name). */
export interface SharedTarget {
  kinds: [RecordKindName, RecordKindName];
  /** A regular file, one not made yet included: the kind renamed into place second would replace the first. */
  file: boolean;
  /** In a message: `the same file (/real/path)`, `standard output`. */
  what: string;
}

interface Identity {
  key: string;
  file: boolean;
  what: string;
  /** /dev/null (its device number), which keeps nothing: any number of kinds may write to it. */
  discards: boolean;
}

const statOf = (read: () => Stats): Stats | undefined => {
  try {
    return read();
  } catch {
    return undefined;
  }
};

/**
 * A target by what it reaches, not how it is spelt: an existing one by device and inode (through symlinks, hard
 * links, `./a` and `a`, /dev/stdout and `-`), one not there yet by the path its file would take.
 */
const identityOf = async (path: string): Promise<Identity> => {
  const stdout = statOf(() => fstatSync(1));
  const stats = path === '-' ? stdout : await stat(path).catch(() => undefined);
  if (stats === undefined) {
    if (path === '-') return { key: 'stdout', file: false, what: 'standard output', discards: false };
    // Not there yet, or not reachable (the export then says why): the file it would make.
    const placement = await placementOf(path).catch(() => undefined);
    const made = placement?.direct === false ? placement.path : resolve(path);
    return { key: `new:${made}`, file: true, what: `the same file (${made})`, discards: false };
  }
  const key = `${stats.dev}:${stats.ino}`;
  const where = await realpath(path).catch(() => resolve(path));
  const nul = statOf(() => statSync('/dev/null'));
  const discards = stats.isCharacterDevice() && nul !== undefined && stats.rdev === nul.rdev;
  if (stdout !== undefined && key === `${stdout.dev}:${stdout.ino}` && !discards)
    return { key, file: false, what: 'standard output', discards };
  if (stats.isFile()) return { key, file: true, what: `the same file (${where})`, discards };
  const kind = stats.isFIFO()
    ? 'FIFO'
    : stats.isCharacterDevice() || stats.isBlockDevice()
      ? 'device'
      : 'target';
  return { key, file: false, what: `the same ${kind} (${where})`, discards };
};

/**
 * The first two kinds whose targets are one and the same, which no export can honour: a file would end up holding
 * only the kind renamed into place last, and one stream would carry both kinds, which import cannot take apart.
 * /dev/null is the exception: it keeps nothing, so `/dev/null` for every kind is harmless.
 */
export const sharedTarget = async (
  targets: Partial<Record<RecordKindName, ExportTarget>>,
): Promise<SharedTarget | undefined> => {
  const seen = new Map<string, { kind: RecordKindName; identity: Identity }>();
  for (const kind of RECORD_KINDS) {
    const target = targets[kind.name];
    if (target === undefined) continue;
    const identity = await identityOf(target.path);
    if (identity.discards) continue;
    const first = seen.get(identity.key);
    if (first !== undefined)
      return { kinds: [first.kind, kind.name], file: first.identity.file, what: first.identity.what };
    seen.set(identity.key, { kind: kind.name, identity });
  }
  return undefined;
};

/** What `work` gives, or the signal's reason as soon as it is aborted, `work` left to finish unheard. */
const unlessStopped = <T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
};

/**
 * Opens a target written directly, appending. A FIFO's open waits for a reader, on a thread of libuv's pool that
 * no signal reaches and that keeps the process alive: a stop meanwhile opens the FIFO for reading itself, which
 * lets that open return, then closes both, nothing written.
 */
const openDirect = async (path: string, signal: AbortSignal | undefined): Promise<number> => {
  signal?.throwIfAborted();
  const opening = promisify(open)(path, 'a');
  try {
    return await unlessStopped(opening, signal);
  } catch (error) {
    if (signal?.aborted !== true) throw error;
    let reader: number | undefined;
    if (statOf(() => statSync(path))?.isFIFO() === true)
      try {
        reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      } catch {}
    const fd = await opening.catch(() => undefined);
    if (fd !== undefined) closeSync(fd);
    if (reader !== undefined) closeSync(reader);
    throw error;
  }
};

/** Resolves once the stream has taken the text, rejects on its error (a destroyed stream never drains). */
const write = (stream: Writable, text: string) =>
  new Promise<void>((resolve, reject) => {
    stream.write(text, (error) => (error ? reject(error) : resolve()));
  });

const finish = (stream: Writable) =>
  new Promise<void>((resolve, reject) => {
    stream.once('error', reject);
    stream.end(() => resolve());
  });

/**
 * Writes a location's records as NDJSON, one stored record per line exactly as it is served, in keyset order
 * (modifiedDate, id): what `larder import` reads back into the same bytes. Files are written beside their final
 * name and renamed into place once every kind is complete, so a failed export leaves no file half-written; a
 * device, FIFO or descriptor is written directly (see Placement).
 */
export const exportLocation = async (store: Store, options: ExportOptions): Promise<FieldCounts> => {
  options.signal?.throwIfAborted();
  if ((await store.locations.get(options.locationId)) === undefined)
    throw new LarderError('ERR_LOCATION_NOT_FOUND', {
      message: `Location ${options.locationId} is unknown.`,
    });
  const counts = zeroCounts();
  const renames: [temporary: string, final: string, kind: RecordKindName][] = [];
  let written = 0;
  const files: Writable[] = [];
  let current: { kind: RecordKindName; path: string; direct?: boolean; wrote?: boolean } | undefined;
  const sent: SentRecords[] = [];
  // Every target is placed before any is written: a failure then knows the files it leaves unwritten, a kind not
  // reached yet included, and one that cannot be placed fails the export before a stream has been sent anything.
  const placements = new Map<RecordKindName, Placement | undefined>();
  const unwritten: { kind: RecordKindName; path: string }[] = [];
  const renamed = new Set<RecordKindName>();
  try {
    for (const kind of RECORD_KINDS) {
      const target = options[kind.name];
      if (target === undefined) continue;
      current = { kind: kind.name, path: target.path };
      const placement = target.path === '-' ? undefined : await placementOf(target.path);
      placements.set(kind.name, placement);
      if (placement?.direct === false) unwritten.push({ kind: kind.name, path: target.path });
    }
    for (const kind of RECORD_KINDS) {
      const target = options[kind.name];
      if (target === undefined) continue;
      current = { kind: kind.name, path: target.path };
      let stream: Writable;
      const placement = placements.get(kind.name);
      current.direct = placement === undefined || placement.direct;
      if (placement === undefined) {
        stream = target.output ?? process.stdout;
      } else if (placement.direct) {
        // Appending: a descriptor's file (/dev/stdout into `>> log`) keeps what it held; to a device or FIFO it is
        // the same as writing.
        const fd = await openDirect(target.path, options.signal);
        // A FIFO or pipe through libuv's non-blocking handle, as process.stdout is: a write waiting for a reader
        // that stopped reading holds no thread of the pool, so a stop can drop it and close at once.
        stream = fstatSync(fd).isFIFO() ? new Socket({ fd, readable: false }) : createWriteStream('', { fd });
        files.push(stream);
        stream.on('error', () => {});
      } else {
        const temporary = `${placement.path}.${randomBytes(4).toString('hex')}.tmp`;
        renames.push([temporary, placement.path, kind.name]);
        // Opened now, not when the stream gets round to it: a file opened after a failure's cleanup would stay.
        stream = createWriteStream(temporary, { fd: openSync(temporary, 'wx') });
        files.push(stream);
        // Its error (a full disk) also fails the pending write, which reports it; unheard, it would crash.
        stream.on('error', () => {});
      }
      // What it takes stays taken, whatever happens next.
      const sending: SentRecords | undefined =
        placement === undefined || placement.direct
          ? { kind: kind.name, path: target.path, records: 0, cut: false }
          : undefined;
      if (sending !== undefined) sent.push(sending);
      for await (const batch of store.records.scan(kind, options.locationId)) {
        options.signal?.throwIfAborted();
        if (sending !== undefined) sending.cut = true;
        await unlessStopped(write(stream, `${batch.join('\n')}\n`), options.signal);
        if (sending !== undefined) {
          sending.records += batch.length;
          sending.cut = false;
        }
        current.wrote = true;
        counts[kind.name] += batch.length;
        written += batch.length;
        options.onProgress?.(written);
      }
      if (target.path !== '-') await finish(stream);
    }
    options.signal?.throwIfAborted();
    for (const [temporary, final, kind] of renames) {
      current = { kind, path: options[kind]?.path ?? final };
      await rename(temporary, final);
      renamed.add(kind);
    }
  } catch (error) {
    // Synchronously, before anything else runs: a process exiting on a closed stdout must not leave them.
    for (const stream of files) stream.destroy();
    for (const [temporary] of renames) rmSync(temporary, { force: true });
    if (options.signal?.aborted === true) throw new ExportStoppedError(sent, error);
    if (current === undefined || !isSystemError(error)) throw error;
    throw new ExportTargetError(
      current.kind,
      current.path,
      error.code,
      error,
      current.direct === true && current.wrote === true,
      unwritten.filter((target) => !renamed.has(target.kind)),
    );
  }
  return toFieldCounts(counts);
};

/** An error of a system call (open, write, rename), not the store's. */
const isSystemError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
