import { resolve } from 'node:path';
import { ExportTargetError, exportLocation } from '../../export/export-location.js';
import { describeCounts, RECORD_KINDS } from '../../records/kinds.js';
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
    'A kind with no records makes an empty file, which import refuses: export says so. It reads the database\n' +
    'directly.',
  run: async (args, io) => {
    const locationId = requiredOption(args, 'location');
    const files = kindFiles(args);
    const given = Object.values(files);
    if (given.length === 0)
      throw new UsageError('Give --purchase-orders FILE, --inventory-history FILE, or both.');
    if (given.filter((file) => file.path === '-').length > 1)
      throw new UsageError('Only one file can be written to stdout.');
    // One file for both kinds would end up holding only the kind renamed into place last.
    const [first, second] = given;
    if (
      first !== undefined &&
      second !== undefined &&
      first.path !== '-' &&
      resolve(first.path) === resolve(second.path)
    )
      throw new UsageError(
        `--purchase-orders and --inventory-history name the same file (${first.path}): give each kind its own.`,
      );
    const progress = createProgress(io, 'records');
    // Ctrl-C stops the export cleanly (no temporary file left); a second one kills it at once.
    const interrupt = new AbortController();
    const stop = () => interrupt.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      const counts = await withStore(
        args,
        (store) =>
          exportLocation(store, {
            locationId,
            ...files,
            onProgress: progress.update,
            signal: interrupt.signal,
          }),
        undefined,
        { readsOnly: true },
      );
      progress.done();
      io.stderr(`Exported ${describeCounts(counts)} from ${locationId}.\n`);
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
        io.stderr('larder export: interrupted; no file was written.\n');
        return 130;
      }
      if (!(error instanceof ExportTargetError)) throw error;
      // Standard output failing is reported once, for every command, by bin/larder.js: quietly when the reader
      // stopped early (`larder export … - | head`), as Unix tools do; in one line otherwise (ENOSPC).
      if (error.path === '-') return error.errno === 'EPIPE' ? 0 : 1;
      // The same reader gone early through a pipe named as a file (/dev/stdout, a FIFO).
      if (error.errno === 'EPIPE') return 0;
      io.stderr(`larder export: ${kindFlag(error.kind)} ${error.path}: ${describeWriteError(error)}\n`);
      return 1;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  },
};

const describeWriteError = (error: ExportTargetError): string => {
  if (error.errno === 'ENOENT') return 'cannot write it: its directory does not exist. Nothing was written.';
  if (error.errno === 'EISDIR') return 'cannot write it: it is a directory. Nothing was written.';
  const written = error.partlyWritten
    ? 'What was written before stays (a device or FIFO is written as the export goes).'
    : 'Nothing was written.';
  return `cannot write it (${(error.cause as Error).message}). ${written}`;
};
