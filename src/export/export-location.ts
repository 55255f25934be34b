import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
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
}

const write = async (stream: Writable, text: string) => {
  if (!stream.write(text))
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      stream.once('error', onError);
      stream.once('drain', () => {
        stream.off('error', onError);
        resolve();
      });
    });
};

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
  const renames: [temporary: string, final: string][] = [];
  let written = 0;
  try {
    for (const kind of RECORD_KINDS) {
      const target = options[kind.name];
      if (target === undefined) continue;
      let stream: Writable;
      if (target.path === '-') {
        stream = target.output ?? process.stdout;
      } else {
        const temporary = `${target.path}.${randomBytes(4).toString('hex')}.tmp`;
        renames.push([temporary, target.path]);
        stream = createWriteStream(temporary, { flags: 'wx' });
      }
      for await (const batch of store.records.scan(kind, options.locationId)) {
        await write(stream, `${batch.join('\n')}\n`);
        counts[kind.name] += batch.length;
        written += batch.length;
        options.onProgress?.(written);
      }
      if (target.path !== '-') await finish(stream);
    }
    for (const [temporary, final] of renames) await rename(temporary, final);
  } catch (error) {
    await Promise.all(renames.map(([temporary]) => rm(temporary, { force: true })));
    throw error;
  }
  return toFieldCounts(counts);
};
