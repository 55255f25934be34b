import { fstatSync, type Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { formatProblem, importFiles } from '../../import/import-files.js';
import type { RecordKindName } from '../../records/kinds.js';
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
    'problem too. A file of the other kind is that one problem, naming the flag to give it with (FILE:0 (file):\n' +
    'looks like purchase orders, not inventory entries: give it with --purchase-orders), also after the first 50\n' +
    'problems of a file given before it; one file given for both kinds is refused (exit code 2). Records are\n' +
    'upserted by id within the location.',
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
    await refuseOneFileTwice(files);
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

/** What `path` opens (`-`: standard input), or undefined when it cannot be stat'ed: the import says why. */
const statOf = async (path: string): Promise<Stats | undefined> => {
  try {
    return path === '-' ? fstatSync(0) : await stat(path);
  } catch {
    return undefined;
  }
};

/**
 * One file given for both kinds (`po.ndjson` and `./po.ndjson`, a link to it, `-` and `/dev/stdin`) can hold only
 * one of them, so importing it would end in a page of field problems for the other (or, for standard input, an
 * empty second file); said up front, as export does for its targets.
 */
const refuseOneFileTwice = async (files: ReturnType<typeof kindFiles>): Promise<void> => {
  const given = Object.entries(files);
  if (given.length < 2) return;
  const [a, b] = await Promise.all(given.map(([, file]) => statOf(file.path)));
  if (a === undefined || b === undefined || a.dev !== b.dev || a.ino !== b.ino) return;
  const [first, second] = given.map(([kind, file]) => `${kindFlag(kind as RecordKindName)} ${file.path}`);
  const named = given.find(([, file]) => file.path !== '-');
  const where =
    named === undefined ? 'standard input' : await realpath(named[1].path).catch(() => named[1].path);
  throw new UsageError(
    `${first} and ${second} are the same ${a.isFile() ? 'file' : 'input'} (${where}): a file holds one kind. Give each kind its own file.`,
  );
};
