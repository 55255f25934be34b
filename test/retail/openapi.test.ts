import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openApiDocument } from '../../src/server/openapi.js';

test('the OpenAPI document names all five operations of the interface', () => {
  const document = openApiDocument('http://larder.test');
  const operations = Object.values(document.paths).flatMap((path) =>
    Object.values(path).map((operation) => (operation as { operationId: string }).operationId),
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
