import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openApiDocument } from '../../src/server/openapi.js';

test('the OpenAPI document names all five operations of the interface', () => {
  const document = openApiDocument('http://larder.test');
  const operations = Object.values(document.paths).flatMap((path) =>
    Object.values(path)
      .filter((operation) => !(operation as { tags?: string[] }).tags?.includes('sandbox'))
      .map((operation) => (operation as { operationId: string }).operationId),
  );
  assert.deepEqual(operations.sort(), [
    'authenticationLoginPost',
    'getInventoryHistoryById',
    'getPurchaseOrderById',
    'searchInventoryHistory',
    'searchPurchaseOrders',
  ]);
  assert.deepEqual(document.servers, [{ url: 'http://larder.test' }]);
});

test('the sandbox controls are described under their own tag, secured by the admin token', () => {
  const document = openApiDocument('http://larder.test');
  const admin = Object.entries(document.paths).filter(([path]) => path.startsWith('/_larder/'));
  assert.ok(admin.length >= 9);
  for (const [, methods] of admin)
    for (const operation of Object.values(methods) as { tags: string[]; security: unknown[] }[]) {
      assert.deepEqual(operation.tags, ['sandbox']);
      assert.deepEqual(operation.security, [{ admin: [] }]);
    }
  assert.ok(document.tags.some((tag) => tag.name === 'sandbox'));
});

test('the fault rules are served by GET, PUT and DELETE /_larder/faults, their shape from the one schema', () => {
  const faults = openApiDocument('http://larder.test').paths['/_larder/faults'] as Record<
    string,
    { operationId: string; requestBody?: { content: Record<string, { schema: { title?: string } }> } }
  >;
  assert.deepEqual(Object.keys(faults).sort(), ['delete', 'get', 'put']);
  assert.equal(faults['put']?.requestBody?.content['application/json']?.schema.title, 'FaultRules');
});
