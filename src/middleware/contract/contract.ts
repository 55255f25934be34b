import type { HttpBindings } from '@hono/node-server';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { MiddlewareHandler } from 'hono';
import { UUID } from '../../shared/schema-helpers.js';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * The response contract: every answer the app gives is held to the OpenAPI document (status, required headers,
 * content type, body schema). A test-time check, switched on by LARDER_CONTRACT=enforce (scripts/run-tests.mjs
 * sets it), so the whole HTTP test suite proves the document and the behaviour agree. Written here rather than
 * taken from a library: the OpenAPI response validators on npm either predate 3.1 or pull in a framework.
 */

type Json = Record<string, unknown>;

interface Document {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown>; responses?: Json; headers?: Json };
}

interface Route {
  template: string;
  pattern: RegExp;
  literal: boolean;
}

const DEFS_ID = 'larder-openapi';

const decodePointer = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** A checker of responses against `document`; each call answers the problems found (none: it conforms). */
export const createContractChecker = (document: Document) => {
  const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true });
  addFormats(ajv);
  // As the server checks records: ajv-formats' uuid also takes a `urn:uuid:` prefix, which no get by id matches.
  ajv.addFormat('uuid', UUID);
  // Components travel as $defs of one schema, so every `#/components/schemas/X` reference resolves.
  const rewrite = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', `"${DEFS_ID}#/$defs/`)) as unknown;
  ajv.addSchema({ $id: DEFS_ID, $defs: rewrite(document.components.schemas) as Json });
  const compiled = new Map<unknown, ReturnType<typeof ajv.compile>>();
  const validatorOf = (schema: unknown) => {
    let validate = compiled.get(schema);
    if (validate === undefined) {
      validate = ajv.compile(rewrite(schema) as Json);
      compiled.set(schema, validate);
    }
    return validate;
  };
  const resolve = (value: unknown): Json => {
    const ref = (value as Json)['$ref'];
    if (typeof ref !== 'string') return value as Json;
    let target: unknown = document;
    for (const segment of ref.slice(2).split('/')) target = (target as Json)[decodePointer(segment)];
    return resolve(target);
  };

  const routes: Route[] = Object.keys(document.paths)
    .map((template) => ({
      template,
      literal: !template.includes('{'),
      pattern: new RegExp(
        `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
      ),
    }))
    // Literal paths first: /v1/purchaseOrders/search before /v1/purchaseOrders/{purchaseOrderId}.
    .sort((a, b) => Number(b.literal) - Number(a.literal));

  const errorMessage = (status: number, body: unknown, problems: string[], where: string) => {
    const validate = validatorOf({ $ref: '#/components/schemas/ErrorMessage' });
    if (!validate(body))
      problems.push(`${where}: ${status} body is not an ErrorMessage: ${ajv.errorsText(validate.errors)}`);
  };

  return async (
    method: string,
    path: string,
    response: Response,
    /** Headers set outside the Response (on the Node response, see setResponseHeader). */
    outside: (name: string) => string | undefined = () => undefined,
  ): Promise<string[]> => {
    const problems: string[] = [];
    const status = response.status;
    const where = `${method} ${path}`;
    const text = method === 'HEAD' ? '' : await response.clone().text();
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    let body: unknown;
    if (type === 'application/json' && text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return [`${where}: the body is not JSON`];
      }
    }
    const find = (at: string) => routes.find((candidate) => candidate.pattern.test(at));
    // The document names paths without a trailing slash (Redocly's rule), yet `/console/` serves the console's
    // page too: a path served with a slash is held to its slashless entry; refused, it counts as undocumented.
    const route =
      find(path) ??
      (status < 400 && path.length > 1 && path.endsWith('/') ? find(path.slice(0, -1)) : undefined);
    if (route === undefined) {
      // Usually 404; a sandbox fault rule may answer any error status anywhere.
      if (status < 400) problems.push(`${where}: no documented path, yet answered ${status}`);
      else errorMessage(status, body, problems, where);
      return problems;
    }
    const item = document.paths[route.template]!;
    type Operation = { operationId: string; responses: Json };
    const own = (item[method.toLowerCase()] ?? (method === 'HEAD' ? item['get'] : undefined)) as
      | Operation
      | undefined;
    // A method the path does not take is held to the error the path documents for it (the token endpoint's 405
    // is an OAuthError), under the methods it does take; but its 404 says there is no such endpoint (a POST to a
    // mistyped …/seach matches {purchaseOrderId}), which is no answer of the path's operations.
    const operation =
      own ??
      (status >= 400 && status !== 404
        ? (Object.values(item) as (Operation | undefined)[]).find(
            (candidate) =>
              typeof candidate === 'object' && candidate?.responses?.[String(status)] !== undefined,
          )
        : undefined);
    if (operation === undefined) {
      // A CORS preflight, or a method the path does not take (the admin API asks for its token first).
      if (method === 'OPTIONS' && status === 204) return problems;
      if (status < 400) problems.push(`${where}: undocumented method answered ${status}`);
      else errorMessage(status, body, problems, where);
      return problems;
    }
    const documented = operation.responses[String(status)];
    if (documented === undefined) {
      problems.push(`${where} (${operation.operationId}): status ${status} is not documented`);
      return problems;
    }
    const spec = resolve(documented);
    for (const [name, header] of Object.entries((spec['headers'] ?? {}) as Json)) {
      const definition = resolve(header);
      const value = response.headers.get(name) ?? outside(name) ?? null;
      if (value === null) {
        if (definition['required'] === true)
          problems.push(`${where} (${operation.operationId}): ${status} lacks the header ${name}`);
        continue;
      }
      const validate = validatorOf(definition['schema'] ?? {});
      if (!validate(value))
        problems.push(
          `${where}: header ${name} ${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`,
        );
    }
    const content = spec['content'] as Record<string, Json> | undefined;
    if (content === undefined) {
      if (text !== '') problems.push(`${where} (${operation.operationId}): ${status} should have no body`);
      return problems;
    }
    const media = content[type];
    if (media === undefined) {
      problems.push(
        `${where} (${operation.operationId}): ${status} content-type ${type || '(none)'} is not documented`,
      );
      return problems;
    }
    // A HEAD held to its path's GET (no HEAD operation of its own) sends no body to check.
    if (type === 'application/json' && media['schema'] !== undefined && method !== 'HEAD') {
      const validate = validatorOf(media['schema']);
      if (!validate(body))
        problems.push(
          `${where} (${operation.operationId}): ${status} body does not match: ${ajv.errorsText(validate.errors)}`,
        );
    }
    return problems;
  };
};

/** Every violation seen in this process; the process fails at exit if there was one. */
const violations: string[] = [];
let exitHooked = false;

/**
 * The middleware: first in the pipeline, it checks the final answer (errors included). A violation is written to
 * stderr, replaces the answer with a 500 naming it (so the test that made the request fails with the reason), and
 * fails the process at exit (so no test that ignores the answer hides it).
 */
export const responseContract = (
  document: Document,
  /** Where violations go; by default stderr, and the process fails at exit. */
  report?: (problems: readonly string[]) => void,
): MiddlewareHandler => {
  const check = createContractChecker(document);
  if (report === undefined && !exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      if (violations.length === 0) return;
      process.stderr.write(`\nOpenAPI contract violations:\n${violations.map((v) => `  ${v}`).join('\n')}\n`);
      process.exitCode = 1;
    });
  }
  return async (c, next) => {
    await next();
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    // Written to the socket by hand, or the socket reset (transport faults; @hono/node-server's marker):
    // there is no answer to read here.
    if (outgoing?.headersSent === true || c.res.headers.has('x-hono-already-sent')) return;
    const problems = await check(c.req.method, c.req.path, c.res, (name) => {
      const value = outgoing?.getHeader(name);
      return value === undefined ? undefined : String(value);
    });
    if (problems.length === 0) return;
    if (report !== undefined) report(problems);
    else {
      violations.push(...problems);
      process.stderr.write(`OpenAPI contract: ${problems.join('; ')}\n`);
    }
    c.res = new Response(JSON.stringify({ contractViolations: problems }), {
      status: 500,
      headers: { 'content-type': 'application/json' },
    });
  };
};
