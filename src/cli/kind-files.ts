import { RECORD_KINDS, type RecordKind, type RecordKindName } from '../records/kinds.js';
import type { OptionTable, ParsedArgs } from './command.js';

/** The file flag of each record kind, as `import` and `export` take them. */
const FLAGS: Record<RecordKindName, string> = {
  purchaseOrders: 'purchase-orders',
  inventoryHistory: 'inventory-history',
};

/** One `--<kind> FILE` option per record kind, described by `describe`. */
export const kindFileOptions = (describe: (kind: RecordKind) => string): OptionTable =>
  Object.fromEntries(
    RECORD_KINDS.map((kind) => [
      FLAGS[kind.name],
      { type: 'string', placeholder: 'FILE', description: describe(kind) },
    ]),
  );

/** The files given, by kind name. */
export const kindFiles = (args: ParsedArgs): Partial<Record<RecordKindName, { path: string }>> =>
  Object.fromEntries(
    RECORD_KINDS.flatMap((kind) => {
      const path = args.strings[FLAGS[kind.name]];
      return path === undefined ? [] : [[kind.name, { path }]];
    }),
  );

/** The flag a kind's file is given by: --purchase-orders. */
export const kindFlag = (kind: RecordKindName): string => `--${FLAGS[kind]}`;
