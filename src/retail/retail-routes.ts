import { Hono, type MiddlewareHandler } from 'hono';
import { readJsonObject } from '../http/request-body.js';
import { collectingFacts, noteFacts } from '../http/request-facts.js';
import { RECORD_KINDS, type RecordKind } from '../records/kinds.js';
import { LarderError } from '../shared/errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../shared/limits.js';
import type { Store, StoredJson } from '../storage/store.js';
import type { PageTokens } from './page-token.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A fresh record per response: @hono/node-server writes Content-Length into the record it is handed.
const jsonHeaders = () => ({ 'content-type': 'application/json; charset=utf-8' });

export interface RetailRoutesDeps {
  store: Store;
  /** Runs before every retail operation and sets `locationId` (and `principal`) on the context. */
  authorize: MiddlewareHandler;
  pageTokens: PageTokens;
}

const parsePageSize = (raw: string | undefined): number => {
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  const size = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(size >= 1 && size <= MAX_PAGE_SIZE)) {
    throw new LarderError('ERR_QUERY_PARAM', {
      fieldName: 'pageSize',
      message: `pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}.`,
    });
  }
  return size;
};

const parseId = (raw: string, fieldName: string): string => {
  if (!UUID.test(raw)) {
    throw new LarderError('ERR_INVALID_ID', { fieldName, message: `${fieldName} must be a UUID.` });
  }
  return raw.toLowerCase();
};

/**
 * Splices the stored JSON of the page into the page envelope: records are never parsed on the read path. The
 * page is written straight into one exactly sized buffer: a concatenated string would be flattened, measured
 * and UTF-8 encoded again on the way out (0.85 ms against 0.24 ms for a 400 KB page). Chunks that come as bytes
 * (each a record, or several already joined with commas) are copied as they are.
 */
const pageBody = (current: string, next: string, chunks: readonly StoredJson[]): Uint8Array<ArrayBuffer> => {
  const head = `{"currentPageToken":${JSON.stringify(current)},"nextPageToken":${JSON.stringify(next)},"data":[`;
  let size = Buffer.byteLength(head) + 2 + Math.max(chunks.length - 1, 0);
  for (const json of chunks) size += typeof json === 'string' ? Buffer.byteLength(json) : json.byteLength;
  const body = Buffer.allocUnsafe(size);
  let offset = body.write(head);
  for (let i = 0; i < chunks.length; i++) {
    if (i > 0) body[offset++] = 0x2c; // ,
    const json = chunks[i]!;
    if (typeof json === 'string') offset += body.write(json, offset);
    else {
      body.set(json, offset);
      offset += json.byteLength;
    }
  }
  body.write(']}', offset);
  // allocUnsafe never hands out a SharedArrayBuffer; Hono's body type asks for a plain ArrayBuffer.
  return body as Uint8Array<ArrayBuffer>;
};

/**
 * The retail operations, two per record kind (search, get by id), registered by looping over the kinds. Each
 * handler does its operation's work: authorization (token, scope, grant, location) ran before it.
 */
export const createRetailRoutes = ({ store, authorize, pageTokens }: RetailRoutesDeps): Hono => {
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
      const filter = kind.parseFilter(body);
      const pageSize = parsePageSize(rawPageSize);
      const binding = `${kind.name}\n${locationId}\n${filter.binding}\n${pageSize}`;
      const after = current === '' ? undefined : pageTokens.decode(binding, current);
      // The store says whether records follow the page, so no empty page carries a next token.
      const page = await store.records.page(kind, {
        locationId,
        ...filter,
        limit: pageSize,
        ...(after === undefined ? {} : { after }),
      });
      const next = page.more && page.last !== undefined ? pageTokens.encode(binding, page.last) : '';
      noteFacts(c, { hasNextPage: next !== '' });
      return c.body(pageBody(current, next, page.chunks), 200, jsonHeaders());
    });

  const getById = (kind: RecordKind) =>
    routes.get(`/v1/${kind.name}/:${kind.idParam}`, authorize, async (c) => {
      const locationId = c.get('locationId');
      const id = parseId(c.req.param(kind.idParam) ?? '', kind.idParam);
      const body = await store.records.get(kind, locationId, id);
      if (body === undefined) {
        throw new LarderError('ERR_NOT_FOUND', {
          message: `No ${kind.label} ${id} at location ${locationId}.`,
        });
      }
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
