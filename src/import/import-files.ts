import type { Readable } from 'node:stream';
import {
  type FieldCounts,
  RECORD_KINDS,
  type RecordKind,
  type RecordKindName,
  toFieldCounts,
  zeroCounts,
} from '../records/kinds.js';
import type { Store } from '../storage/store.js';
import {
  addTally,
  type BatchProblem,
  type ConvertedBatch,
  type KindTally,
  strayKind,
} from './convert-batch.js';
import { createRecordConverter } from './record-converter.js';
import { openInput, RecordSyntaxError, readRecords } from './record-stream.js';

export interface ImportProblem {
  file: string;
  line: number;
  /** The record's index in its file (0-based), when the problem is one record's. */
  record?: number;
  fieldName: string;
  message: string;
}

export interface ImportSource {
  /** Shown in problems; `-` reads standard input. */
  path: string;
  /** Defaults to opening `path`. */
  input?: Readable;
  /** What the input is called in problems of the whole input: `(file)`, "the file ends …". Default `file`. */
  noun?: string;
}

/** One source per kind, under the kind's name (purchaseOrders, inventoryHistory), imported in RECORD_KINDS order. */
export interface ImportOptions extends Partial<Record<RecordKindName, ImportSource>> {
  locationId: string;
  locationName?: string;
  /** Stop after this many problems (default 50); a later file of another kind is still told, past them. */
  maxProblems?: number;
  /** Nothing else uses the store meanwhile: SQLite may write without its WAL (see ImportSessionOptions). */
  exclusive?: boolean;
  /** Called at most every batch with the records read so far. */
  onProgress?: (records: number) => void;
  /** The longest record, in UTF-8 bytes (default MAX_RECORD_BYTES); a longer one is a problem at its line. */
  maxRecordBytes?: number;
  /** A source with no records is a problem (the CLI: an empty file is a mistake); else it imports nothing. */
  refuseEmpty?: boolean;
  /**
   * How the caller takes a file of `kind`, ending the problem that says a file looks like another kind's:
   * `give it with --purchase-orders`. Default `give it as purchaseOrders` (this option's key).
   */
  giveAs?: (kind: RecordKind) => string;
}

export interface ImportResult {
  committed: boolean;
  /** Records stored, by each kind's countField. */
  counts: FieldCounts;
  problems: ImportProblem[];
  /** True when reading stopped at maxProblems, so more problems may exist. */
  truncated: boolean;
}

const BATCH = 1000;
/**
 * Ids remembered per file to report repeats (~100 bytes each): a repeated id would silently replace the earlier
 * record. Beyond this many records a file's later repeats are upserted unchecked, so memory stays bounded.
 */
const MAX_TRACKED_IDS = 1_000_000;
/** Batches handed to the converter ahead of the one being written: enough to keep the worker busy. */
const AHEAD = 3;

/**
 * Imports records in the interface's shapes into one location, all or nothing: every record is validated, and
 * a single problem anywhere rolls the whole run back. Files stream, so memory stays bounded by the batch size.
 */
export const importFiles = async (store: Store, options: ImportOptions): Promise<ImportResult> => {
  const maxProblems = options.maxProblems ?? 50;
  const giveAs = options.giveAs ?? ((kind: RecordKind) => `give it as ${kind.name}`);
  const problems: ImportProblem[] = [];
  let truncated = false;
  let read = 0;
  // A database that ever held imported data is not a demo one, even once that data is deleted; one whose kind is
  // decided keeps it. Read before anything is written, and the demo client only for a database from before kinds
  // were recorded: its secret may be sealed, and import runs without the key-encryption key.
  const markPlain =
    (await store.settings.databaseKind.get()) === undefined &&
    (await store.settings.demoClient.get()) === undefined;
  const session = await store.records.beginImport(
    {
      id: options.locationId,
      ...(options.locationName === undefined ? {} : { name: options.locationName }),
    },
    { exclusive: options.exclusive ?? false },
  );

  const load = async (source: ImportSource, kind: RecordKind) => {
    const noun = source.noun ?? 'file';
    const report = (problem: BatchProblem) => {
      problems.push({ file: source.path, ...problem });
      if (problems.length >= maxProblems) truncated = true;
    };
    // SQLite writes on this thread, so converting in a worker overlaps with it (purchase orders 15.3k → 16.4-17.4k/s,
    // inventory entries 61-66k → 82-90k/s; 25k/s on a 100k-order file). PostgreSQL's writes already run in its
    // own process, which needs the second core: there the worker measured slightly slower.
    const converter = createRecordConverter({ inWorker: store.capabilities.writesOnMainThread });
    // Batches being converted, oldest first, with their records' lines; their answers are taken in order.
    const converting: { pending: Promise<ConvertedBatch>; lines: number[]; first: number }[] = [];
    // What the records of the batches taken so far look like, until a file of another kind, or mixing kinds, is said.
    const tally: KindTally = { own: 0, others: {} };
    let strayTold = false;
    // The file is of the other kind: that one problem is all it gets, as its records' problems would bury it.
    let wrongKind = false;
    // Records of this file whose kind was judged. Past the problem limit (an earlier file's problems may have
    // reached it) a file is still read until its first batch is judged, and no further: a file of the other kind
    // is said even then, at the cost of one batch.
    let judged = 0;
    const settled = () => wrongKind || (truncated && (strayTold || judged >= BATCH));
    const seen = new Map<string, number>();
    const repeats = (records: ConvertedBatch['records'], lines: number[], first: number): boolean => {
      let found = false;
      records.forEach((record, i) => {
        const id = record.id.toLowerCase();
        const line = lines[i] ?? 0;
        const earlier = seen.get(id);
        if (earlier !== undefined) {
          found = true;
          if (!truncated)
            report({
              line,
              record: first + i,
              fieldName: kind.idField,
              message: `repeats the id of the record at line ${earlier} (${record.id}); each id may appear once per file`,
            });
        } else if (seen.size < MAX_TRACKED_IDS) seen.set(id, line);
      });
      return found;
    };
    let texts: string[] = [];
    let lines: number[] = [];
    let inFile = 0;
    // One batch is written while the next ones are read and converted.
    let writing: Promise<void> = Promise.resolve();
    const takeOldest = async () => {
      const batch = converting.shift()!;
      const { records, problems: found, tally: kinds } = await batch.pending;
      if (!strayTold) addTally(tally, kinds);
      judged = batch.first + batch.lines.length;
      const stray = found.length === 0 || strayTold ? undefined : strayKind(tally, judged);
      // Said once: before the problems it explains, or, of a file of the other kind, alone.
      if (stray !== undefined) {
        strayTold = true;
        wrongKind = !stray.mixed;
        report({
          line: 0,
          fieldName: `(${noun})`,
          message: stray.mixed
            ? `mixes ${stray.kind.countLabel} in with ${kind.countLabel} (the first at line ${stray.line}): a ${noun} holds one kind; move those to a ${noun} of their own and ${giveAs(stray.kind)}`
            : `looks like ${stray.kind.countLabel}, not ${kind.countLabel}: ${giveAs(stray.kind)}`,
        });
      }
      if (wrongKind) return;
      for (const problem of found) {
        if (truncated) break;
        report(problem);
      }
      if (repeats(records, batch.lines, batch.first) || problems.length > 0 || records.length === 0) return;
      await writing;
      writing = session.put(kind, records);
      // Awaited before the next write and at the end; until then it must not count as an unhandled rejection.
      writing.catch(() => {});
      options.onProgress?.(read);
    };
    const drain = async () => {
      while (converting.length > 0 && !settled()) await takeOldest();
    };
    const convert = async () => {
      if (texts.length === BATCH) converter.prepare();
      const first = inFile - texts.length;
      const pending = converter.convert({ kind: kind.name, texts, lines, first });
      pending.catch(() => {});
      converting.push({ pending, lines, first });
      texts = [];
      lines = [];
      // Past the problem limit nothing is written: a batch is only judged, at once, so no more than one is read.
      if (converting.length > AHEAD || truncated) await takeOldest();
    };
    /** Converts the records read and not yet converted, then takes every batch in turn. */
    const finish = async () => {
      if (texts.length > 0 && !settled()) await convert();
      await drain();
    };
    try {
      for await (const raw of readRecords(
        source.input ?? openInput(source.path),
        noun,
        options.maxRecordBytes,
      )) {
        if (settled()) return;
        read++;
        inFile++;
        texts.push(raw.text);
        lines.push(raw.line);
        if (texts.length === BATCH) await convert();
      }
      await finish();
      if (inFile === 0 && options.refuseEmpty === true && !truncated)
        report({
          line: 0,
          fieldName: `(${noun})`,
          message: 'holds no records (an empty file or an empty array)',
        });
    } catch (error) {
      if (error instanceof RecordSyntaxError) {
        // Problems in the records before it come first, as they do in the file: those read since the last full batch
        // too (a file of the other kind whose last record is cut off is told so).
        await finish();
        if (!truncated && !wrongKind)
          report({ line: error.line, fieldName: `(${noun})`, message: error.message });
        return;
      }
      throw error;
    } finally {
      await converter.close();
      await writing;
    }
    options.onProgress?.(read);
  };

  try {
    for (const kind of RECORD_KINDS) {
      const source = options[kind.name];
      if (source !== undefined) await load(source, kind);
    }
  } catch (error) {
    await session.rollback();
    throw error;
  }
  if (problems.length > 0) {
    await session.rollback();
    return { committed: false, counts: toFieldCounts(zeroCounts()), problems, truncated };
  }
  const counts = toFieldCounts(await session.commit());
  if (markPlain) await store.settings.databaseKind.ensure('plain');
  return { committed: true, counts, problems, truncated };
};

export const formatProblem = (problem: ImportProblem): string =>
  `${problem.file}:${problem.line} ${problem.fieldName}: ${problem.message}`;
