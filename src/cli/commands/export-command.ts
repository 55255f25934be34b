import { fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import {
  ExportStoppedError,
  type ExportTarget,
  ExportTargetError,
  exportLocation,
  type SentRecords,
  sharedTarget,
} from '../../export/export-location.js';
import { describeCounts, RECORD_KINDS, type RecordKindName } from '../../records/kinds.js';
import { type Command, requiredOption, STORE_OPTIONS, UsageError } from '../command.js';
import { kindFileOptions, kindFiles, kindFlag } from '../kind-files.js';
import { createProgress } from '../progress.js';
import { withStore } from '../store-options.js';

export const exportCommand: Command = {
  name: 'export',
  summary: "Write a location's records as NDJSON that `larder import` reads back to the same records.",
  usage: 'larder export --location ID [--purchase-orders FILE] [--inventory-history FILE]',
  options: {
    ...STORE_OPTIONS,
    location: { type: 'string', placeholder: 'ID', description: 'The location to export.' },
    ...kindFileOptions((kind) => `Write its ${kind.countLabel} here, as NDJSON (- for stdout).`),
  },
  notes:
    'One record per line, exactly as the API serves it, ordered by modifiedDate then id. Files appear only\n' +
    "once the export is complete (an existing file is replaced; a symlink's target is, the link stays). A\n" +
    'device, FIFO or descriptor (/dev/null, /dev/stdout) is written directly as the export goes, appending.\n' +
    'Each kind needs a target of its own, whatever the spelling (a symlink, a hard link, ./a and a, - and\n' +
    '/dev/stdout): one file would keep only the kind written last, and one stream (stdout, a FIFO) would\n' +
    'carry both kinds in a row, which import cannot take apart. Only /dev/null takes both; for one stream,\n' +
    'export each kind in a run of its own. A kind with no records makes an empty file, which import\n' +
    'refuses: export says so. A reader that stops early (| head) ends it quietly, exit code 0, unless a kind\n' +
    'was bound for a file: that file is then never written, which export says, naming its flag, exit code 1.\n' +
    'Ctrl-C (exit code 130) or SIGTERM (143) stops it at once, even while a FIFO or piped stdout waits for\n' +
    'its reader to open it or to read on (the code stays, however the reader then ends), and says what each\n' +
    'target holds: no file was written, but what went to a device, FIFO or stdout stays sent. It reads the\n' +
    'database directly.',
  run: async (args, io) => {
    const locationId = requiredOption(args, 'location');
    const files = kindFiles(args);
    if (Object.keys(files).length === 0)
      throw new UsageError('Give --purchase-orders FILE, --inventory-history FILE, or both.');
    const progress = createProgress(io, 'records');
    // Ctrl-C stops the export cleanly (no temporary file left); a second one kills it at once. Listened for from
    // the start: the targets are looked at first, and a Ctrl-C then must not kill the process outright.
    const interrupt = new AbortController();
    let signal: NodeJS.Signals | undefined;
    const stop = (received: NodeJS.Signals) => {
      signal = received;
      interrupt.abort();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const output = Object.values(files).some((file) => file.path === '-') ? pipedStdout() : undefined;
    try {
      const shared = await sharedTarget(files);
      if (shared !== undefined) {
        const [first, second] = shared.kinds.map((kind) => `${kindFlag(kind)} ${files[kind]?.path}`);
        throw new UsageError(
          `${first} and ${second} both write to ${shared.what}: ${
            shared.file
              ? 'the kind written second would replace the first. Give each kind its own file.'
              : '`larder import` could not read the kinds back from one stream (it takes one kind per file). Only /dev/null takes several kinds; to send both down one stream, run export once for each.'
          }`,
        );
      }
      const counts = await withStore(
        args,
        (store) =>
          exportLocation(store, {
            locationId,
            ...withOutput(files, output),
            onProgress: progress.update,
            signal: interrupt.signal,
          }),
        undefined,
        { readsOnly: true },
      );
      progress.done();
      // Only the kinds asked for: "0 inventory entries" for one not exported would read as the location holding none.
      const exported = RECORD_KINDS.filter((kind) => files[kind.name] !== undefined);
      io.stderr(`Exported ${describeCounts(counts, exported)} from ${locationId}.\n`);
      // Refusing an empty file is deliberate (a truncated or wrong file is the likelier cause), so the round trip
      // of a kind with no records needs telling.
      for (const kind of RECORD_KINDS) {
        const target = files[kind.name];
        if (target === undefined || counts[kind.countField] > 0) continue;
        const flag = kindFlag(kind.name);
        io.stderr(
          `${flag} ${target.path}: empty, as ${locationId} has no ${kind.countLabel}. \`larder import\` refuses an empty file (there it is most likely a mistake): leave ${flag} out when importing.\n`,
        );
      }
      return 0;
    } catch (error) {
      progress.done();
      if (interrupt.signal.aborted) {
        const terminated = signal === 'SIGTERM';
        const stopped = `larder export: ${terminated ? 'stopped (SIGTERM)' : 'interrupted'}`;
        io.stderr(describeStop(stopped, files, error instanceof ExportStoppedError ? error.sent : []));
        return terminated ? 143 : 130;
      }
      if (!(error instanceof ExportTargetError)) throw error;
      const target = `${kindFlag(error.kind)} ${error.path}`;
      if (error.errno === 'EPIPE') {
        // A reader that stops early (`larder export … - | head`, or through /dev/stdout or a FIFO) is how a stream
        // is cut short on purpose: quiet, as Unix tools are, unless it cost a file, which then never appears.
        if (error.unwritten.length === 0) return 0;
        const files = error.unwritten.map((file) => `${kindFlag(file.kind)} ${file.path}`).join(' and ');
        io.stderr(
          `larder export: ${target}: its reader stopped early, so the export stopped and ${files} ${
            error.unwritten.length === 1 ? 'was' : 'were'
          } not written (a file appears only once the whole export is done).\n`,
        );
        return 1;
      }
      // Standard output written through process.stdout (a file, a device) fails through its error too, which
      // bin/larder.js reports in one line for every command (ENOSPC).
      if (error.path === '-' && output === undefined) return 1;
      io.stderr(`larder export: ${target}: ${describeWriteError(error)}\n`);
      return 1;
    } finally {
      output?.destroy();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  },
};

/**
 * Standard output as a handle of the export's own when it is a pipe or socket (`larder export … - | slow-reader`),
 * as a FIFO target is written: a write held for a reader that stopped reading must not keep the process alive past
 * a Ctrl-C, and process.stdout cannot be destroyed. libuv never closes descriptors 0 to 2, so destroying this one
 * leaves fd 1 open. Anything else (a file, a terminal, a device) never holds a write back: process.stdout.
 */
const pipedStdout = (): Socket | undefined => {
  try {
    const stats = fstatSync(1);
    if (!stats.isFIFO() && !stats.isSocket()) return undefined;
    const socket = new Socket({ fd: 1, readable: false });
    // Its error also fails the pending write, which reports it; unheard, it would crash.
    socket.on('error', () => {});
    return socket;
  } catch {
    return undefined;
  }
};

/** The targets, `-` writing to `output` when there is one. */
const withOutput = (
  files: ReturnType<typeof kindFiles>,
  output: Socket | undefined,
): Partial<Record<RecordKindName, ExportTarget>> =>
  output === undefined
    ? files
    : Object.fromEntries(
        Object.entries(files).map(([kind, file]) => [kind, file.path === '-' ? { ...file, output } : file]),
      );

/**
 * What a stop left, target by target: a file appears only once the whole export is done, so none did; what went to
 * a device, FIFO or standard output, written as the export goes, stays sent.
 */
const describeStop = (
  stopped: string,
  files: ReturnType<typeof kindFiles>,
  sent: readonly SentRecords[],
): string => {
  if (sent.every((target) => target.records === 0 && !target.cut))
    return `${stopped}; nothing was written.\n`;
  const lines = RECORD_KINDS.flatMap((kind) => {
    const file = files[kind.name];
    if (file === undefined) return [];
    const target = sent.find((each) => each.kind === kind.name);
    const records = target?.records ?? 0;
    let what = records === 0 ? 'nothing written' : `${records} ${kind.countLabel} sent`;
    if (target?.cut === true)
      what =
        records === 0
          ? `part of the ${kind.countLabel} sent (the last line may be cut short)`
          : `${what}, then part of the next ones (the last line may be cut short)`;
    return [`  ${kindFlag(kind.name)} ${file.path}: ${what}\n`];
  });
  return `${stopped}. What went to a device, FIFO or standard output stays sent:\n${lines.join('')}`;
};

const describeWriteError = (error: ExportTargetError): string => {
  if (error.errno === 'ENOENT') return 'cannot write it: its directory does not exist. Nothing was written.';
  if (error.errno === 'EISDIR') return 'cannot write it: it is a directory. Nothing was written.';
  const written = error.partlyWritten
    ? 'What was written before stays (a device or FIFO is written as the export goes).'
    : 'Nothing was written.';
  return `cannot write it (${(error.cause as Error).message}). ${written}`;
};
