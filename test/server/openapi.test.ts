import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import { OPERATIONS } from '../../src/sandbox/journal-entry.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { withoutSandbox } from '../../src/server/served-document.js';
import { ERROR_CATALOG } from '../../src/shared/errors.js';
import { LOCATION_ID } from '../../src/shared/limits.js';
import { isLarderOwnPath } from '../../src/shared/own-paths.js';

const document = openApiDocument('http://larder.test');
const plain = () => JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path, method, ...operation })),
);

test('every route Larder serves is an operation with a tag, a summary and a description', () => {
  const ids = operations.map((operation) => operation.operationId);
  for (const id of [
    ...Object.values(OPERATIONS),
    'getAuthorizationServerMetadata',
    'getJwks',
    'getHealth',
    'getReadiness',
    'getIndex',
    'getDocs',
    'getOpenApi',
    'getClock',
    'advanceClock',
    'listRequests',
    'getReport',
    'createClient',
    'resetSandbox',
    'loadPurchaseOrders',
    'loadInventoryHistory',
  ])
    assert.ok(ids.includes(id), id);
  assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
  for (const operation of operations) {
    assert.equal(operation.tags.length, 1, operation.operationId);
    assert.ok(operation.summary.length > 0 && operation.description.length > 0, operation.operationId);
  }
  assert.deepEqual(document.servers, [{ url: 'http://larder.test' }]);
});

test('the sandbox controls are under their own tag, secured by the admin token', () => {
  const admin = operations.filter((operation) => operation.path.startsWith('/_larder/'));
  assert.ok(admin.length >= 12);
  for (const operation of admin) {
    assert.deepEqual(operation.tags, ['sandbox']);
    assert.deepEqual(operation.security, [{ admin: [] }]);
  }
});

test('every error response is listed: 405, 408, 431, 500 and 503 everywhere, 400-429 on the retail paths', () => {
  for (const operation of operations)
    for (const status of ['405', '408', '431', '500', '503'])
      assert.ok(operation.responses[status], `${operation.operationId} ${status}`);
  for (const operation of operations.filter((o) => o.path.startsWith('/v1/')))
    for (const status of ['400', '401', '403', '404', '429'])
      assert.ok(operation.responses[status], `${operation.operationId} ${status}`);
  const description = document.info.description;
  for (const [name, entry] of Object.entries(ERROR_CATALOG))
    assert.match(description, new RegExp(`\\| ${entry.status} \\| ${entry.numericCode} \\| \`${name}\``));
  for (const header of [
    'X-Request-Id',
    'Retry-After',
    'WWW-Authenticate',
    'RateLimit',
    'X-RateLimit-Remaining',
  ])
    assert.ok(header in document.components.headers, header);
});

test('the injected 502 and 504 are listed where a fault can reach, never on Larder’s own paths', () => {
  const own = operations.filter((operation) => isLarderOwnPath(operation.path));
  assert.ok(own.some((operation) => operation.path.startsWith('/_larder/')));
  for (const operation of operations)
    for (const status of ['502', '504'])
      assert.equal(
        operation.responses[status] !== undefined,
        !isLarderOwnPath(operation.path),
        `${operation.operationId} ${status}`,
      );
});

test('the document passes the OpenAPI 3.1 schema validator, served with the admin API or without', async () => {
  for (const served of [plain(), JSON.parse(JSON.stringify(withoutSandbox(document)))]) {
    const result = await new Validator().validate(served);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  }
});

test('Redocly’s recommended rules find nothing, and would find a missing summary', async () => {
  const config = await createConfig({ extends: ['recommended'] });
  const lint = async (source: Record<string, unknown>) =>
    (await lintFromString({ source: JSON.stringify(source), absoluteRef: 'openapi.json', config })).map(
      (problem) => `${problem.severity} ${problem.ruleId}: ${problem.message}`,
    );
  assert.deepEqual(await lint(plain()), []);
  // Served without the admin API: nothing left unused (no-unused-components) or unresolved.
  assert.deepEqual(await lint(JSON.parse(JSON.stringify(withoutSandbox(document)))), []);
  const broken = plain() as { paths: Record<string, Record<string, Record<string, unknown>>> };
  delete broken.paths['/healthz']!['get']!['summary'];
  assert.ok((await lint(broken)).some((problem) => problem.startsWith('error operation-summary')));
});

test('openapi-typescript names the types: PurchaseOrder, InventoryHistoryLogEntry, ErrorMessage, ...', async () => {
  const source = astToString(await openapiTS(plain() as never));
  for (const name of [
    'PurchaseOrder',
    'InventoryHistoryLogEntry',
    'ErrorMessage',
    'PurchaseOrdersResponse',
    'InventoryHistoryResponse',
    'AuthenticationResponse',
    'OAuthTokenResponse',
    'OAuthError',
    'JournalEntry',
    'ClockView',
  ])
    assert.match(source, new RegExp(`\\n {8}${name}: \\{`), name);
});

test('the examples come from the demo generator', () => {
  const get = document.paths['/v1/purchaseOrders/{purchaseOrderId}']!['get']!;
  const response = get.responses['200'] as { content: Record<string, { example: { id: string } }> };
  assert.match(response.content['application/json']!.example.id, /^[0-9a-f-]{36}$/);
});

test('the fault rules are served by GET, PUT, POST and DELETE /_larder/faults and DELETE …/{ruleId}, their shapes from the one schema', () => {
  const faults = document.paths['/_larder/faults']!;
  assert.deepEqual(Object.keys(faults).sort(), ['delete', 'get', 'post', 'put']);
  const bodyOf = (operation: string) =>
    (faults[operation]!.requestBody as { content: Record<string, { schema: { $ref: string } }> }).content[
      'application/json'
    ]!.schema.$ref;
  assert.equal(bodyOf('put'), '#/components/schemas/FaultRules');
  assert.equal(bodyOf('post'), '#/components/schemas/FaultRule');
  assert.deepEqual(Object.keys(document.paths['/_larder/faults/{ruleId}']!), ['delete']);
});

test('a locationId path parameter takes what the server takes: 1–200 visible ASCII, not . or .. alone', () => {
  const patterns = operations.flatMap((operation) =>
    ((operation.parameters ?? []) as { name?: string; in?: string; schema?: { pattern?: string } }[])
      .filter((parameter) => parameter.name === 'locationId' && parameter.in === 'path')
      .map((parameter) => new RegExp(parameter.schema?.pattern ?? '', 'u')),
  );
  assert.ok(patterns.length > 0);
  for (const pattern of patterns) {
    for (const id of ['loc-1', 'Store#12/a', '~x!', 'a'.repeat(200), '...'])
      assert.ok(pattern.test(id) && LOCATION_ID.test(id), `${pattern} refuses ${id}`);
    for (const id of ['', 'a b', 'Café', '.', '..', 'a'.repeat(201)])
      assert.ok(!pattern.test(id) && !LOCATION_ID.test(id), `${pattern} takes ${id}`);
  }
});
