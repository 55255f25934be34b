import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TSchema } from '@sinclair/typebox';
import { type AppConfig, createApp, type LarderApp } from '../../src/server/app.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { createTestClock } from '../../src/shared/clock.js';
import { LOCATION_ID_RULE } from '../../src/shared/limits.js';
import { silentLogger } from '../../src/shared/logger.js';
import { PATTERN_WORDS } from '../../src/shared/schema-helpers.js';
import { createValidator } from '../../src/shared/validator.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';

type Json = Record<string, unknown>;

const document = JSON.parse(JSON.stringify(openApiDocument('http://larder.test'))) as Json & {
  paths: Record<string, Record<string, { operationId: string; parameters?: unknown; requestBody?: unknown }>>;
};

const resolve = (ref: string): unknown =>
  ref
    .slice(2)
    .split('/')
    .reduce<unknown>(
      (node, key) => (node as Json)[key.replaceAll('~1', '/').replaceAll('~0', '~')],
      document,
    );

interface Found {
  where: string;
  schema: Json & { pattern: string };
}

/** Every schema with a `pattern` that a request can reach: its parameters and its body, through every $ref. */
const requestPatterns = (): Found[] => {
  const found: Found[] = [];
  for (const item of Object.values(document.paths))
    for (const { operationId, parameters, requestBody } of Object.values(item)) {
      const seen = new Set<unknown>();
      const walk = (node: unknown, where: string): void => {
        if (node === null || typeof node !== 'object' || seen.has(node)) return;
        seen.add(node);
        const object = node as Json;
        if (typeof object['$ref'] === 'string') {
          walk(resolve(object['$ref']), object['$ref']);
          return;
        }
        if (typeof object['pattern'] === 'string')
          found.push({ where: `${operationId} ${where}`, schema: object as Found['schema'] });
        for (const [key, value] of Object.entries(object))
          if (key !== 'example' && key !== 'examples') walk(value, `${where}/${key}`);
      };
      walk(parameters, 'parameters');
      walk(requestBody, 'requestBody');
    }
  return found;
};

/** A value the pattern refuses (the patterns here all refuse one of these). */
const refused = (pattern: string): string | undefined =>
  ['', ' ', 'a b', '..', 'x'.repeat(1000)].find((value) => !new RegExp(pattern, 'u').test(value));

test('every pattern a request (retail or admin) can reach says in words what it allows, and a 400 quotes those words, never the regex', () => {
  const found = requestPatterns();
  const where = found.map((one) => one.where).join('\n');
  // The walk reaches what it must: a rule's id, method and pathPrefix, and the admin API's path ids.
  for (const expected of [
    /^addFault .*FaultRule\/properties\/id$/m,
    /^setFaults .*FaultMatch\/properties\/method$/m,
    /^addFault .*FaultMatch\/properties\/pathPrefix$/m,
    /^removeFault parameters\/0\/schema$/m,
    /^deleteLocation parameters\/0\/schema$/m,
  ])
    assert.match(where, expected);
  for (const { where, schema } of found) {
    const words = schema[PATTERN_WORDS];
    assert.equal(typeof words, 'string', `${where}: pattern ${schema.pattern} has no ${PATTERN_WORDS}`);
    const value = refused(schema.pattern);
    assert.ok(value !== undefined, `${where}: no value found that ${schema.pattern} refuses`);
    const message = createValidator(schema as unknown as TSchema)
      .problems(value)
      .map((problem) => problem.message)
      .join('; ');
    assert.ok(message.includes(`must be ${words}`), `${where}: ${message}`);
    assert.ok(!message.includes(schema.pattern), `${where}: ${message}`);
  }
});

test('a pattern without words is still told without its regex', () => {
  const [problem] = createValidator({ type: 'string', pattern: '^[a-z]+$' } as unknown as TSchema).problems(
    'A',
  );
  assert.equal(problem?.message, 'is not in the form this field takes');
});

const ADMIN = 'admin-token-for-words';

let store: Store;
let larder: LarderApp;

before(async () => {
  store = await createSqliteStore({ path: ':memory:' });
  const config: AppConfig = {
    publicUrl: 'http://larder.test',
    tokenTtlSeconds: 3600,
    trustProxy: false,
    adminToken: ADMIN,
  };
  larder = await createApp({
    store,
    clock: createTestClock(Date.UTC(2025, 2, 10)),
    logger: silentLogger,
    config,
  });
});
after(() => store.close());

const admin = async (method: string, path: string, body?: unknown) => {
  const response = await larder.app.request(path, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    error: (await response.json()) as { fieldName?: string; message: string },
  };
};

test('a 400 for a value a pattern refuses names the field and says in words what it takes', async () => {
  const cases: [method: string, path: string, body: unknown, field: string, message: string][] = [
    [
      'POST',
      '/_larder/faults',
      { id: 'tenth search', effect: { type: 'reset' } },
      'id',
      "id must be 1 to 100 characters, each an ASCII letter, a digit, '_', '.', ':' or '-'",
    ],
    [
      'PUT',
      '/_larder/faults',
      { rules: [{ match: { pathPrefix: 'v1/' }, effect: { type: 'reset' } }] },
      'rules[0].match.pathPrefix',
      'rules[0].match.pathPrefix must be a path starting with /',
    ],
    [
      'POST',
      '/_larder/faults',
      { match: { method: 'GET POST' }, effect: { type: 'reset' } },
      'match.method',
      'match.method must be a method name of 1 to 10 letters (GET, HEAD or POST, any case)',
    ],
    [
      'POST',
      '/_larder/locations/%20/purchaseOrders',
      [],
      'locationId',
      `locationId must be ${LOCATION_ID_RULE}.`,
    ],
  ];
  for (const [method, path, body, field, message] of cases) {
    const { status, error } = await admin(method, path, body);
    assert.equal(status, 400, path);
    assert.equal(error.fieldName, field, error.message);
    assert.equal(error.message, message);
  }
});
