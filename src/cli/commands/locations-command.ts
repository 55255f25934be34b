import { RECORD_KINDS } from '../../records/kinds.js';
import { type Command, STORE_OPTIONS, UsageError } from '../command.js';
import { withStore } from '../store-options.js';

export const locationsCommand: Command = {
  name: 'locations',
  takesArguments: true,
  actions: { list: [] },
  defaultAction: 'list',
  summary: 'List locations with their record counts.',
  usage: 'larder locations list [--json]',
  options: {
    ...STORE_OPTIONS,
    json: {
      type: 'boolean',
      description: 'Print a JSON array of {id, name, createdAt, purchaseOrders, inventoryEntries}.',
    },
  },
  run: async (args, io) => {
    const [, ...rest] = args.positionals;
    if (rest.length > 0)
      throw new UsageError(`Unexpected argument '${rest[0]}': larder locations list takes none.`);
    const locations = await withStore(args, (store) => store.locations.list(), undefined, {
      readsOnly: true,
    });
    if (args.flags['json']) {
      io.stdout(`${JSON.stringify(locations, null, 2)}\n`);
      return 0;
    }
    if (locations.length === 0) {
      io.stdout('No locations yet. Load some with `larder import` or `larder seed`.\n');
      return 0;
    }
    const rows = [
      ['ID', 'NAME', ...RECORD_KINDS.map((kind) => kind.countLabel.toUpperCase())],
      ...locations.map((l) => [l.id, l.name, ...RECORD_KINDS.map((kind) => String(l[kind.countField]))]),
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
    for (const row of rows)
      io.stdout(
        `${row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
      );
    return 0;
  },
};
