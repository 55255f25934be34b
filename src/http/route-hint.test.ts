import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMethodCheck, createRouteHint } from './route-hint.js';

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

describe('the methods a documented path takes, for a 405', () => {
  const check = createMethodCheck({
    '/authentication/v1/authentication/login': { post: {} },
    '/v1/purchaseOrders/search': { post: {} },
    '/v1/purchaseOrders/{purchaseOrderId}': { get: {}, parameters: [] },
    '/_larder/clock': { get: {}, put: {}, delete: {} },
  });

  test('a documented path asked with another method names the ones it takes', () => {
    assert.deepEqual(check('GET', '/authentication/v1/authentication/login'), ['POST']);
    assert.deepEqual(check('POST', '/v1/purchaseOrders/7f0c2a36-1b7e-4a53-9b5a-5f0f3c1d2e4f'), [
      'GET',
      'HEAD',
    ]);
    assert.deepEqual(check('PATCH', '/_larder/clock'), ['GET', 'PUT', 'DELETE', 'HEAD']);
  });

  test("a concrete path's methods alone, not those of a template it also fills", () => {
    assert.deepEqual(check('GET', '/v1/purchaseOrders/search'), ['POST']);
    assert.deepEqual(check('DELETE', '/v1/purchaseOrders/search'), ['POST']);
  });

  test('a method the path takes, an undocumented path, or an empty parameter: not a 405', () => {
    assert.equal(check('HEAD', '/v1/purchaseOrders/x'), undefined);
    assert.equal(check('GET', '/authentication/v1/authentication/logon'), undefined);
    assert.equal(check('POST', '/v1/purchaseOrders/'), undefined);
  });
});
