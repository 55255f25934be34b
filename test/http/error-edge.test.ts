import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorResponse, toLarderError } from '../../src/http/error-edge.js';
import { LarderError, StoreError } from '../../src/shared/errors.js';

test('the answer sent while starting is built by the error edge, with a request id', async () => {
  const response = errorResponse(new LarderError('ERR_UNAVAILABLE', { message: 'Starting up.' }));
  assert.equal(response.status, 503);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body['code'], 50301);
  assert.equal(body['canRetry'], 'true');
  assert.equal(typeof body['requestId'], 'string');
  assert.equal(body['requestId'], response.headers.get('x-request-id'));
});

test('storage errors get their HTTP status at the edge', () => {
  const cases = [
    ['STORE_UNAVAILABLE', 503],
    ['STORE_CLOSED', 503],
    ['STORE_LOCKED', 503],
    ['STORE_DUPLICATE', 409],
    ['STORE_NOT_FOUND', 404],
    ['STORE_INVALID_VALUE', 400],
    ['STORE_SCHEMA', 500],
    ['STORE_DAMAGED', 500],
  ] as const;
  for (const [code, status] of cases)
    assert.equal(toLarderError(new StoreError(code, 'x')).status, status, code);
  assert.equal(toLarderError(new Error('boom')).code, 'ERR_INTERNAL');
});

test('a store closed under a request (the stop cut it) is a 503 logged at debug, not an error', () => {
  const closed = toLarderError(new StoreError('STORE_CLOSED', 'closed'));
  assert.equal(closed.reported, true);
  assert.equal(toLarderError(new StoreError('STORE_UNAVAILABLE', 'down')).reported, false);
});
