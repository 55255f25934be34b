import { type Static, Type } from '@sinclair/typebox';
import { RECORD_KINDS } from '../records/kinds.js';
import { AdjustmentTypeSchema } from '../records/schemas.js';
import { Closed, DateTime, Nullable, Uuid } from '../shared/schema-helpers.js';

/** The admin API's request and answer shapes: validation, types and (later) the OpenAPI document. */

export const ClockViewSchema = Type.Object(
  {
    now: Type.String({ format: 'date-time', description: 'The virtual time.' }),
    offsetSeconds: Type.Integer({ description: 'Virtual time minus real time, in whole seconds.' }),
    frozen: Type.Boolean({ description: 'True while time stands still.' }),
  },
  { title: 'ClockView', ...Closed },
);

export const ClockSetRequestSchema = Type.Object(
  {
    now: Type.String({ format: 'date-time', description: 'The time to jump to (backwards too).' }),
    frozen: Type.Optional(Type.Boolean({ description: 'Stop time there (default false: it runs on).' })),
  },
  { title: 'ClockSetRequest', ...Closed },
);
export type ClockSetRequest = Static<typeof ClockSetRequestSchema>;

export const ClockAdvanceRequestSchema = Type.Object(
  {
    seconds: Type.Integer({
      minimum: 1,
      maximum: 10 * 366 * 86_400,
      description: 'How far to move forward.',
    }),
  },
  { title: 'ClockAdvanceRequest', ...Closed },
);
export type ClockAdvanceRequest = Static<typeof ClockAdvanceRequestSchema>;

export const NewClientRequestSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    locations: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 10_000 })),
    allLocations: Type.Optional(Type.Boolean()),
    scopes: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'Space-separated scopes (default retail.inventory:read).',
      }),
    ),
  },
  { title: 'NewClientRequest', ...Closed },
);
export type NewClientRequest = Static<typeof NewClientRequestSchema>;

/** The console's reads (src/sandbox/console-data.ts): each shape once, for validation, types and OpenAPI. */

const KindSpanSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 0, description: 'Records of this kind at the location.' }),
    firstModifiedDate: Nullable(DateTime({ description: 'The earliest modifiedDate (null: no records).' })),
    lastModifiedDate: Nullable(DateTime({ description: 'The latest modifiedDate (null: no records).' })),
  },
  { title: 'LocationKindSpan', ...Closed },
);

export const LocationOverviewSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    createdAt: DateTime(),
    records: Type.Object(Object.fromEntries(RECORD_KINDS.map((kind) => [kind.name, KindSpanSchema])), {
      description: 'Per record kind: how many, and the span of their modifiedDate.',
      ...Closed,
    }),
  },
  { title: 'LocationOverview', ...Closed },
);
export type LocationOverview = Static<typeof LocationOverviewSchema>;

export const LocationsOverviewSchema = Type.Object(
  { locations: Type.Array(LocationOverviewSchema) },
  { title: 'LocationsOverview', ...Closed },
);

export const StockPointSchema = Type.Object(
  {
    at: DateTime({ description: "The entry's createdDate." }),
    quantityOnHand: Type.Number(),
    adjustmentType: AdjustmentTypeSchema,
    inventoryHistoryLogId: Uuid(),
  },
  { title: 'StockPoint', ...Closed },
);

export const ChartItemSchema = Type.Object(
  {
    itemVersionId: Uuid(),
    name: Nullable(Type.String({ description: "From the window's purchase orders; null if none names it." })),
    entries: Type.Integer({ minimum: 0, description: 'Inventory entries in the window.' }),
  },
  { title: 'ChartItem', ...Closed },
);

export const SupplierSpendSchema = Type.Object(
  {
    supplierId: Uuid(),
    name: Type.String(),
    weekly: Type.Array(Type.Number(), { description: 'Spend per week, aligned with `weeks`.' }),
    total: Type.Number(),
  },
  { title: 'SupplierSpend', ...Closed },
);

export const LocationChartsSchema = Type.Object(
  {
    locationId: Type.String(),
    from: DateTime({ description: 'Start of the window (inclusive).' }),
    to: DateTime({ description: 'End of the window: the virtual now.' }),
    truncated: Type.Boolean({
      description:
        'True when the window held more records than one chart request reads (the oldest are shown).',
    }),
    items: Type.Array(ChartItemSchema, { description: 'Items with inventory entries, most entries first.' }),
    stock: Nullable(
      Type.Object(
        {
          itemVersionId: Uuid(),
          name: Nullable(Type.String()),
          points: Type.Array(StockPointSchema),
        },
        { title: 'StockSeries', description: 'Quantity on hand over time for one item.', ...Closed },
      ),
    ),
    spend: Type.Object(
      {
        weeks: Type.Array(Type.String({ format: 'date', description: 'Monday (UTC) starting the week.' })),
        suppliers: Type.Array(SupplierSpendSchema),
      },
      {
        title: 'SpendByWeek',
        description:
          'totalCost of purchase orders created in the window, except DRAFT and VOIDED ones, per supplier per week.',
        ...Closed,
      },
    ),
  },
  { title: 'LocationCharts', ...Closed },
);
export type LocationCharts = Static<typeof LocationChartsSchema>;
