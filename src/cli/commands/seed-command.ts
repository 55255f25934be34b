import { describeCounts, totalCount } from '../../records/kinds.js';
import { endOfDate, SEED_DEFAULTS } from '../../seed/options.js';
import { seedStore } from '../../seed/seed-store.js';
import { type Command, intOption, STORE_OPTIONS, UsageError } from '../command.js';
import { withStore } from '../store-options.js';

export const seedCommand: Command = {
  name: 'seed',
  summary: 'Generate realistic, deterministic purchasing and inventory history for demo locations.',
  usage:
    'larder seed [--locations 3] [--days 180] [--suppliers 12] [--items 150] [--orders-per-week 25] [--seed 42] [--end-date YYYY-MM-DD]',
  options: {
    ...STORE_OPTIONS,
    locations: {
      type: 'string',
      default: String(SEED_DEFAULTS.locations),
      placeholder: 'N',
      description: 'Locations to generate.',
    },
    days: {
      type: 'string',
      default: String(SEED_DEFAULTS.days),
      placeholder: 'N',
      description: 'Days of history per location.',
    },
    suppliers: {
      type: 'string',
      default: String(SEED_DEFAULTS.suppliers),
      placeholder: 'N',
      description: 'Suppliers per location.',
    },
    items: {
      type: 'string',
      default: String(SEED_DEFAULTS.items),
      placeholder: 'N',
      description: 'Catalog items per location.',
    },
    'orders-per-week': {
      type: 'string',
      default: String(SEED_DEFAULTS.ordersPerWeek),
      placeholder: 'N',
      description: 'Purchase orders per week per location.',
    },
    seed: {
      type: 'string',
      default: String(SEED_DEFAULTS.seed),
      placeholder: 'N',
      description: 'Random seed: same flags, same records.',
    },
    'end-date': {
      type: 'string',
      placeholder: 'YYYY-MM-DD',
      description: 'Last day of history (UTC; default yesterday). Give it to reproduce a run on another day.',
    },
  },
  notes:
    'Each location is written in one transaction; re-running with the same flags replaces the same records.',
  run: async (args, io) => {
    const endDate = args.strings['end-date'];
    if (endDate !== undefined) {
      // The generator checks the date too, but names its option (endDate), not the flag.
      try {
        endOfDate(endDate);
      } catch {
        throw new UsageError(`--end-date must be a calendar date YYYY-MM-DD, not ${endDate}.`);
      }
    }
    const options = {
      locations: intOption(args, 'locations', 1, 1000),
      days: intOption(args, 'days', 1, 7320),
      suppliers: intOption(args, 'suppliers', 1, 1000),
      items: intOption(args, 'items', 1, 100_000),
      ordersPerWeek: intOption(args, 'orders-per-week', 0, 10_000_000),
      seed: intOption(args, 'seed', 0, 2 ** 32 - 1),
      ...(endDate === undefined ? {} : { endDate }),
    };
    let records = 0;
    const result = await withStore(args, async (store) => {
      try {
        return await seedStore(store, {
          ...options,
          exclusive: true,
          onLocation: (location) => {
            records += totalCount(location);
            io.stdout(
              `${location.id}  ${location.name}: ${describeCounts(location)} (${(location.ms / 1000).toFixed(1)} s)\n`,
            );
          },
        });
      } catch (error) {
        if (error instanceof RangeError) throw new UsageError(error.message);
        throw error;
      }
    });
    const seconds = result.ms / 1000;
    io.stdout(
      `Seeded ${result.locations.length} location(s) through ${result.options.endDate} in ${seconds.toFixed(1)} s (${Math.round(records / Math.max(seconds, 0.001)).toLocaleString('en-US')} records/s).\n`,
    );
    return 0;
  },
};
