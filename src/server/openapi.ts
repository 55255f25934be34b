import { type TSchema, Type } from '@sinclair/typebox';
import { LOGIN_PATH } from '../auth/auth-service.js';
import { TOKEN_ENDPOINT_PATH } from '../auth/oauth-token-route.js';
import { AuthenticationRequestSchema, AuthenticationResponseSchema } from '../auth/schemas.js';
import { ErrorMessageSchema } from '../http/error-message.js';
import { RECORD_KINDS } from '../records/kinds.js';
import {
  ClockAdvanceRequestSchema,
  ClockSetRequestSchema,
  ClockViewSchema,
  LocationChartsSchema,
  LocationsOverviewSchema,
  NewClientRequestSchema,
} from '../sandbox/admin-schemas.js';
import { DEFAULT_CHART_DAYS, MAX_CHART_DAYS } from '../sandbox/console-data.js';
import { FaultRulesSchema, FaultRulesStateSchema } from '../sandbox/fault-schemas.js';
import { DEFAULT_PAGE_SIZE, LOCATION_HEADER, MAX_BODY_BYTES, MAX_PAGE_SIZE } from '../shared/limits.js';

/**
 * The OpenAPI 3.1 document, derived from the same TypeBox schemas that validate requests and imports
 * (OpenAPI 3.1 schemas are JSON Schema, so they are used as they are).
 */
const json = (schema: TSchema | { $ref: string }) => ({ 'application/json': { schema } });

// Type.Recursive names the schema with a generated $id ("T0") and refers to itself by that id, which OpenAPI
// tools (Prism among them) try to open as a file: the document keeps it in components, self-referenced by pointer.
const ERROR_MESSAGE_REF = '#/components/schemas/ErrorMessage';
const { $id, ...errorMessageSchema } = JSON.parse(
  JSON.stringify(ErrorMessageSchema).replaceAll(
    `"$ref":${JSON.stringify(ErrorMessageSchema.$id)}`,
    `"$ref":${JSON.stringify(ERROR_MESSAGE_REF)}`,
  ),
) as TSchema;
const error = (description: string) => ({ description, content: json({ $ref: ERROR_MESSAGE_REF }) });

const retailParameters = [
  {
    name: LOCATION_HEADER,
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: 'Identifier of the location whose retail information is queried.',
  },
];
const pagingParameters = [
  {
    name: 'pageToken',
    in: 'query',
    required: false,
    schema: { type: 'string' },
    description: 'Token of the page to return.',
  },
  {
    name: 'pageSize',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
    description: 'Larder extension: records per page.',
  },
];
const retailErrors = {
  '400': error('Invalid header, identifier, body, or page token.'),
  '401': error('No valid access token.'),
  '403': error('Token lacks the scope, or the location is not granted.'),
  '500': error('Internal server error.'),
};
const security = [{ oauth2: ['retail.inventory:read'] }, { bearer: [] }];

const search = (operationId: string, request: TSchema, response: TSchema) => ({
  post: {
    operationId,
    security,
    parameters: [...retailParameters, ...pagingParameters],
    requestBody: { required: true, content: json(request) },
    responses: {
      '200': { description: 'A page of results.', content: json(response) },
      ...retailErrors,
      '413': error(`Body over ${MAX_BODY_BYTES / 1024} KiB.`),
      '415': error('Body not sent as application/json.'),
    },
  },
});

const getById = (operationId: string, param: string, record: TSchema) => ({
  get: {
    operationId,
    security,
    parameters: [
      ...retailParameters,
      { name: param, in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
    ],
    responses: {
      '200': { description: 'The record.', content: json(record) },
      ...retailErrors,
      '404': error('No such record at this location.'),
    },
  },
});

const SANDBOX_TAG = 'sandbox';
const adminSecurity = [{ admin: [] }];
const adminErrors = {
  '400': error('A field of the request is not valid (fieldName names it).'),
  '401': error('The admin token is missing or wrong.'),
};
const anyJson = (description: string) => ({
  description,
  content: json({ type: 'object' } as unknown as TSchema),
});
const admin = (
  operationId: string,
  summary: string,
  options: { request?: TSchema; answer?: TSchema; answerDescription?: string; parameters?: unknown[] } = {},
) => ({
  operationId,
  summary,
  tags: [SANDBOX_TAG],
  security: adminSecurity,
  ...(options.parameters === undefined ? {} : { parameters: options.parameters }),
  ...(options.request === undefined
    ? {}
    : { requestBody: { required: true, content: json(options.request) } }),
  responses: {
    '200':
      options.answer === undefined
        ? anyJson(options.answerDescription ?? 'Done.')
        : { description: options.answerDescription ?? 'Done.', content: json(options.answer) },
    ...adminErrors,
  },
});
const locationParameter = { name: 'locationId', in: 'path', required: true, schema: { type: 'string' } };
const queryParameter = (name: string, description: string) => ({
  name,
  in: 'query',
  required: false,
  schema: { type: 'string' },
  description,
});

/** The sandbox controls (src/sandbox/admin-routes.ts), under their own tag. */
const adminPaths = () => ({
  '/_larder/clock': {
    get: admin('getClock', 'The virtual clock', { answer: ClockViewSchema }),
    put: admin('setClock', 'Jump to a time, optionally frozen', {
      request: ClockSetRequestSchema,
      answer: ClockViewSchema,
    }),
    delete: admin('resetClock', 'Back to real time', { answer: ClockViewSchema }),
  },
  '/_larder/clock/advance': {
    post: admin('advanceClock', 'Move the clock forward (the live demo catches up first)', {
      request: ClockAdvanceRequestSchema,
      answer: ClockViewSchema,
    }),
  },
  '/_larder/requests': {
    get: admin('listRequests', 'The request journal, oldest first', {
      answerDescription: '{"requests": [...]}',
      parameters: [
        queryParameter('clientId', 'Only this client.'),
        queryParameter('location', 'Only this location.'),
        queryParameter('operation', 'Only this operation id.'),
        queryParameter('status', 'A status (429) or class (4xx).'),
        queryParameter('since', 'Entries at or after this ISO date-time (virtual).'),
        queryParameter('limit', 'At most this many, the newest.'),
      ],
    }),
    delete: admin('clearRequests', 'Clear the request journal'),
  },
  '/_larder/report': {
    get: admin('getReport', "Judge a client's recorded traffic", {
      answerDescription: '{"clientId", "requestsJudged", "findings": [...], "rules": [...]}',
      parameters: [{ ...queryParameter('clientId', 'The client to judge.'), required: true }],
    }),
  },
  '/_larder/faults': {
    get: admin('getFaults', 'The fault rules in force, with their counters', {
      answer: FaultRulesStateSchema,
    }),
    put: admin('setFaults', 'Replace the fault rules (counters start again)', {
      request: FaultRulesSchema,
      answer: FaultRulesStateSchema,
    }),
    delete: admin('clearFaults', 'Remove every fault rule', { answer: FaultRulesStateSchema }),
  },
  '/_larder/clients': {
    post: admin('createClient', 'Create a client; its secret is answered once', {
      request: NewClientRequestSchema,
      answerDescription: 'The client, with clientSecret.',
    }),
  },
  '/_larder/reset': {
    post: admin('resetSandbox', 'Back to the first-start demo state (409 unless a demo database)'),
  },
  '/_larder/locations/{locationId}': {
    delete: admin('deleteLocation', 'Remove a location and its records', { parameters: [locationParameter] }),
  },
  ...Object.fromEntries(
    RECORD_KINDS.map((kind) => [
      `/_larder/locations/{locationId}/${kind.name}`,
      {
        post: admin(
          `load${kind.name[0]!.toUpperCase()}${kind.name.slice(1)}`,
          `Load ${kind.countLabel}, all or nothing`,
          {
            request: Type.Array(kind.schema),
            answerDescription: '{"imported": N}',
            parameters: [locationParameter],
          },
        ),
      },
    ]),
  ),
  ...consolePaths(),
});

/** The console's reads (src/sandbox/console-data.ts and the retail reads without a client token). */
const consolePaths = () => ({
  '/_larder/locations': {
    get: admin('listLocationsOverview', 'Locations with record counts and modifiedDate spans', {
      answer: LocationsOverviewSchema,
    }),
  },
  '/_larder/locations/{locationId}/charts': {
    get: admin('getLocationCharts', 'Stock of one item over time, and spend per supplier per week', {
      answer: LocationChartsSchema,
      parameters: [
        locationParameter,
        queryParameter(
          'days',
          `The window, in days back from the virtual now (1–${MAX_CHART_DAYS}, default ${DEFAULT_CHART_DAYS}).`,
        ),
        queryParameter('itemVersionId', 'The item to chart (default: the one with the most entries).'),
      ],
    }),
  },
  ...Object.fromEntries(
    RECORD_KINDS.flatMap((kind): [string, Record<string, ReturnType<typeof admin>>][] => {
      const Name = `${kind.name[0]!.toUpperCase()}${kind.name.slice(1)}`;
      return [
        [
          `/_larder/locations/{locationId}/${kind.name}/search`,
          {
            post: admin(
              `adminSearch${Name}`,
              `Search ${kind.countLabel} of any location, as the retail API does`,
              {
                request: kind.searchSchema,
                answer: kind.pageSchema,
                parameters: [
                  locationParameter,
                  queryParameter('pageToken', 'The nextPageToken of the previous page.'),
                  queryParameter('pageSize', 'Records per page (1–500, default 100).'),
                ],
              },
            ),
          },
        ],
        [
          `/_larder/locations/{locationId}/${kind.name}/{${kind.idParam}}`,
          {
            get: admin(`adminGet${Name}`, `One ${kind.label} of any location`, {
              answer: kind.schema,
              parameters: [
                locationParameter,
                {
                  name: kind.idParam,
                  in: 'path',
                  required: true,
                  schema: { type: 'string', format: 'uuid' },
                },
              ],
            }),
          },
        ],
      ];
    }),
  ),
});

export const openApiDocument = (publicUrl: string) => ({
  openapi: '3.1.0',
  info: { title: 'Larder retail and authentication API', version: '1.0.0' },
  servers: [{ url: publicUrl }],
  paths: {
    [LOGIN_PATH]: {
      post: {
        operationId: 'authenticationLoginPost',
        security: [],
        requestBody: { required: true, content: json(AuthenticationRequestSchema) },
        responses: {
          '200': { description: 'Authenticated.', content: json(AuthenticationResponseSchema) },
          '400': error('Invalid body (userAccessType must be PLATFORM_MACHINE_CLIENT).'),
          '401': error('Client credentials not valid.'),
          '429': error('Too many failed logins; see Retry-After.'),
        },
      },
    },
    ...(Object.fromEntries(
      RECORD_KINDS.flatMap((kind) => [
        [`/v1/${kind.name}/search`, search(kind.operations.search, kind.searchSchema, kind.pageSchema)],
        [`/v1/${kind.name}/{${kind.idParam}}`, getById(kind.operations.get, kind.idParam, kind.schema)],
      ]),
    ) as Record<string, Record<string, { operationId: string }>>),
    ...adminPaths(),
  },
  tags: [
    {
      name: SANDBOX_TAG,
      description:
        'Sandbox controls under /_larder/: present only when the server has an admin token (--admin-token, or a demo database). Authorize with Authorization: Bearer <admin token>.',
    },
  ],
  components: {
    schemas: { ErrorMessage: errorMessageSchema },
    securitySchemes: {
      oauth2: {
        type: 'oauth2',
        flows: {
          clientCredentials: {
            tokenUrl: TOKEN_ENDPOINT_PATH,
            scopes: {
              'retail:read': 'Read access to retail information for integration partners.',
              'retail.inventory:read': 'Read purchase orders and inventory history.',
            },
          },
        },
      },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      admin: { type: 'http', scheme: 'bearer', description: 'The admin token (sandbox controls only).' },
    },
  },
});
