import { Hono, type MiddlewareHandler } from 'hono';
import { readJsonObject } from '../http/request-body.js';
import { collectingFacts, noteFacts } from '../http/request-facts.js';
import { RECORD_KINDS, type RecordKind } from '../records/kinds.js';
import { LarderError } from '../shared/errors.js';
import type { RecordReader } from './record-reader.js';

// A fresh record per response: @hono/node-server writes Content-Length into the record it is handed.
const jsonHeaders = () => ({ 'content-type': 'application/json; charset=utf-8' });

export interface RetailRoutesDeps {
  /** Runs before every retail operation and sets `locationId` (and `principal`) on the context. */
  authorize: MiddlewareHandler;
  records: RecordReader;
}

/**
 * The retail operations, two per record kind (search, get by id), registered by looping over the kinds. Each
 * handler does its operation's work: authorization (token, scope, grant, location) ran before it.
 */
export const createRetailRoutes = ({ authorize, records }: RetailRoutesDeps): Hono => {
  const routes = new Hono();

  const search = (kind: RecordKind) =>
    routes.post(`/v1/${kind.name}/search`, authorize, async (c) => {
      const locationId = c.get('locationId');
      const body = await readJsonObject(c);
      const current = c.req.query('pageToken') ?? '';
      const rawPageSize = c.req.query('pageSize');
      if (collectingFacts(c))
        noteFacts(c, {
          body,
          ...(current === '' ? {} : { pageToken: current }),
          ...(rawPageSize === undefined ? {} : { pageSize: Number(rawPageSize) }),
        });
      const page = await records.search(kind, locationId, {
        body,
        pageToken: current,
        pageSize: rawPageSize,
      });
      noteFacts(c, { hasNextPage: page.hasNextPage });
      return c.body(page.body, 200, jsonHeaders());
    });

  const getById = (kind: RecordKind) =>
    routes.get(`/v1/${kind.name}/:${kind.idParam}`, authorize, async (c) => {
      const body = await records.get(kind, c.get('locationId'), c.req.param(kind.idParam) ?? '');
      // Bytes from a store are Buffers, never views of a SharedArrayBuffer.
      return c.body(body as string | Uint8Array<ArrayBuffer>, 200, jsonHeaders());
    });

  // Registered before the by-id routes, so `GET …/search` is a 405 rather than "search is not a UUID".
  for (const { name } of RECORD_KINDS) {
    routes.on(['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], `/v1/${name}/search`, () => {
      throw new LarderError('ERR_METHOD_NOT_ALLOWED', { headers: { allow: 'POST' } });
    });
  }
  for (const kind of RECORD_KINDS) {
    search(kind);
    getById(kind);
  }
  for (const { name } of RECORD_KINDS) {
    routes.on(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], `/v1/${name}/:id`, () => {
      throw new LarderError('ERR_METHOD_NOT_ALLOWED', { headers: { allow: 'GET, HEAD' } });
    });
  }

  return routes;
};
