import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../records/schemas.js';
import { Closed, Patterned } from '../shared/schema-helpers.js';
import {
  FAULT_EFFECT_TYPES,
  FAULT_STATUSES,
  type FaultEffectType,
  type FaultStatus,
  MAX_FAULT_LATENCY_MS,
  MAX_SLOW_BODY_BYTES_PER_SECOND,
  MIN_SLOW_BODY_BYTES_PER_SECOND,
} from './fault-vocabulary.js';
import { OPERATION_IDS } from './journal-entry.js';

/**
 * The fault rules: one schema for the `--faults FILE` format, `PUT /_larder/faults`, the `Larder-Fault` header
 * (parsed into an effect), validation, the types and the OpenAPI `sandbox` tag.
 */

export const MAX_FAULT_RULES = 100;

export { FAULT_EFFECT_TYPES, FAULT_STATUSES, type FaultEffectType, type FaultStatus, MAX_FAULT_LATENCY_MS };

const Ms = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_FAULT_LATENCY_MS, description });

/** Ajv's strict mode wants required fields declared beside `required` (their types are the object's). */
const requires = (fields: string[]) => ({
  required: fields,
  properties: Object.fromEntries(fields.map((field) => [field, {}])),
});

/** A field an effect type needs: Ajv then names it ("effect.status is required"). */
const needs = (type: FaultEffectType, fields: string[]) => ({
  if: { properties: { type: { const: type } }, required: ['type'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword.
  then: requires(fields),
});

export const FaultEffectSchema = Type.Object(
  {
    type: Type.Unsafe<FaultEffectType>(
      Type.String({
        enum: [...FAULT_EFFECT_TYPES],
        description:
          'status: an error answer; latency: added delay; reset: the connection is reset before any byte; ' +
          'cutBody: the body stops halfway and the connection closes; slowBody: the body trickles at ' +
          'bytesPerSecond; invalidToken: 401 invalid_token for a valid access token (retail API only); ' +
          'badPageToken: 400 for a valid pageToken (searches only).',
      }),
    ),
    status: Type.Optional(
      Type.Unsafe<FaultStatus>(
        Type.Integer({
          enum: [...FAULT_STATUSES],
          description: 'type status: the HTTP status answered with an ErrorMessage.',
        }),
      ),
    ),
    retryAfterSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86_400,
        description: 'type status 429 or 503: the Retry-After sent (default 1 for 429, none for 503).',
      }),
    ),
    distribution: Type.Optional(
      Type.Unsafe<'fixed' | 'uniform' | 'logNormal'>(
        Type.String({
          enum: ['fixed', 'uniform', 'logNormal'],
          description:
            'type latency: fixed (ms, the default), uniform (minMs..maxMs) or logNormal (medianMs, sigma).',
        }),
      ),
    ),
    ms: Type.Optional(Ms('type latency, fixed: the delay.')),
    minMs: Type.Optional(Ms('type latency, uniform: the least delay.')),
    maxMs: Type.Optional(Ms('type latency, uniform: the greatest delay.')),
    medianMs: Type.Optional(Ms('type latency, logNormal: the median delay (capped at 120 s).')),
    sigma: Type.Optional(
      Type.Number({ minimum: 0, maximum: 5, description: 'type latency, logNormal: the spread (ln scale).' }),
    ),
    bytesPerSecond: Type.Optional(
      Type.Integer({
        minimum: MIN_SLOW_BODY_BYTES_PER_SECOND,
        maximum: MAX_SLOW_BODY_BYTES_PER_SECOND,
        description: 'type slowBody: how fast the body is sent.',
      }),
    ),
  },
  {
    title: 'FaultEffect',
    ...Closed,
    allOf: [
      needs('status', ['status']),
      {
        if: {
          properties: { type: { const: 'latency' }, distribution: { const: 'uniform' } },
          required: ['type', 'distribution'],
        },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword.
        then: requires(['minMs', 'maxMs']),
      },
      {
        if: {
          properties: { type: { const: 'latency' }, distribution: { const: 'logNormal' } },
          required: ['type', 'distribution'],
        },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword.
        then: requires(['medianMs', 'sigma']),
      },
      {
        if: {
          properties: { type: { const: 'latency' }, distribution: { enum: ['fixed'] } },
          required: ['type'],
        },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword.
        then: requires(['ms']),
      },
      needs('slowBody', ['bytesPerSecond']),
    ],
  },
);
export type FaultEffect = Static<typeof FaultEffectSchema>;

export const FaultMatchSchema = Type.Object(
  {
    // An enum, so a misspelt id is a 400 listing the right ones, not a rule that never fires.
    operation: Type.Optional(StringEnum(OPERATION_IDS, 'An operation id.')),
    clientId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "The client: a retail request's access token, or a token request's Basic credentials.",
      }),
    ),
    location: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'The Platform-Restaurant-External-ID header, as the journal shows it: its bytes read as UTF-8 when ' +
          'they are UTF-8 (curl), else as Latin-1 (fetch).',
      }),
    ),
    method: Type.Optional(
      Patterned('^[A-Za-z]{1,10}$', 'a method name of 1 to 10 letters (GET, HEAD or POST, any case)', {
        description: 'GET, HEAD or POST (any case): the methods the API answers.',
      }),
    ),
    pathPrefix: Type.Optional(
      Patterned('^/', 'a path starting with /', {
        maxLength: 500,
        description:
          "Paths starting with this. Not Larder's own (/_larder, /docs, /console, /openapi.json, /healthz, /readyz): they are never faulted.",
      }),
    ),
  },
  { title: 'FaultMatch', description: 'Every field given must match; none given: every request.', ...Closed },
);
export type FaultMatch = Static<typeof FaultMatchSchema>;

export const FaultWhenSchema = Type.Object(
  {
    probability: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1,
        description: 'Each matching request, with this probability (0 would never fire).',
      }),
    ),
    next: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: 'The next N matching requests, then no more.',
      }),
    ),
    every: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Every Nth matching request (N, 2N, …).' }),
    ),
  },
  {
    title: 'FaultWhen',
    description: 'Exactly one of probability, next, every. Absent: every matching request.',
    minProperties: 1,
    maxProperties: 1,
    ...Closed,
  },
);
export type FaultWhen = Static<typeof FaultWhenSchema>;

/** A fault rule's id: in the rule, and in the path that removes it (DELETE /_larder/faults/{ruleId}). */
export const FaultRuleId = (options: { description?: string } = {}) =>
  Patterned(
    '^[\\w.:-]{1,100}$',
    "1 to 100 characters, each an ASCII letter, a digit, '_', '.', ':' or '-'",
    options,
  );

export const FaultRuleSchema = Type.Object(
  {
    id: Type.Optional(
      FaultRuleId({ description: 'A name for the rule (default rule-1, rule-2, … by position).' }),
    ),
    match: Type.Optional(FaultMatchSchema),
    when: Type.Optional(FaultWhenSchema),
    effect: FaultEffectSchema,
    seed: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 4_294_967_295,
        description: 'Makes probability and latency draws the same sequence on every run.',
      }),
    ),
  },
  { title: 'FaultRule', ...Closed },
);
export type FaultRule = Static<typeof FaultRuleSchema>;

export const FaultRulesSchema = Type.Object(
  {
    rules: Type.Array(FaultRuleSchema, {
      maxItems: MAX_FAULT_RULES,
      description: 'In order: the first rule that fires for a request applies its effect.',
    }),
  },
  { title: 'FaultRules', ...Closed },
);
export type FaultRules = Static<typeof FaultRulesSchema>;

export const FaultRuleStateSchema = Type.Object(
  {
    ...FaultRuleSchema.properties,
    id: Type.String(),
    matched: Type.Integer({ description: 'Requests this rule matched so far.' }),
    applied: Type.Integer({ description: 'Requests it applied its effect to.' }),
  },
  { title: 'FaultRuleState', ...Closed },
);
export type FaultRuleState = Static<typeof FaultRuleStateSchema>;

export const FaultRulesStateSchema = Type.Object(
  { rules: Type.Array(FaultRuleStateSchema) },
  { title: 'FaultRulesState', ...Closed },
);
export type FaultRulesState = Static<typeof FaultRulesStateSchema>;
