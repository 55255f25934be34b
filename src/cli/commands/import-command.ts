import { formatProblem, importFiles } from '../../import/import-files.js';
import { LOCATION_ID, LOCATION_ID_RULE, MAX_RECORD_BYTES } from '../../shared/limits.js';
import { type Command, requiredOption, STORE_OPTIONS, UsageError } from '../command.js';
import { kindFileOptions, kindFiles, kindFlag } from '../kind-files.js';
import { createProgress } from '../progress.js';
import { withStore } from '../store-options.js';

export const importCommand: Command = {
  name: 'import',
  summary:
    'Load purchase orders and inventory history (interface JSON shapes) into one location, all or nothing.',
  usage: 'larder import --location ID [--name NAME] [--purchase-orders FILE] [--inventory-history FILE]',
  options: {
    ...STORE_OPTIONS,
    location: {
      type: 'string',
      placeholder: 'ID',
      description: 'Location id (created if it does not exist).',
    },
    name: { type: 'string', placeholder: 'NAME', description: 'Location display name (default: the id).' },
    ...kindFileOptions((kind) => `${kind.schema['title']} records: a JSON array or NDJSON (- for stdin).`),
  },
  notes:
    'Every record is validated; if any is invalid nothing is stored and each problem is printed as\n' +
    'FILE:LINE field.path: message (first 50), LINE being the line of the field itself. A file with no records,\n' +
    `an id repeated within a file, a file that cannot be read (FILE:0), or a record longer than ${MAX_RECORD_BYTES / 2 ** 20} MiB is a\n` +
    'problem too. A file of the other kind is told first, naming the flag to give it with (FILE:0 (file): looks\n' +
    'like purchase orders, not inventory entries: give it with --purchase-orders), also after the first 50\n' +
    'problems of a file given before it. Records are upserted by id within the location.',
  run: async (args, io) => {
    const locationId = requiredOption(args, 'location');
    if (!LOCATION_ID.test(locationId)) {
      throw new UsageError(`--location must be ${LOCATION_ID_RULE}.`);
    }
    const files = kindFiles(args);
    const given = Object.values(files);
    if (given.length === 0)
      throw new UsageError('Give --purchase-orders FILE, --inventory-history FILE, or both.');
    if (given.filter((file) => file.path === '-').length > 1)
      throw new UsageError('Only one file can be read from stdin.');
    const name = args.strings['name'];
    const progress = createProgress(io, 'records');
    const started = performance.now();
    const result = await withStore(
      args,
      (store) =>
        importFiles(store, {
          locationId,
          ...(name === undefined ? {} : { locationName: name }),
          ...files,
          exclusive: true,
          refuseEmpty: true,
          giveAs: (kind) => `give it with ${kindFlag(kind.name)}`,
          onProgress: progress.update,
        }),
      (outcome) => !outcome.committed,
    );
    progress.done();
    if (!result.committed) {
      for (const problem of result.problems) io.stderr(`${formatProblem(problem)}\n`);
      io.stderr(
        `${result.truncated ? `Stopped after ${result.problems.length} problems` : `${result.problems.length} problem(s)`}; nothing was imported.\n`,
      );
      return 1;
    }
    const seconds = (performance.now() - started) / 1000;
    const { purchaseOrders: orders, inventoryEntries: entries } = result.counts;
    io.stdout(
      `Imported ${orders} purchase orders and ${entries} inventory history entries into ${locationId} in ${seconds.toFixed(1)} s.\n`,
    );
    return 0;
  },
};
