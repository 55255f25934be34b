import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRouteHint } from './route-hint.js';

const hint = createRouteHint({
  '/': { get: {} },
  '/docs/assets/{name}': { get: {} },
  '/v1/purchaseOrders/search': { post: {} },
  '/v1/purchaseOrders/{purchaseOrderId}': { get: {} },
  '/_larder/clock': { get: {}, put: {}, delete: {}, parameters: [] },
});

describe('the endpoint a 404 most likely meant', () => {
  test('a typo in a fixed path', () => {
    assert.equal(hint('/v1/purchaseOrder/search'), 'POST /v1/purchaseOrders/search');
    assert.equal(hint('/v1/purchase-orders/search'), 'POST /v1/purchaseOrders/search');
  });

  test("a template's parameters take the request's values, so only the fixed parts count", () => {
    assert.equal(
      hint('/v1/purchaseorders/7f0c2a36-1b7e-4a53-9b5a-5f0f3c1d2e4f'),
      'GET /v1/purchaseOrders/{purchaseOrderId}',
    );
  });

  test('a path cut short names what continues it; methods are listed, non-methods are not', () => {
    assert.equal(
      hint('/v1/purchaseOrders'),
      'POST /v1/purchaseOrders/search or GET /v1/purchaseOrders/{purchaseOrderId}',
    );
    assert.equal(hint('/_larder/clok'), 'GET, PUT, DELETE /_larder/clock');
  });

  test('nothing near, the root and asset paths: no guess', () => {
    assert.equal(hint('/nothing/like/it'), undefined);
    assert.equal(hint('/x'), undefined);
    assert.equal(hint('/docs/asset/x.css'), undefined);
    assert.equal(hint(`/${'a'.repeat(10_000)}`), undefined);
  });
});
