import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { createContractChecker, responseContract } from './contract.js';

/** A document of one operation: the checker and the middleware on their own (test/server/contract.test.ts: the real one). */
const document = {
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        responses: {
          '200': {
            headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '404': { $ref: '#/components/responses/Missing' },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: { id: { type: 'integer' } },
        required: ['id'],
        additionalProperties: false,
      },
      ErrorMessage: { type: 'object', properties: { code: { type: 'integer' } }, required: ['code'] },
    },
    headers: { 'X-Request-Id': { required: true, schema: { type: 'string' } } },
    responses: {
      Missing: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorMessage' } } } },
    },
  },
};

const json = (status: number, body: unknown, headers: Record<string, string> = { 'x-request-id': 'r' }) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

test('the checker follows references to schemas, headers and responses', async () => {
  const check = createContractChecker(document);
  assert.deepEqual(await check('GET', '/things/7', json(200, { id: 7 })), []);
  assert.deepEqual(await check('GET', '/things/7', json(404, { code: 40401 })), []);
  assert.match(
    (await check('GET', '/things/7', json(200, { id: 'seven' })))[0]!,
    /getThing\): 200 body does not match/,
  );
  assert.match(
    (await check('GET', '/things/7', json(200, { id: 7 }, {})))[0]!,
    /lacks the header X-Request-Id/,
  );
  assert.match((await check('GET', '/things/7', json(201, { id: 7 })))[0]!, /status 201 is not documented/);
  assert.match((await check('POST', '/things/7', json(200, {})))[0]!, /undocumented method answered 200/);
  assert.match((await check('GET', '/other', json(200, {})))[0]!, /no documented path/);
});

test('the middleware turns drift into a 500 naming it', async () => {
  const reported: string[] = [];
  const app = new Hono();
  app.use(responseContract(document, (problems) => reported.push(...problems)));
  app.get('/things/:id', (c) =>
    c.json({ id: c.req.param('id') === '1' ? 1 : 'x' }, 200, { 'X-Request-Id': 'r' }),
  );
  assert.equal((await app.request('/things/1')).status, 200);
  const drift = await app.request('/things/2');
  assert.equal(drift.status, 500);
  assert.match(JSON.stringify(await drift.json()), /getThing/);
  assert.equal(reported.length, 1);
});
