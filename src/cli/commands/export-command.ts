import { resolve } from 'node:path';
import { exportLocation } from '../../export/export-location.js';
import { describeCounts } from '../../records/kinds.js';
import { type Command, requiredOption, STORE_OPTIONS, UsageError } from '../command.js';
import { kindFileOptions, kindFiles } from '../kind-files.js';
import { createProgress } from '../progress.js';
import { withStore } from '../store-options.js';

export const exportCommand: Command = {
  name: 'export',
  summary: "Write a location's records as NDJSON that `larder import` reads back byte for byte.",
  usage: 'larder export --location ID [--purchase-orders FILE] [--inventory-history FILE]',
  options: {
    ...STORE_OPTIONS,
    location: { type: 'string', placeholder: 'ID', description: 'The location to export.' },
    ...kindFileOptions((kind) => `Write its ${kind.countLabel} here, as NDJSON (- for stdout).`),
  },
  notes:
    'One record per line, exactly as the API serves it, ordered by modifiedDate then id. Files appear only\n' +
    'once the export is complete (an existing file is replaced). It reads the database directly.',
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
    const counts = await withStore(
      args,
      (store) =>
        exportLocation(store, {
          locationId,
          ...files,
          onProgress: progress.update,
        }),
      undefined,
      { readsOnly: true },
    );
    progress.done();
    io.stderr(`Exported ${describeCounts(counts)} from ${locationId}.\n`);
    return 0;
  },
};
