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

/** How far one move of the clock may go forward: the live demo fills in every day it passes. */
export const MAX_CLOCK_STEP_SECONDS = 10 * 366 * 86_400;

export const ClockSetRequestSchema = Type.Object(
  {
    // A day alone as `larder clock set` and `?since=` take one (dayOrDateTime).
    now: Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })], {
      description:
        'The time to jump to, as a date-time or a day alone (YYYY-MM-DD: its midnight UTC): backwards too, forwards at most 10 years (3,660 days) past what the clock says now.',
    }),
    frozen: Type.Optional(Type.Boolean({ description: 'Stop time there (default false: it runs on).' })),
  },
  { title: 'ClockSetRequest', ...Closed },
);
export type ClockSetRequest = Static<typeof ClockSetRequestSchema>;

export const ClockAdvanceRequestSchema = Type.Object(
  {
    seconds: Type.Integer({
      minimum: 1,
      maximum: MAX_CLOCK_STEP_SECONDS,
      description: 'How far to move forward (at most 10 years, 3,660 days).',
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
    // Both forms: OAuth's space-separated string, and the list the answer itself shows.
    scopes: Type.Optional(
      Type.Union(
        [
          Type.String({ maxLength: 1000 }),
          Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 }),
        ],
        { description: 'Scopes, space-separated or as a list (default retail.inventory:read).' },
      ),
    ),
  },
  { title: 'NewClientRequest', ...Closed },
);
export type NewClientRequest = Static<typeof NewClientRequestSchema>;

/**
 * One answered request as the request journal keeps it and the integration report judges it. Secrets, tokens
 * and the Authorization value are never kept: a token appears only as its fingerprint.
 */
export const JournalEntrySchema = Type.Object(
  {
    id: Type.String({
      pattern: '^\\d+:\\d+$',
      description:
        "The entry's identity, unique for as long as the server runs, under --workers too: `<journal>:<seq>`, its " +
        "journal named as in `next` (a worker's id, or 0 without --workers). Tell entries apart by it: `seq` " +
        'alone repeats across workers.',
    }),
    seq: Type.Integer({
      description:
        'Order of answering within its journal. Under --workers each worker counts its own, so two entries can ' +
        'share a seq.',
    }),
    time: Type.String({
      format: 'date-time',
      description: 'When the request arrived, on the virtual clock.',
    }),
    timeMs: Type.Number({ description: 'The same, in epoch milliseconds.' }),
    method: Type.String(),
    path: Type.String(),
    operation: Type.Optional(
      Type.String({ description: 'The OpenAPI operation id, when the route has one.' }),
    ),
    status: Type.Integer(),
    code: Type.Optional(
      Type.Union([Type.Integer(), Type.String()], {
        description: 'The ErrorMessage code, or the RFC 6749 error of the token endpoint.',
      }),
    ),
    durationMs: Type.Number(),
    clientId: Type.Optional(Type.String({ description: 'The client the request was made by or for.' })),
    location: Type.Optional(
      Type.String({
        description:
          'The Platform-Restaurant-External-ID header, as sent: its bytes read as UTF-8 when they are UTF-8 ' +
          '(curl), else as Latin-1 (fetch).',
      }),
    ),
    requestId: Type.String(),
    fault: Type.Optional(
      Type.String({
        description:
          'The injected fault, if any: the rule id (or header) and the effect (rule-1 status=503).',
      }),
    ),
    body: Type.Optional(
      Type.Unknown({
        description:
          'Search requests: the JSON body as sent; left out when its JSON is over 2,048 characters.',
      }),
    ),
    pageToken: Type.Optional(Type.String()),
    pageSize: Type.Optional(Type.Integer()),
    hasNextPage: Type.Optional(Type.Boolean({ description: 'Search answers: whether a next page exists.' })),
    tokenFingerprint: Type.Optional(
      Type.String({ description: 'A short fingerprint of the bearer token used, or of the token issued.' }),
    ),
    tokenExpiresAtMs: Type.Optional(
      Type.Number({ description: 'Token requests: when the issued token expires (virtual epoch ms).' }),
    ),
    retryAfterSeconds: Type.Optional(
      Type.Integer({ description: '429 answers: the Retry-After they gave.' }),
    ),
  },
  { title: 'JournalEntry', ...Closed },
);

const DroppedSchema = Type.Integer({
  minimum: 0,
  description:
    'Entries (of any client) the journal dropped since it was last cleared: it keeps the newest --journal-size ' +
    'per worker. Not 0, the oldest traffic is missing here; clear the journal before a run, or raise --journal-size.',
});

export const JournalListSchema = Type.Object(
  {
    requests: Type.Array(JournalEntrySchema, { description: 'Oldest first.' }),
    dropped: DroppedSchema,
    next: Type.String({
      description:
        'Where the journal stood, whatever the filter: pass it as `after` to list only the requests recorded since ' +
        '(one `journal:seq` pair per worker).',
    }),
    missed: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'With `after`: requests recorded since that listing that the full journal dropped before this one, so ' +
          'never listed (of any client). Poll more often, or raise --journal-size.',
      }),
    ),
  },
  { title: 'JournalList', ...Closed },
);
export type JournalList = Static<typeof JournalListSchema>;

const SeveritySchema = Type.Union([Type.Literal('error'), Type.Literal('warning'), Type.Literal('info')]);

export const ReportRuleSchema = Type.Object(
  { id: Type.String(), severity: SeveritySchema, title: Type.String(), description: Type.String() },
  { title: 'ReportRule', ...Closed },
);

export const FindingSchema = Type.Object(
  {
    rule: Type.String({ description: 'The id of the rule broken.' }),
    severity: SeveritySchema,
    message: Type.String({ description: 'What happened and what to change, in plain words.' }),
    count: Type.Integer({ description: 'How many times the rule was broken.' }),
    exampleRequestIds: Type.Array(Type.String(), { description: 'A few request ids, oldest first.' }),
  },
  { title: 'Finding', ...Closed },
);

export const IntegrationReportSchema = Type.Object(
  {
    clientId: Type.String(),
    requestsJudged: Type.Integer(),
    dropped: DroppedSchema,
    findings: Type.Array(FindingSchema),
    rules: Type.Array(ReportRuleSchema),
  },
  { title: 'IntegrationReport', ...Closed },
);
export type IntegrationReport = Static<typeof IntegrationReportSchema>;

export const ImportedSchema = Type.Object(
  { imported: Type.Integer({ description: 'Records loaded.' }) },
  { title: 'Imported', ...Closed },
);
export const DeletedLocationSchema = Type.Object(
  { deleted: Type.String({ description: 'The location removed.' }) },
  { title: 'DeletedLocation', ...Closed },
);
export const ResetSchema = Type.Object(
  { reset: Type.Literal(true), clock: ClockViewSchema },
  { title: 'SandboxReset', ...Closed },
);
export const ClearedSchema = Type.Object(
  {
    cleared: Type.Literal(true),
    recording: Type.Boolean({
      description:
        'false when the journal is off (--journal-size 0): nothing was recorded, so nothing was cleared.',
    }),
  },
  { title: 'Cleared', ...Closed },
);
export type Cleared = Static<typeof ClearedSchema>;
const RateLimitWindowSchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, description: 'Requests allowed in one window.' }),
    windowSeconds: Type.Integer({ minimum: 1, description: 'The window, aligned to the (virtual) clock.' }),
    used: Type.Integer({ minimum: 0, description: 'Requests counted in the window now current.' }),
    remaining: Type.Integer({ minimum: 0, description: 'Requests left in it before a 429.' }),
    resetsAt: DateTime({ description: 'When the current window ends, on the virtual clock.' }),
  },
  { title: 'RateLimitWindow', ...Closed },
);

const RateLimitCountSchema = Type.Object(
  {
    clientId: Type.Optional(
      Type.String({ description: 'Retail requests count per client and location: the client.' }),
    ),
    location: Type.Optional(
      Type.String({ description: 'And the location (Platform-Restaurant-External-ID).' }),
    ),
    sourceAddress: Type.Optional(
      Type.String({
        description:
          'Login and token requests count per source address (X-Forwarded-For with --trust-proxy).',
      }),
    ),
    windows: Type.Array(RateLimitWindowSchema, { description: 'One per limit, in the order of `limits`.' }),
  },
  { title: 'RateLimitCount', ...Closed },
);

export const RateLimitStateSchema = Type.Object(
  {
    limits: Type.Array(
      Type.Object(
        { limit: Type.Integer({ minimum: 1 }), windowSeconds: Type.Integer({ minimum: 1 }) },
        { title: 'RateLimitPolicy', ...Closed },
      ),
      { description: "The server's --rate-limit; empty when it is off." },
    ),
    counted: Type.Array(RateLimitCountSchema, {
      description:
        "Every client and location, and every source address, with requests counted in a current window: retail first, by client id (each client's locations in the order first counted), then addresses in the order first counted.",
    }),
    more: Type.Integer({
      minimum: 0,
      description: 'How many more were counted than are listed (at most 1,000 are).',
    }),
  },
  { title: 'RateLimitState', ...Closed },
);
export type RateLimitState = Static<typeof RateLimitStateSchema>;

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
