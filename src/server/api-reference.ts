import type { TSchema } from '@sinclair/typebox';
import { LOGIN_PATH } from '../auth/auth-service.js';
import { TOKEN_ENDPOINT_PATH } from '../auth/oauth-token-route.js';
import { AuthenticationRequestSchema, AuthenticationResponseSchema } from '../auth/schemas.js';
import { ErrorMessageSchema } from '../http/error-message.js';
import { RECORD_KINDS, type RecordKind } from '../records/kinds.js';
import { DEFAULT_PAGE_SIZE, LOCATION_HEADER, MAX_BODY_BYTES, MAX_PAGE_SIZE } from '../shared/limits.js';
import { DOCS_PATH, OPENAPI_PATH } from '../shared/own-paths.js';
import { ERROR_CODE_TABLE, openApiDocument } from './openapi.js';
import { demoExamples } from './openapi-examples.js';

/**
 * docs/api.md, the interface reference a user reads in the repository: rendered from the same TypeBox schemas
 * that validate requests and build the OpenAPI document, with example records from the demo generator, so it
 * cannot drift (test/server/api-reference.test.ts compares the committed file; `npm run docs` rewrites it).
 */

interface Schema {
  title?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  $ref?: string;
}

const anchor = (title: string) => `#${title.toLowerCase()}`;

/** The schema with `null` split off, and whether null is allowed. */
const nullable = (schema: Schema): [Schema, boolean] => {
  const options = schema.anyOf;
  if (options === undefined) return [schema, false];
  const rest = options.filter((option) => option.type !== 'null');
  return rest.length === 1 && rest.length < options.length ? [rest[0]!, true] : [schema, false];
};

const typeOf = (schema: Schema, found: Map<string, Schema>): string => {
  if (schema.$ref !== undefined) return '[ErrorMessage](#errormessage)';
  if (schema.type === 'object' && schema.title !== undefined) {
    found.set(schema.title, schema);
    return `[${schema.title}](${anchor(schema.title)})`;
  }
  if (schema.type === 'array' && schema.items !== undefined)
    return `array of ${typeOf(nullable(schema.items)[0], found)}${schema.maxItems === undefined ? '' : ` (at most ${schema.maxItems})`}`;
  if (schema.enum !== undefined)
    return `string: one of ${schema.enum.map((value) => `\`${value}\``).join(', ')}`;
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  const base = String(schema.type ?? 'any');
  return schema.format === undefined ? base : `${base} (${schema.format})`;
};

const table = (schema: Schema, found: Map<string, Schema>): string => {
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const [inner, isNullable] = nullable(property);
    const rules = [required.has(name) ? 'required' : 'optional', ...(isNullable ? ['may be null'] : [])];
    const description = property.description ?? inner.description ?? '';
    return `| \`${name}\` | ${typeOf(inner, found)} | ${rules.join(', ')} | ${description} |`;
  });
  return ['| Field | Type | Rules | Description |', '|---|---|---|---|', ...rows].join('\n');
};

/** Every named object shape reachable from `roots`, each once, in the order first met. */
const shapes = (roots: readonly TSchema[]): string => {
  const found = new Map<string, Schema>();
  const done = new Set<string>();
  const sections: string[] = [];
  for (const root of roots) found.set((root as Schema).title!, root as Schema);
  for (let progress = true; progress; ) {
    progress = false;
    for (const [title, schema] of [...found]) {
      if (done.has(title)) continue;
      done.add(title);
      progress = true;
      sections.push(
        `### ${title}\n\n${schema.description === undefined ? '' : `${schema.description}\n\n`}${table(schema, found)}`,
      );
    }
  }
  return sections.join('\n\n');
};

const link = (schema: TSchema) => {
  const title = (schema as Schema).title!;
  return `[${title}](${anchor(title)})`;
};

/** The two operations of a record kind, as rows of the operations table. */
const operationRows = (kind: RecordKind): string =>
  [
    `| Search ${kind.countLabel} | \`POST /v1/${kind.name}/search\`, body ${link(kind.searchSchema)} | ${link(kind.pageSchema)} |`,
    `| Get one ${kind.label} | \`GET /v1/${kind.name}/{${kind.idParam}}\` (its \`${kind.idField}\`) | ${link(kind.schema)} |`,
  ].join('\n');

/** The document's operations, one row each, in its order. */
const operationTable = (): string => {
  const rows = Object.entries(openApiDocument('http://localhost:8080').paths).flatMap(([path, item]) =>
    Object.entries(item).map(
      ([method, operation]) =>
        `| ${operation.tags.join(', ')} | \`${method.toUpperCase()} ${path}\` | \`${operation.operationId}\` | ${operation.summary} |`,
    ),
  );
  return ['| Tag | Route | Operation id | Summary |', '|---|---|---|---|', ...rows].join('\n');
};

const fence = (value: unknown) => `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;

export const renderApiReference = (): string => {
  const example = demoExamples();
  return `# Larder API reference

<!-- Generated by \`npm run docs\` from the schemas in src/ (src/server/api-reference.ts). Do not edit by hand. -->

Larder serves two HTTP/JSON interfaces on one port: an **authentication API** that issues bearer access tokens,
and a read-only **retail API** with purchase orders and inventory history, one location at a time. Every body is
JSON (\`application/json\`), except the OAuth token endpoint's form. The machine-readable form of this page is
\`GET /openapi.json\`.

## Authentication

1. \`POST ${LOGIN_PATH}\` with an [AuthenticationRequest](#authenticationrequest) body. The answer is an
   [AuthenticationResponse](#authenticationresponse); \`token.accessToken\` is a JWT valid for \`token.expiresIn\`
   seconds. One token serves every location the client is granted: log in again only when it is about to expire
   (a login while the current token has more than a minute left returns that same token).
2. Or the standard OAuth 2.0 client-credentials grant: \`POST ${TOKEN_ENDPOINT_PATH}\` with
   \`grant_type=client_credentials\` as \`application/x-www-form-urlencoded\`, the client authenticated by HTTP Basic
   or by \`client_id\` / \`client_secret\` form fields. Errors follow RFC 6749 (\`{"error", "error_description"}\`).
3. Send \`Authorization: Bearer <accessToken>\` on every retail call.

## Retail operations

Every retail call names its location in the \`${LOCATION_HEADER}\` header (required; a location not granted to
the client answers 403, an unknown one 404).

| Operation | Request | Answer |
|---|---|---|
${RECORD_KINDS.map(operationRows).join('\n')}

**Ids.** ${RECORD_KINDS.map((kind) => `${/^[aeiou]/i.test(kind.label) ? 'An' : 'A'} ${kind.label} is identified by \`${kind.idField}\``).join('. ')}. Ids are
UUIDs and match regardless of letter case.

**Searching.** Send \`{}\` for no filter. \`updatedDateRange\` filters on \`modifiedDate\` in whole UTC days, both
ends inclusive (\`endDate\` may be left out). Purchase-order searches leave archived orders out unless
\`includeArchived\` is true; \`purchaseOrderStatuses\` and \`adjustmentType\` keep the records with any of the listed
values. Bodies are at most ${MAX_BODY_BYTES / 1024} KiB.

**Paging.** Results come oldest change first (\`modifiedDate\`, then id). A page holds \`pageSize\` records (query
parameter in decimal digits, leading zeros ignored; default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}). For the next page, send the same request with the
query parameter \`pageToken\` set to the answer's \`nextPageToken\`; the last page's \`nextPageToken\` is \`""\`. A page
token is valid only for the search (location, filter, page size) that produced it. Records that change while you
page move to the end of the order, so a walk never skips a record; it may meet a changed record again.

**Incremental sync.** Because \`updatedDateRange\` counts whole days, start each sync from the UTC day of the last
one (not the day after), and deduplicate by id and \`modifiedDate\`.

## Every operation

From the OpenAPI document (\`GET ${OPENAPI_PATH}\`, \`larder openapi\`, rendered at \`${DOCS_PATH}\`):

${operationTable()}

## Errors

Every error answer (except the OAuth token endpoint's) is an [ErrorMessage](#errormessage) with a stable
numeric \`code\` (the table below), the \`requestId\` (also in the \`X-Request-Id\` header), and \`fieldName\`
when one request field is at fault. \`canRetry\` is \`"true"\` for 429 and 5xx.

${ERROR_CODE_TABLE}

## Shapes

${shapes([
  ...RECORD_KINDS.flatMap((kind) => [kind.searchSchema, kind.pageSchema]),
  AuthenticationRequestSchema,
  AuthenticationResponseSchema,
  ErrorMessageSchema,
])}

## Examples

From the demo generator (location \`${example.location}\`).

A purchase order:

${fence(example.order)}

An inventory history entry:

${fence(example.entry)}
`;
};
