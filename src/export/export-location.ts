import { randomBytes } from 'node:crypto';
import { createWriteStream, openSync, rmSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import type { Writable } from 'node:stream';
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
  /** Stops the export (Ctrl-C): it rejects with the signal's reason, and no file is left behind. */
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
  ) {
    super(`cannot write ${path === '-' ? 'standard output' : path}: ${(cause as Error).message}`, { cause });
  }
}

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
 * name and renamed into place once every kind is complete, so a failed export leaves no file half-written.
 */
export const exportLocation = async (store: Store, options: ExportOptions): Promise<FieldCounts> => {
  if ((await store.locations.get(options.locationId)) === undefined)
    throw new LarderError('ERR_LOCATION_NOT_FOUND', {
      message: `Location ${options.locationId} is unknown.`,
    });
  const counts = zeroCounts();
  const renames: [temporary: string, final: string, kind: RecordKindName][] = [];
  let written = 0;
  const files: Writable[] = [];
  let current: { kind: RecordKindName; path: string } | undefined;
  try {
    for (const kind of RECORD_KINDS) {
      const target = options[kind.name];
      if (target === undefined) continue;
      current = { kind: kind.name, path: target.path };
      let stream: Writable;
      if (target.path === '-') {
        stream = target.output ?? process.stdout;
      } else {
        const temporary = `${target.path}.${randomBytes(4).toString('hex')}.tmp`;
        renames.push([temporary, target.path, kind.name]);
        // Opened now, not when the stream gets round to it: a file opened after a failure's cleanup would stay.
        stream = createWriteStream(temporary, { fd: openSync(temporary, 'wx') });
        files.push(stream);
        // Its error (a full disk) also fails the pending write, which reports it; unheard, it would crash.
        stream.on('error', () => {});
      }
      for await (const batch of store.records.scan(kind, options.locationId)) {
        options.signal?.throwIfAborted();
        await write(stream, `${batch.join('\n')}\n`);
        counts[kind.name] += batch.length;
        written += batch.length;
        options.onProgress?.(written);
      }
      if (target.path !== '-') await finish(stream);
    }
    options.signal?.throwIfAborted();
    for (const [temporary, final, kind] of renames) {
      current = { kind, path: final };
      await rename(temporary, final);
    }
  } catch (error) {
    // Synchronously, before anything else runs: a process exiting on a closed stdout must not leave them.
    for (const stream of files) stream.destroy();
    for (const [temporary] of renames) rmSync(temporary, { force: true });
    if (options.signal?.aborted === true || current === undefined || !isSystemError(error)) throw error;
    throw new ExportTargetError(current.kind, current.path, error.code, error);
  }
  return toFieldCounts(counts);
};

/** An error of a system call (open, write, rename), not the store's. */
const isSystemError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
