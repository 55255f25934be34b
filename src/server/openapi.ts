import type { TSchema } from '@sinclair/typebox';
import { LOGIN_PATH } from '../auth/auth-service.js';
import { JWKS_PATH, METADATA_PATH, pathSuffixedMetadataPath } from '../auth/metadata.js';
import { TOKEN_ENDPOINT_PATH } from '../auth/oauth-token-route.js';
import {
  AuthenticationRequestSchema,
  AuthenticationResponseSchema,
  AuthorizationServerMetadataSchema,
  ClientCredentialsSchema,
  JsonWebKeySetSchema,
  type OAuthErrorCode,
  OAuthErrorSchema,
  OAuthTokenRequestSchema,
  OAuthTokenResponseSchema,
} from '../auth/schemas.js';
import { RETAIL_INVENTORY_READ, RETAIL_READ } from '../auth/scopes.js';
import { ErrorMessageSchema } from '../http/error-message.js';
import { RECORD_KINDS, type RecordKind } from '../records/kinds.js';
import {
  ClearedSchema,
  ClockAdvanceRequestSchema,
  ClockSetRequestSchema,
  ClockViewSchema,
  DeletedLocationSchema,
  ImportedSchema,
  IntegrationReportSchema,
  JournalListSchema,
  LocationChartsSchema,
  LocationsOverviewSchema,
  NewClientRequestSchema,
  RateLimitStateSchema,
  ResetSchema,
} from '../sandbox/admin-schemas.js';
import { DEFAULT_CHART_DAYS, MAX_CHART_DAYS } from '../sandbox/console-data.js';
import {
  FaultRuleId,
  FaultRuleSchema,
  FaultRulesSchema,
  FaultRulesStateSchema,
} from '../sandbox/fault-schemas.js';
import { OPERATIONS } from '../sandbox/journal-entry.js';
import { ERROR_CATALOG, type ErrorCode } from '../shared/errors.js';
import {
  ADMIN_PREFIX,
  DEFAULT_PAGE_SIZE,
  LOCATION_HEADER,
  LOCATION_ID,
  LOCATION_ID_RULE,
  MAX_BODY_BYTES,
  MAX_PAGE_SIZE,
} from '../shared/limits.js';
import {
  CONSOLE_PATH,
  DOCS_PATH,
  HEALTH_PATH,
  isLarderOwnPath,
  OPENAPI_PATH,
  READY_PATH,
} from '../shared/own-paths.js';
import { Patterned } from '../shared/schema-helpers.js';
import { DOCS_ASSETS, DOCS_ASSETS_PATH } from './docs-paths.js';
import { ApiIndexSchema, HealthSchema, ReadinessSchema } from './meta-schemas.js';
import { demoExamples } from './openapi-examples.js';

/**
 * The OpenAPI 3.1 document, derived from the same TypeBox schemas that validate requests and imports (OpenAPI
 * 3.1 schemas are JSON Schema, so they are used as they are). Every titled object schema becomes a named
 * component (`#/components/schemas/<title>`), so generators (openapi-typescript) name the types; the paths are
 * looped from RECORD_KINDS; the error table is ERROR_CATALOG. test/server/openapi-*.test.ts validate it, lint
 * it and hold every response of the HTTP tests to it.
 */

const SCHEMA_PREFIX = '#/components/schemas/';
const ERROR_MESSAGE = 'ErrorMessage';

type Json = Record<string, unknown>;

/** An operation as the document holds it (the tools reading it need no more than this). */
export interface OperationObject {
  tags: string[];
  operationId: string;
  summary: string;
  description: string;
  security?: unknown[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}
export type PathItem = Record<string, OperationObject>;

/** Collects the named schemas met while the paths are built; `use` answers a reference to one. */
const createComponents = () => {
  const schemas: Record<string, unknown> = {};
  // Type.Recursive names ErrorMessage with a generated $id ("T0") and refers to itself by it, which OpenAPI
  // tools try to open as a file: the component refers to itself by pointer instead.
  const recursiveId = ErrorMessageSchema.$id;
  const lift = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(lift);
    if (node === null || typeof node !== 'object') return node;
    const object = node as Json;
    if (object['$ref'] === recursiveId) return { $ref: `${SCHEMA_PREFIX}${ERROR_MESSAGE}` };
    const lifted: Json = {};
    for (const [key, value] of Object.entries(object))
      if (key !== '$id') lifted[key] = key === 'examples' || key === 'default' ? value : lift(value);
    const title = object['title'];
    if (typeof title !== 'string' || object['type'] !== 'object') return lifted;
    const known = schemas[title];
    if (known === undefined) schemas[title] = lifted;
    else if (JSON.stringify(known) !== JSON.stringify(lifted))
      throw new Error(`Two different schemas are titled ${title}`);
    return { $ref: `${SCHEMA_PREFIX}${title}` };
  };
  return {
    schemas,
    use: (schema: TSchema | Json): Json => lift(JSON.parse(JSON.stringify(schema))) as Json,
  };
};

/** The ErrorMessage codes, as a Markdown table (the document's description and docs/api.md). */
export const ERROR_CODE_TABLE = [
  '| HTTP | code | name | meaning |',
  '|---|---|---|---|',
  ...Object.entries(ERROR_CATALOG).map(
    ([name, entry]) =>
      `| ${entry.status} | ${entry.numericCode} | \`${name}\` | ${entry.message.replaceAll('<', '&lt;').replaceAll('>', '&gt;')} |`,
  ),
].join('\n');

const DESCRIPTION = `Larder serves an **authentication API** that issues bearer access tokens (JWT) and a read-only
**retail API** with purchase orders and inventory history, one location at a time, plus (in sandbox mode) the
sandbox controls under \`/_larder/\`.

**Authorize:** obtain a token with client credentials, either \`POST ${LOGIN_PATH}\` (JSON) or the OAuth 2.0
token endpoint \`POST ${TOKEN_ENDPOINT_PATH}\` (form), then send \`Authorization: Bearer <token>\` and the
location in \`${LOCATION_HEADER}\`.

**Errors:** every error answer is an \`ErrorMessage\` with a stable numeric \`code\` and the \`requestId\` (also in the
\`X-Request-Id\` header), except the OAuth token endpoint's, which follow RFC 6749 (\`OAuthError\`).

${ERROR_CODE_TABLE}`;

const TAGS = [
  { name: 'authentication', description: 'Client credentials in, bearer access tokens (JWT) out.' },
  {
    name: 'retail',
    description: `Purchase orders and inventory history of one location (the ${LOCATION_HEADER} header).`,
  },
  {
    name: 'sandbox',
    description:
      'Sandbox controls under /_larder/: present only when the server has an admin token (--admin-token, or a demo database). Authorize with `Authorization: Bearer <admin token>`. Never reachable cross-origin.',
  },
  { name: 'server', description: 'Health, readiness, this document and the reference page.' },
];

/** Reusable response headers. The rate-limit ones are sent only with `--rate-limit` (retail and token routes). */
const HEADERS = {
  'X-Request-Id': {
    description:
      'The id of this request: the caller’s own X-Request-Id when it is sane, else a new UUID. Also in every error body.',
    required: true,
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Whole seconds to wait before asking again.',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'WWW-Authenticate': {
    description: 'The authentication challenge (RFC 6750 Bearer, or Basic on the token endpoint).',
    schema: { type: 'string' },
  },
  /** WWW-Authenticate on a retail 401, which always says why (decisions: RFC 6750 `error="invalid_token"`). */
  BearerChallenge: {
    description: 'The RFC 6750 challenge: Bearer with error="invalid_token" and, when known, why.',
    required: true,
    schema: { type: 'string', pattern: '^Bearer .*error="invalid_token"' },
  },
  /** WWW-Authenticate on an admin API 401. */
  AdminChallenge: {
    description: 'The challenge for the admin token: Bearer realm="larder-admin".',
    required: true,
    schema: { type: 'string', pattern: '^Bearer realm="larder-admin"' },
  },
  Allow: { description: 'The methods this path takes.', required: true, schema: { type: 'string' } },
  'Content-Length': {
    description: 'The length of the body the same GET would answer.',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  RateLimit: {
    description:
      'IETF RateLimit fields (sent with --rate-limit-headers ietf or both): the closest limit’s remaining requests and seconds to reset.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description:
      'IETF RateLimit policies (sent with --rate-limit-headers ietf or both): every limit in force.',
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the closest window (the platform’s convention, sent by default).',
    schema: { type: 'string' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the closest window.',
    schema: { type: 'string' },
  },
  'X-RateLimit-Reset': {
    description: 'When the closest window resets (Unix seconds).',
    schema: { type: 'string' },
  },
} as const;
type HeaderName = keyof typeof HEADERS;
const headerRefs = (names: readonly HeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const RATE_LIMIT_HEADERS: readonly HeaderName[] = [
  'RateLimit',
  'RateLimit-Policy',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

/**
 * Answers that any route may give: the HTTP server's own (408, 431) and the storage's (503), and 500; and those
 * only a fault rule gives (502, 504), which never reach Larder's own paths.
 */
const SHARED_RESPONSES = {
  RequestTimeout: { status: 408, description: 'The request took too long to arrive (30 s).', headers: [] },
  HeadersTooLarge: { status: 431, description: 'The request headers or URL are too large.', headers: [] },
  Internal: {
    status: 500,
    description: 'Internal server error (logged with the request id).',
    headers: ['X-Request-Id'],
  },
  BadGateway: {
    status: 502,
    description: 'Injected by a sandbox fault rule (behind a proxy: the proxy lost the server).',
    headers: ['X-Request-Id'],
  },
  Unavailable: {
    status: 503,
    description:
      "The database is unavailable, or the server is starting or stopping; retry shortly. On the platform's endpoints (never Larder's own: the admin API, /docs, /healthz …) a sandbox fault rule can answer it too.",
    headers: ['X-Request-Id'],
  },
  GatewayTimeout: {
    status: 504,
    description: 'Injected by a sandbox fault rule (behind a proxy: the server answered too slowly).',
    headers: ['X-Request-Id'],
  },
} as const satisfies Record<string, { status: number; description: string; headers: readonly HeaderName[] }>;
const INJECTED_ONLY: ReadonlySet<string> = new Set<keyof typeof SHARED_RESPONSES>([
  'BadGateway',
  'GatewayTimeout',
]);
const sharedResponseRefs = (injected: boolean) =>
  Object.fromEntries(
    Object.entries(SHARED_RESPONSES)
      .filter(([name]) => INJECTED_ONLY.has(name) === injected)
      .map(([name, response]) => [String(response.status), { $ref: `#/components/responses/${name}` }]),
  );
const everywhereRefs = sharedResponseRefs(false);
const injectedRefs = sharedResponseRefs(true);

const exampleError = (status: number, code: number, message: string, fieldName?: string) => ({
  status: String(status),
  code,
  message,
  ...(fieldName === undefined ? {} : { fieldName }),
  requestId: '5f0c6d5e-8f4e-4c0e-9d55-2b8f3f1f7a10',
  canRetry: status === 429 || status >= 500 ? 'true' : 'false',
});

/**
 * An ErrorMessage answer, with the codes it may carry: `only` those the operation answers with (its schema then
 * allows no other `code`, and the response contract holds every test's answers to it), else every code of the status.
 */
const error = (
  status: number,
  description: string,
  headers: readonly HeaderName[] = [],
  only?: readonly ErrorCode[],
) => {
  const entries =
    only === undefined
      ? Object.values(ERROR_CATALOG).filter((entry) => entry.status === status)
      : only.map((code) => ERROR_CATALOG[code]);
  if (entries.some((entry) => entry.status !== status))
    throw new Error(`An error code listed under ${status} answers another status.`);
  const codes = entries.map((entry) => entry.numericCode);
  const [entry] = entries;
  const reference = { $ref: `${SCHEMA_PREFIX}${ERROR_MESSAGE}` };
  return {
    description: `${description}${codes.length === 0 ? '' : ` ErrorMessage code ${codes.join(' or ')}.`}`,
    headers: headerRefs(['X-Request-Id', ...headers]),
    content: {
      'application/json': {
        schema:
          only === undefined ? reference : { allOf: [reference], properties: { code: { enum: codes } } },
        ...(entry === undefined ? {} : { example: exampleError(status, entry.numericCode, entry.message) }),
      },
    },
  };
};

/** A 401 whose WWW-Authenticate is always sent: the retail Bearer challenge, or the admin API's. */
const challenged = <R extends { headers: Record<string, unknown> }>(
  response: R,
  challenge: 'BearerChallenge' | 'AdminChallenge',
): R => ({
  ...response,
  headers: { ...response.headers, 'WWW-Authenticate': { $ref: `#/components/headers/${challenge}` } },
});

/**
 * HEAD of a GET: the same answers, each with its status and headers, no body, and the Content-Length the GET's
 * body would have (RFC 9110 §9.3.2).
 */
const headOf = (get: OperationObject, operationId: string): OperationObject => ({
  ...get,
  operationId,
  summary: `${get.summary}: headers only`,
  description: `As GET (${get.operationId}) answers, without the body: the same status and headers, Content-Length included.`,
  responses: Object.fromEntries(
    Object.entries(get.responses).map(([status, answer]) => {
      const ref = (answer as { $ref?: string }).$ref;
      const shared =
        ref === undefined
          ? undefined
          : SHARED_RESPONSES[ref.slice(ref.lastIndexOf('/') + 1) as keyof typeof SHARED_RESPONSES];
      const { description, headers } =
        shared === undefined
          ? (answer as { description: string; headers: Json })
          : { description: shared.description, headers: headerRefs(['X-Request-Id', ...shared.headers]) };
      return [status, { description, headers: { ...headers, ...headerRefs(['Content-Length']) } }];
    }),
  ),
});

/**
 * The 405 every documented path answers for a method it takes none of, with Allow naming those it takes (HEAD
 * wherever GET); the admin API asks for its token first.
 */
const methodNotAllowed = (path: string, item: PathItem) => {
  const methods = Object.keys(item).map((method) => method.toUpperCase());
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
  const taken = methods.length === 1 ? methods[0] : `${methods.slice(0, -1).join(', ')} or ${methods.at(-1)}`;
  const admin = path.startsWith(ADMIN_PREFIX) ? ', once the admin token is accepted' : '';
  return error(405, `A method other than ${taken}${admin}.`, ['Allow'], ['ERR_METHOD_NOT_ALLOWED']);
};

const ok = (description: string, schema: Json, example?: unknown, headers: readonly HeaderName[] = []) => ({
  description,
  headers: headerRefs(['X-Request-Id', ...headers]),
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
});

const operation = (
  tag: string,
  operationId: string,
  summary: string,
  description: string,
  rest: Json & { responses: Json },
): OperationObject => {
  const responses: Json = { ...rest.responses };
  for (const [status, response] of Object.entries(everywhereRefs)) responses[status] ??= response;
  return { tags: [tag], operationId, summary, description, ...rest, responses };
};

/** Everything Larder serves, described; `publicUrl` is the server's issuer and base URL. */
export const openApiDocument = (publicUrl: string) => {
  const components = createComponents();
  const { use } = components;
  const example = demoExamples();
  // First, so the error shape leads the components.
  use(ErrorMessageSchema);

  const locationParameter = {
    name: LOCATION_HEADER,
    in: 'header',
    required: true,
    schema: { type: 'string', minLength: 1 },
    description: 'Identifier of the location whose retail information is queried.',
    example: example.location,
  };
  const pagingParameters = [
    {
      name: 'pageToken',
      in: 'query',
      required: false,
      schema: { type: 'string' },
      description:
        'The previous answer’s nextPageToken, for the next page of the same search (same body and pageSize).',
    },
    {
      name: 'pageSize',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
      description: 'Larder extension: records per page.',
    },
  ];
  /** What every JSON POST endpoint (the searches, the login) answers for a wrong size or content type. */
  const jsonPostErrors = {
    '413': error(413, `The body is over ${MAX_BODY_BYTES / 1024} KiB.`, [], ['ERR_BODY_TOO_LARGE']),
    '415': error(
      415,
      'The body was not sent as application/json, or was sent compressed (Content-Encoding; Accept-Encoding names what is taken).',
      [],
      ['ERR_UNSUPPORTED_MEDIA_TYPE'],
    ),
  };
  const retailSecurity = [{ oauth2: [RETAIL_INVENTORY_READ] }, { bearer: [] }];
  // Each retail answer lists the codes that operation gives, no more: 40001 also stands for a malformed
  // Larder-Fault header or request target, which any route may meet.
  const retailErrors = {
    '401': challenged(error(401, 'No valid access token.', [], ['ERR_UNAUTHENTICATED']), 'BearerChallenge'),
    '403': error(
      403,
      'The token lacks the scope, or the location is not granted to the client.',
      ['WWW-Authenticate'],
      ['ERR_INSUFFICIENT_SCOPE', 'ERR_LOCATION_FORBIDDEN'],
    ),
    '429': error(
      429,
      'Over a rate limit (--rate-limit, or a sandbox fault rule); see Retry-After.',
      ['Retry-After', ...RATE_LIMIT_HEADERS],
      ['ERR_RATE_LIMIT_EXCEEDED'],
    ),
  };

  const search = (kind: RecordKind) => ({
    post: operation(
      'retail',
      kind.operations.search,
      `Search ${kind.countLabel}`,
      `A page of the location’s ${kind.countLabel}, oldest change first (modifiedDate, then ${kind.idField}). Send {} for no filter; follow nextPageToken until it is "". Bodies are at most ${MAX_BODY_BYTES / 1024} KiB.`,
      {
        security: retailSecurity,
        parameters: [locationParameter, ...pagingParameters],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: use(kind.searchSchema),
              examples: {
                everything: { summary: 'No filter: everything, oldest change first', value: {} },
                changedSince: {
                  summary: 'Changed on or after 1 June 2025 (a startDate alone: no end)',
                  value: { updatedDateRange: { startDate: '2025-06-01' } },
                },
                changedInJune: {
                  summary: 'Changed in June 2025 (whole UTC days)',
                  value: { updatedDateRange: { startDate: '2025-06-01', endDate: '2025-06-30' } },
                },
              },
            },
          },
        },
        responses: {
          '200': ok('A page of results.', use(kind.pageSchema), undefined, RATE_LIMIT_HEADERS),
          '400': error(
            400,
            'The location header, the body, the page token or pageSize is not valid, or a query parameter is given twice (fieldName names it).',
            [],
            [
              'ERR_VALIDATION',
              'ERR_BODY_NOT_JSON',
              'ERR_LOCATION_HEADER',
              'ERR_PAGE_TOKEN',
              'ERR_QUERY_PARAM',
              'ERR_DATE_RANGE',
            ],
          ),
          ...retailErrors,
          '404': error(404, 'The location is unknown.', [], ['ERR_LOCATION_NOT_FOUND']),
          ...jsonPostErrors,
        },
      },
    ),
  });

  const getById = (kind: RecordKind) => {
    const record = kind === RECORD_KINDS[0] ? example.order : example.entry;
    return {
      get: operation(
        'retail',
        kind.operations.get,
        `Get one ${kind.label}`,
        `The ${kind.label} whose ${kind.idField} is given (a UUID, any letter case), at this location.`,
        {
          security: retailSecurity,
          parameters: [
            locationParameter,
            {
              name: kind.idParam,
              in: 'path',
              required: true,
              schema: { type: 'string', format: 'uuid' },
              description: `The ${kind.idField} of the ${kind.label}.`,
            },
          ],
          responses: {
            '200': ok(`The ${kind.label}.`, use(kind.schema), record, RATE_LIMIT_HEADERS),
            '400': error(
              400,
              `The location header is missing, or the ${kind.idParam} is not a UUID (fieldName names it).`,
              [],
              ['ERR_VALIDATION', 'ERR_LOCATION_HEADER', 'ERR_INVALID_ID'],
            ),
            ...retailErrors,
            '404': error(
              404,
              `No such ${kind.label} at this location, or the location is unknown.`,
              [],
              ['ERR_NOT_FOUND', 'ERR_LOCATION_NOT_FOUND'],
            ),
            '405': error(405, 'A method other than GET or HEAD.', ['Allow'], ['ERR_METHOD_NOT_ALLOWED']),
          },
        },
      ),
    };
  };

  /** An RFC 6749 error answer whose `error` is one of `codes`; the example is the first, as the endpoint words it. */
  const oauthError = (
    description: string,
    codes: readonly [OAuthErrorCode, ...OAuthErrorCode[]],
    exampleDescription: string,
    headers: readonly HeaderName[] = [],
  ) => ({
    description,
    headers: headerRefs(['X-Request-Id', ...headers]),
    content: {
      'application/json': {
        schema: { allOf: [use(OAuthErrorSchema)], properties: { error: { enum: codes } } },
        example: {
          error: codes[0],
          error_description: exampleDescription,
          requestId: '5f0c6d5e-8f4e-4c0e-9d55-2b8f3f1f7a10',
        },
      },
    },
  });

  const metadata = {
    get: operation(
      'authentication',
      'getAuthorizationServerMetadata',
      'Authorization server metadata',
      'RFC 8414 metadata: the issuer, token endpoint, JWKS and what they support.',
      {
        security: [],
        responses: { '200': ok('The metadata.', use(AuthorizationServerMetadataSchema)) },
      },
    ),
  };
  const suffixed = pathSuffixedMetadataPath(publicUrl);

  const authPaths = {
    [LOGIN_PATH]: {
      post: operation(
        'authentication',
        OPERATIONS.login,
        'Log in with client credentials',
        'Exchanges client credentials for a bearer access token (JWT). One token serves every location the client is granted; a login while the current token has more than a minute left returns that same token. Failed logins are throttled per client id and address.',
        {
          security: [],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: use(AuthenticationRequestSchema),
                example: {
                  clientId: 'demo-client-id',
                  clientSecret: 'demo-client-secret',
                  userAccessType: 'PLATFORM_MACHINE_CLIENT',
                },
              },
            },
          },
          responses: {
            '200': ok('Authenticated.', use(AuthenticationResponseSchema)),
            '400': error(
              400,
              'The body is not a JSON object, or not valid (fieldName names it; userAccessType must be PLATFORM_MACHINE_CLIENT).',
              [],
              ['ERR_VALIDATION', 'ERR_BODY_NOT_JSON'],
            ),
            '401': error(401, 'The client credentials are not valid.', [], ['ERR_INVALID_CREDENTIALS']),
            ...jsonPostErrors,
            '429': error(
              429,
              'Too many failed logins for this client id and address (42901), or over a rate limit (--rate-limit, or a sandbox fault rule: 42902); see Retry-After.',
              ['Retry-After', ...RATE_LIMIT_HEADERS],
              ['ERR_RATE_LIMITED', 'ERR_RATE_LIMIT_EXCEEDED'],
            ),
          },
        },
      ),
    },
    [TOKEN_ENDPOINT_PATH]: {
      post: operation(
        'authentication',
        OPERATIONS.oauthToken,
        'OAuth 2.0 token (client credentials)',
        'RFC 6749 §4.4: grant_type=client_credentials, the client authenticated by HTTP Basic (client_secret_basic) or by client_id and client_secret form fields (client_secret_post). Every grant issues a fresh token. Errors are RFC 6749 §5.2 bodies, not ErrorMessage.',
        {
          security: [{ clientBasic: [] }, {}],
          requestBody: {
            required: true,
            content: { 'application/x-www-form-urlencoded': { schema: use(OAuthTokenRequestSchema) } },
          },
          responses: {
            '200': ok('The access token.', use(OAuthTokenResponseSchema), undefined, RATE_LIMIT_HEADERS),
            '400': oauthError(
              'invalid_request, unsupported_grant_type or invalid_scope (RFC 6749 §5.2): the form is not valid, the grant is not client_credentials, or a scope is not granted.',
              ['invalid_request', 'unsupported_grant_type', 'invalid_scope'],
              'grant_type is required',
            ),
            '401': oauthError(
              'invalid_client: client authentication failed.',
              ['invalid_client'],
              'Client authentication failed',
              ['WWW-Authenticate'],
            ),
            '413': oauthError(
              `invalid_request: the body is over ${MAX_BODY_BYTES / 1024} KiB.`,
              ['invalid_request'],
              `The body is over ${MAX_BODY_BYTES / 1024} KiB`,
            ),
            '429': oauthError(
              'temporarily_unavailable: too many failed attempts, or over a rate limit (--rate-limit, or a sandbox fault rule).',
              ['temporarily_unavailable'],
              'Too many failed attempts; retry later',
              ['Retry-After', ...RATE_LIMIT_HEADERS],
            ),
            '405': oauthError(
              'invalid_request: a method other than POST.',
              ['invalid_request'],
              `${TOKEN_ENDPOINT_PATH} takes POST, not GET`,
              ['Allow'],
            ),
            // The body's deadline is the app's (an OAuthError); a request head that never ends is refused by the
            // listener before routing, in the shape every path gets there.
            '408': {
              description: `${SHARED_RESPONSES.RequestTimeout.description} invalid_request when the body did not arrive in time; an ErrorMessage when the request head did not.`,
              headers: headerRefs(['X-Request-Id']),
              content: {
                'application/json': {
                  schema: {
                    anyOf: [
                      {
                        allOf: [use(OAuthErrorSchema)],
                        properties: { error: { enum: ['invalid_request'] } },
                      },
                      { $ref: `${SCHEMA_PREFIX}${ERROR_MESSAGE}` },
                    ],
                  },
                },
              },
            },
            ...Object.fromEntries(
              Object.values(SHARED_RESPONSES)
                .filter((shared) => shared.status >= 500)
                .map((shared) => [
                  String(shared.status),
                  shared.status === 500
                    ? oauthError(
                        `server_error: ${shared.description}`,
                        ['server_error'],
                        'Internal server error',
                      )
                    : oauthError(
                        `temporarily_unavailable: ${shared.description}`,
                        ['temporarily_unavailable'],
                        'The service is unavailable; retry later',
                      ),
                ]),
            ),
          },
        },
      ),
    },
    [METADATA_PATH]: metadata,
    ...(suffixed === undefined
      ? {}
      : {
          [suffixed]: {
            get: { ...metadata.get, operationId: 'getAuthorizationServerMetadataForIssuerPath' },
          },
        }),
    [JWKS_PATH]: {
      get: operation(
        'authentication',
        'getJwks',
        'Token verification keys (JWKS)',
        'The public ES256 keys that verify access tokens, by kid. Cache for a minute.',
        { security: [], responses: { '200': ok('The key set.', use(JsonWebKeySetSchema)) } },
      ),
    },
  };

  const serverPaths = {
    '/': {
      get: operation(
        'server',
        'getIndex',
        'Where everything is',
        'A browser (Accept: text/html) is sent to the reference page; an API client gets links as JSON.',
        {
          security: [],
          responses: {
            '200': ok('Links to the reference, the document and the endpoints.', use(ApiIndexSchema)),
            '302': {
              description: 'To the reference page, for a browser.',
              headers: {
                ...headerRefs(['X-Request-Id']),
                Location: { required: true, schema: { type: 'string' } },
              },
            },
          },
        },
      ),
    },
    [DOCS_PATH]: {
      get: operation(
        'server',
        'getDocs',
        'The API reference page',
        'This document, rendered, with try-it against this server (no request leaves it).',
        {
          security: [],
          responses: {
            '200': {
              description: 'The page.',
              headers: headerRefs(['X-Request-Id']),
              content: { 'text/html': { schema: { type: 'string' } } },
            },
          },
        },
      ),
    },
    [`${DOCS_PATH}/init.js`]: {
      get: operation(
        'server',
        'getDocsScript',
        'The reference page’s script',
        'Starts the renderer; on a demo database it prefills the demo client in the Authorize dialog.',
        {
          security: [],
          responses: {
            '200': {
              description: 'The script.',
              headers: headerRefs(['X-Request-Id']),
              content: { 'text/javascript': { schema: { type: 'string' } } },
            },
          },
        },
      ),
    },
    [CONSOLE_PATH]: {
      get: operation(
        'sandbox',
        'getConsole',
        'The web console',
        'The data, the traffic, the clock and the fault rules, in a browser (also at /console/). Present only with the admin API; the page asks for the admin token, or takes it from the #token= fragment the demo start prints.',
        {
          security: [],
          responses: {
            '200': {
              description: 'The page.',
              headers: headerRefs(['X-Request-Id']),
              content: { 'text/html': { schema: { type: 'string' } } },
            },
            '404': error(
              404,
              'No admin API on this server, or the console is not built.',
              [],
              ['ERR_ROUTE_NOT_FOUND'],
            ),
          },
        },
      ),
    },
    [`${CONSOLE_PATH}/assets/{name}`]: {
      get: operation(
        'sandbox',
        'getConsoleAsset',
        'The web console’s assets',
        'Its script and style sheet, content-hashed (cached for a year), served by Larder (no CDN).',
        {
          security: [],
          parameters: [
            {
              name: 'name',
              in: 'path',
              required: true,
              schema: { type: 'string' },
              description: 'The file.',
            },
          ],
          responses: {
            '200': {
              description: 'The file.',
              headers: headerRefs(['X-Request-Id']),
              content: {
                'text/javascript': { schema: { type: 'string' } },
                'text/css': { schema: { type: 'string' } },
              },
            },
            '404': error(
              404,
              'No such file, no admin API on this server, or the console is not built.',
              [],
              ['ERR_ROUTE_NOT_FOUND'],
            ),
          },
        },
      ),
    },
    [`${DOCS_ASSETS_PATH}/{name}`]: {
      get: operation(
        'server',
        'getDocsAsset',
        'The reference page’s assets',
        'The renderer’s script, style sheet and icon, served by Larder (no CDN).',
        {
          security: [],
          parameters: [
            {
              name: 'name',
              in: 'path',
              required: true,
              schema: { type: 'string', enum: Object.keys(DOCS_ASSETS) },
              description: 'The file.',
            },
          ],
          responses: {
            '200': {
              description: 'The file.',
              headers: headerRefs(['X-Request-Id']),
              content: {
                'text/javascript': { schema: { type: 'string' } },
                'text/css': { schema: { type: 'string' } },
                'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
              },
            },
            '404': error(404, 'No such file.', [], ['ERR_ROUTE_NOT_FOUND']),
          },
        },
      ),
    },
    [OPENAPI_PATH]: {
      get: operation('server', 'getOpenApi', 'This document', 'The OpenAPI 3.1 document of this server.', {
        security: [],
        responses: { '200': ok('The document.', { type: 'object' }) },
      }),
    },
    [HEALTH_PATH]: {
      get: operation('server', 'getHealth', 'Liveness', 'Answers while the process serves.', {
        security: [],
        responses: { '200': ok('Alive.', use(HealthSchema)) },
      }),
    },
    [READY_PATH]: {
      get: operation(
        'server',
        'getReadiness',
        'Readiness',
        'Answers 200 when the storage answers, else 503: while starting or stopping, when the database does not answer, and from the first request or probe that found the SQLite file damaged, or replaced, emptied or removed (or its WAL) under the server, until a restart.',
        {
          security: [],
          responses: { '200': ok('Ready.', use(ReadinessSchema)) },
        },
      ),
    },
  };

  const recordPaths = Object.fromEntries(
    RECORD_KINDS.flatMap((kind) => [
      [`/v1/${kind.name}/search`, search(kind)],
      [`/v1/${kind.name}/{${kind.idParam}}`, getById(kind)],
    ]),
  );

  const NO_ADMIN_API = 'the server has no admin API (no --admin-token, not a demo database)';
  // Every admin operation asks for the admin token first; a server without the admin API has no such endpoint.
  const adminErrors = {
    '401': challenged(
      error(401, 'The admin token is missing or wrong.', [], ['ERR_ADMIN_UNAUTHENTICATED']),
      'AdminChallenge',
    ),
    '404': error(404, `No such endpoint: ${NO_ADMIN_API}.`, [], ['ERR_ROUTE_NOT_FOUND']),
  };
  /** A 404 of the operation's own, besides the one every admin operation may give. */
  const missing = (description: string, codes: readonly ErrorCode[]) => ({
    '404': error(404, `${description}, or ${NO_ADMIN_API}.`, [], [...codes, 'ERR_ROUTE_NOT_FOUND']),
  });
  const invalid = (description: string, codes: readonly ErrorCode[]) => ({
    '400': error(400, `${description} (fieldName names it).`, [], codes),
  });
  const conflict = (description: string, codes: readonly ErrorCode[]) => ({
    '409': error(409, description, [], codes),
  });
  /** The answers of an operation that reads a JSON object body. */
  const jsonBodyErrors = (description: string, codes: readonly ErrorCode[] = []) => ({
    ...invalid(`The body is not a JSON object, or ${description}`, [
      'ERR_VALIDATION',
      'ERR_BODY_NOT_JSON',
      ...codes,
    ]),
    '413': error(413, `The body is over ${MAX_BODY_BYTES / 1024} KiB.`, [], ['ERR_BODY_TOO_LARGE']),
    '415': error(
      415,
      'The body was not sent as application/json, or was sent compressed (Content-Encoding).',
      [],
      ['ERR_UNSUPPORTED_MEDIA_TYPE'],
    ),
  });
  const journalOff = conflict('The journal is off (--journal-size 0).', ['ERR_JOURNAL_OFF']);
  // The operations with no query parameter refuse one given, rather than do the request without what it asked.
  const QUERY_GIVEN = 'a query parameter is given (the operation takes none)';
  const noQuery = invalid('A query parameter is given: the operation takes none', ['ERR_QUERY_PARAM']);
  const admin = (
    operationId: string,
    summary: string,
    description: string,
    answer: TSchema,
    options: { request?: Json; parameters?: unknown[]; status?: string; errors?: Json } = {},
  ) =>
    operation('sandbox', operationId, summary, description, {
      security: [{ admin: [] }],
      ...(options.parameters === undefined ? {} : { parameters: options.parameters }),
      ...(options.request === undefined ? {} : { requestBody: { required: true, content: options.request } }),
      responses: { [options.status ?? '200']: ok('Done.', use(answer)), ...adminErrors, ...options.errors },
    });
  /**
   * `example`: where one sampled from the schema is not a valid body (a fault effect with every type's fields, a
   * client with both locations and allLocations), so the docs page's try-it works as it stands.
   */
  const jsonBody = (schema: TSchema, example?: unknown) => ({
    'application/json': { schema: use(schema), ...(example === undefined ? {} : { example }) },
  });
  // Effects without an if/then of FaultEffect: Redocly's example check misreads those (status, latency).
  const faultRule = {
    match: { operation: OPERATIONS.searchPurchaseOrders },
    when: { next: 1 },
    effect: { type: 'invalidToken' },
  };
  const pathLocation = {
    name: 'locationId',
    in: 'path',
    required: true,
    schema: Patterned(LOCATION_ID.source, LOCATION_ID_RULE),
    description: `The location id, percent-encoded: ${LOCATION_ID_RULE}.`,
    example: example.location,
  };
  const query = (name: string, description: string, schema: Json = { type: 'string' }) => ({
    name,
    in: 'query',
    required: false,
    schema,
    description,
  });

  const adminPaths = {
    '/_larder/clock': {
      get: admin(
        'getClock',
        'The virtual clock',
        'The time every route, token and journal entry uses.',
        ClockViewSchema,
        { errors: noQuery },
      ),
      put: admin(
        'setClock',
        'Jump to a time',
        'To a date-time, or a day alone (its midnight UTC); backwards too; optionally frozen there.',
        ClockViewSchema,
        {
          request: jsonBody(ClockSetRequestSchema),
          errors: jsonBodyErrors(
            `now is neither a day nor a date-time, or is more than 10 years ahead, or ${QUERY_GIVEN}`,
            ['ERR_QUERY_PARAM'],
          ),
        },
      ),
      delete: admin(
        'resetClock',
        'Back to real time',
        'Removes the offset and unfreezes the clock.',
        ClockViewSchema,
        { errors: noQuery },
      ),
    },
    '/_larder/clock/advance': {
      post: admin(
        'advanceClock',
        'Move the clock forward',
        'Tokens expire and windows pass as if the time had passed; the live demo locations trade the days passed before the answer.',
        ClockViewSchema,
        {
          request: jsonBody(ClockAdvanceRequestSchema),
          errors: jsonBodyErrors(`seconds is not a valid step, or ${QUERY_GIVEN}`, ['ERR_QUERY_PARAM']),
        },
      ),
    },
    '/_larder/requests': {
      get: admin(
        'listRequests',
        'The request journal',
        'Answered requests, oldest first, without secrets or tokens (fingerprints only).',
        JournalListSchema,
        {
          errors: {
            ...invalid('A query parameter is unknown, given twice or not valid', ['ERR_QUERY_PARAM']),
            ...journalOff,
          },
          parameters: [
            query('clientId', 'Only this client.'),
            query('location', 'Only this location.'),
            query('operation', 'Only this operation id.'),
            query('status', 'A status (429) or class (4xx).'),
            query(
              'since',
              'Entries at or after this (virtual) instant: an RFC 3339 date-time (2025-06-01T09:00:00Z, or with ±HH:MM), or a day (2025-06-01) for its midnight UTC.',
            ),
            query('limit', 'At most this many, the newest.'),
            query(
              'after',
              'Only requests recorded since the listing that answered this `next` (to follow the journal); `missed` then counts those the full journal dropped unlisted.',
            ),
          ],
        },
      ),
      delete: admin('clearRequests', 'Clear the request journal', 'Forgets every entry.', ClearedSchema, {
        errors: noQuery,
      }),
    },
    '/_larder/report': {
      get: admin(
        'getReport',
        'Integration report',
        'Judges one client’s recorded traffic against the platform’s guidance for integrators.',
        IntegrationReportSchema,
        {
          errors: {
            ...invalid('clientId is missing, or a query parameter is unknown or given twice', [
              'ERR_QUERY_PARAM',
            ]),
            ...journalOff,
          },
          parameters: [{ ...query('clientId', 'The client to judge.'), required: true }],
        },
      ),
    },
    '/_larder/faults': {
      get: admin(
        'getFaults',
        'The fault rules',
        'The fault rules in force, with their counters.',
        FaultRulesStateSchema,
        { errors: noQuery },
      ),
      put: admin(
        'setFaults',
        'Replace the fault rules',
        'Injects errors, latency, expired tokens and bad page tokens into matching requests; counters start again.',
        FaultRulesStateSchema,
        {
          request: jsonBody(FaultRulesSchema, {
            rules: [
              faultRule,
              {
                match: { operation: OPERATIONS.searchInventoryHistory },
                when: { probability: 0.1 },
                effect: { type: 'cutBody' },
              },
            ],
          }),
          errors: jsonBodyErrors(`a rule is not valid or could never fire, or ${QUERY_GIVEN}`, [
            'ERR_QUERY_PARAM',
          ]),
        },
      ),
      delete: admin(
        'clearFaults',
        'Remove every fault rule',
        'No fault is injected any more.',
        FaultRulesStateSchema,
        { errors: noQuery },
      ),
      post: admin(
        'addFault',
        'Add one fault rule',
        'Appends a rule (its id defaults to the next free rule-N); the other rules keep their counters.',
        FaultRulesStateSchema,
        {
          request: jsonBody(FaultRuleSchema, faultRule),
          status: '201',
          errors: {
            ...jsonBodyErrors(
              `the rule is not valid or could never fire, or there are as many rules as can be, or ${QUERY_GIVEN}`,
              ['ERR_QUERY_PARAM'],
            ),
            ...conflict('A rule with this id exists already.', ['ERR_CONFLICT']),
          },
        },
      ),
    },
    '/_larder/faults/{ruleId}': {
      delete: admin(
        'removeFault',
        'Remove one fault rule',
        'The other rules keep their counters.',
        FaultRulesStateSchema,
        {
          parameters: [
            {
              name: 'ruleId',
              in: 'path',
              required: true,
              schema: FaultRuleId(),
              description: 'The rule id (rule-1, … or the id it was given).',
              example: 'rule-1',
            },
          ],
          errors: { ...noQuery, ...missing('No rule has this id', ['ERR_NOT_FOUND']) },
        },
      ),
    },
    '/_larder/rate-limits': {
      get: admin(
        'getRateLimits',
        'The rate limits and their counts',
        'The --rate-limit limits, and what every client and location, and every source address, has used of each window now current.',
        RateLimitStateSchema,
        { errors: noQuery },
      ),
      delete: admin(
        'clearRateLimits',
        'Start every rate-limit count again',
        'Forgets every count, as a sandbox reset does, so a test that spent a budget leaves the next one served.',
        RateLimitStateSchema,
        { errors: noQuery },
      ),
    },
    '/_larder/clients': {
      post: admin(
        'createClient',
        'Create a client',
        'A new API client; its secret is answered once, never again.',
        ClientCredentialsSchema,
        {
          request: jsonBody(NewClientRequestSchema, { name: 'my-integration', allLocations: true }),
          status: '201',
          errors: jsonBodyErrors(`a field is not valid, or ${QUERY_GIVEN}`, ['ERR_QUERY_PARAM']),
        },
      ),
    },
    '/_larder/reset': {
      post: admin(
        'resetSandbox',
        'Reset the sandbox',
        'Back to the first-start demo state: demo data, clients, clock, journal, no fault rules, no failed logins and no rate-limit counts (409 unless a demo database).',
        ResetSchema,
        { errors: { ...noQuery, ...conflict('Not a demo database.', ['ERR_CONFLICT']) } },
      ),
    },
    '/_larder/locations/{locationId}': {
      delete: admin(
        'deleteLocation',
        'Remove a location',
        'The location and all its records.',
        DeletedLocationSchema,
        {
          parameters: [pathLocation],
          errors: {
            ...invalid(`The locationId is not a location id, or ${QUERY_GIVEN}`, [
              'ERR_VALIDATION',
              'ERR_QUERY_PARAM',
            ]),
            ...missing('The location is unknown', ['ERR_LOCATION_NOT_FOUND']),
          },
        },
      ),
    },
    '/_larder/locations': {
      get: admin(
        'listLocationsOverview',
        'Locations at a glance',
        'Every location with, per record kind, its record count and the span of their modifiedDate (the console).',
        LocationsOverviewSchema,
        { errors: noQuery },
      ),
    },
    '/_larder/locations/{locationId}/charts': {
      get: admin(
        'getLocationCharts',
        'Chart data of a location',
        'Quantity on hand of one item over time, and purchasing spend per supplier per week (the console).',
        LocationChartsSchema,
        {
          parameters: [
            pathLocation,
            query(
              'days',
              `The window, in days back from the virtual now (1–${MAX_CHART_DAYS}, default ${DEFAULT_CHART_DAYS}).`,
            ),
            query('itemVersionId', 'The item to chart (default: the one with the most entries).'),
          ],
          errors: {
            ...invalid('The locationId or a query parameter is not valid, or a query parameter unknown', [
              'ERR_VALIDATION',
              'ERR_QUERY_PARAM',
            ]),
            ...missing('The location is unknown', ['ERR_LOCATION_NOT_FOUND']),
          },
        },
      ),
    },
    ...Object.fromEntries(
      RECORD_KINDS.flatMap((kind) => {
        const name = `${kind.name[0]!.toUpperCase()}${kind.name.slice(1)}`;
        return [
          [
            `/_larder/locations/{locationId}/${kind.name}/search`,
            {
              post: admin(
                `adminSearch${name}`,
                `Search ${kind.countLabel} of any location`,
                `As the retail search does, without a client token (the console).`,
                kind.pageSchema,
                {
                  parameters: [
                    pathLocation,
                    query('pageToken', 'The nextPageToken of the previous page.'),
                    query('pageSize', `Records per page (1–${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}).`),
                  ],
                  request: jsonBody(kind.searchSchema),
                  errors: {
                    ...jsonBodyErrors('the locationId, the body, the page token or pageSize is not valid', [
                      'ERR_PAGE_TOKEN',
                      'ERR_QUERY_PARAM',
                      'ERR_DATE_RANGE',
                    ]),
                    ...missing('The location is unknown', ['ERR_LOCATION_NOT_FOUND']),
                  },
                },
              ),
            },
          ],
          [
            `/_larder/locations/{locationId}/${kind.name}/{${kind.idParam}}`,
            {
              get: admin(
                `adminGet${name}`,
                `One ${kind.label} of any location`,
                `As the retail get by id does, without a client token (the console).`,
                kind.schema,
                {
                  parameters: [
                    pathLocation,
                    {
                      name: kind.idParam,
                      in: 'path',
                      required: true,
                      schema: { type: 'string', format: 'uuid' },
                    },
                  ],
                  errors: {
                    ...invalid(`The locationId is not a location id, or the ${kind.idParam} not a UUID`, [
                      'ERR_VALIDATION',
                      'ERR_INVALID_ID',
                    ]),
                    ...missing(`No such ${kind.label} at this location, or the location is unknown`, [
                      'ERR_NOT_FOUND',
                      'ERR_LOCATION_NOT_FOUND',
                    ]),
                  },
                },
              ),
            },
          ],
        ];
      }),
    ),
    ...Object.fromEntries(
      RECORD_KINDS.map((kind) => [
        `/_larder/locations/{locationId}/${kind.name}`,
        {
          post: admin(
            `load${kind.name[0]!.toUpperCase()}${kind.name.slice(1)}`,
            `Load ${kind.countLabel}`,
            `Fixture upload: a JSON array or NDJSON of ${kind.countLabel}, all or nothing (a 400 names each bad record and field). Creates the location if needed.`,
            ImportedSchema,
            {
              parameters: [pathLocation],
              request: {
                'application/json': { schema: { type: 'array', items: use(kind.schema) } },
                'application/x-ndjson': { schema: { type: 'string' } },
              },
              errors: {
                ...invalid(
                  `The locationId, or a record, is not valid (each bad record and field is named), or the body holds no records, or ${QUERY_GIVEN}`,
                  ['ERR_VALIDATION', 'ERR_BODY_NOT_JSON', 'ERR_QUERY_PARAM'],
                ),
                '413': error(413, 'The upload is over 64 MiB.', [], ['ERR_BODY_TOO_LARGE']),
                '415': error(
                  415,
                  'Not JSON or NDJSON, or sent compressed (Content-Encoding).',
                  [],
                  ['ERR_UNSUPPORTED_MEDIA_TYPE'],
                ),
              },
            },
          ),
        },
      ]),
    ),
  };

  const paths: Record<string, PathItem> = { ...serverPaths, ...authPaths, ...recordPaths, ...adminPaths };
  for (const [path, item] of Object.entries(paths)) {
    const wrongMethod = methodNotAllowed(path, item);
    for (const each of Object.values(item)) each.responses['405'] ??= wrongMethod;
    // Fault rules and the Larder-Fault header reach every path but Larder's own: an injected 429 (42902), 502 or
    // 504, and a malformed header's 400 (40001), on operations that would not answer them otherwise.
    if (isLarderOwnPath(path)) continue;
    for (const each of Object.values(item)) {
      for (const [status, response] of Object.entries(injectedRefs)) each.responses[status] ??= response;
      each.responses['400'] ??= error(
        400,
        'The Larder-Fault header (--allow-fault-header) is not valid, or names an effect that does not apply here.',
        [],
        ['ERR_VALIDATION'],
      );
      each.responses['429'] ??= error(
        429,
        'Injected by a sandbox fault rule; see Retry-After.',
        ['Retry-After'],
        ['ERR_RATE_LIMIT_EXCEEDED'],
      );
    }
  }
  // HEAD answers what the GET would, without the body; listed for the retail get by id, which integrations use.
  for (const kind of RECORD_KINDS) {
    const item = paths[`/v1/${kind.name}/{${kind.idParam}}`]!;
    item['head'] = headOf(item['get']!, kind.operations.get.replace(/^get/, 'head'));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Larder retail and authentication API',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: publicUrl }],
    tags: TAGS,
    paths,
    components: {
      schemas: components.schemas,
      responses: Object.fromEntries(
        Object.entries(SHARED_RESPONSES).map(([name, response]) => [
          name,
          error(
            response.status,
            response.description,
            response.headers.filter((h) => h !== 'X-Request-Id'),
          ),
        ]),
      ),
      headers: HEADERS,
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: 'OAuth 2.0 client credentials at the token endpoint.',
          flows: {
            clientCredentials: {
              tokenUrl: `${publicUrl}${TOKEN_ENDPOINT_PATH}`,
              scopes: {
                [RETAIL_INVENTORY_READ]: 'Read purchase orders and inventory history.',
                [RETAIL_READ]: 'Read access to retail information for integration partners.',
              },
            },
          },
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `An access token from ${LOGIN_PATH} or the token endpoint.`,
        },
        clientBasic: {
          type: 'http',
          scheme: 'basic',
          description: 'client_secret_basic: client id and secret.',
        },
        admin: { type: 'http', scheme: 'bearer', description: 'The admin token (sandbox controls only).' },
      },
    },
  };
};

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
