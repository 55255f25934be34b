import { Hono } from 'hono';
import { readJsonObject } from '../http/request-body.js';
import { requestHeader } from '../http/request-header.js';
import { RECORD_KINDS, type RecordFilter } from '../records/kinds.js';
import { LarderError } from '../shared/errors.js';
import type { Store, StoredJson, StoredRow } from '../storage/store.js';
import type { PageTokens } from './page-token.js';

/**
 * The guard every retail route passes through before it touches data (implemented by src/auth). With no
 * location (header missing) it still checks the token, so an anonymous caller learns nothing but "401".
 */
export interface RetailGuard {
  authorizeRetail(authorization: string | undefined, locationId: string | undefined): unknown;
}

export const LOCATION_HEADER = 'Platform-Restaurant-External-ID';
const LOCATION_HEADER_KEY = LOCATION_HEADER.toLowerCase();
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A fresh record per response: @hono/node-server writes Content-Length into the record it is handed.
const jsonHeaders = () => ({ 'content-type': 'application/json; charset=utf-8' });

export interface RetailRoutesDeps {
  store: Store;
  guard: RetailGuard;
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
 * Splices the stored JSON of each row into the page envelope: records are never parsed on the read path. The
 * page is written straight into one exactly sized buffer: a concatenated string would be flattened, measured
 * and UTF-8 encoded again on the way out (0.85 ms against 0.24 ms for a 400 KB page). Rows that come as bytes
 * are copied as they are.
 */
const pageBody = (
  current: string,
  next: string,
  rows: readonly StoredRow[],
  count: number,
): Uint8Array<ArrayBuffer> => {
  const head = `{"currentPageToken":${JSON.stringify(current)},"nextPageToken":${JSON.stringify(next)},"data":[`;
  let size = Buffer.byteLength(head) + 2 + Math.max(count - 1, 0);
  for (let i = 0; i < count; i++) {
    const json = rows[i]!.json;
    size += typeof json === 'string' ? Buffer.byteLength(json) : json.byteLength;
  }
  const body = Buffer.allocUnsafe(size);
  let offset = body.write(head);
  for (let i = 0; i < count; i++) {
    if (i > 0) body[offset++] = 0x2c; // ,
    const json = rows[i]!.json;
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

export const createRetailRoutes = ({ store, guard, pageTokens }: RetailRoutesDeps): Hono => {
  const routes = new Hono();

  /** Token first (401/403), then the header (400), then the grant (403). */
  const authorizedLocation = async (authorization: string | undefined, header: string | undefined) => {
    const locationId = header?.trim();
    if (locationId === undefined || locationId === '') {
      await guard.authorizeRetail(authorization, undefined);
      throw new LarderError('ERR_LOCATION_HEADER', {
        fieldName: LOCATION_HEADER,
        message: `The ${LOCATION_HEADER} header is required and must not be empty.`,
      });
    }
    const pending = guard.authorizeRetail(authorization, locationId);
    if (pending instanceof Promise) await pending;
    return locationId;
  };

  const search = <F extends RecordFilter>(
    operation: string,
    parse: (body: unknown) => F,
    run: (
      locationId: string,
      filter: F,
      limit: number,
      after: ReturnType<PageTokens['decode']> | undefined,
    ) => Promise<StoredRow[]>,
  ) =>
    routes.post(`/v1/${operation}/search`, async (c) => {
      const locationId = await authorizedLocation(
        requestHeader(c, 'authorization'),
        requestHeader(c, LOCATION_HEADER_KEY),
      );
      const filter = parse(await readJsonObject(c));
      const pageSize = parsePageSize(c.req.query('pageSize'));
      const current = c.req.query('pageToken') ?? '';
      const binding = `${operation}\n${locationId}\n${filter.binding}\n${pageSize}`;
      const after = current === '' ? undefined : pageTokens.decode(binding, current);
      // One row past the page tells whether another page exists, so no empty page carries a next token.
      const rows = await run(locationId, filter, pageSize + 1, after);
      const count = Math.min(rows.length, pageSize);
      const next = rows.length > pageSize ? pageTokens.encode(binding, rows[pageSize - 1]!) : '';
      return c.body(pageBody(current, next, rows, count), 200, jsonHeaders());
    });

  const getById = (
    path: string,
    param: string,
    label: string,
    load: (locationId: string, id: string) => Promise<StoredJson | undefined>,
  ) =>
    routes.get(`/v1/${path}/:${param}`, async (c) => {
      const locationId = await authorizedLocation(
        requestHeader(c, 'authorization'),
        requestHeader(c, LOCATION_HEADER_KEY),
      );
      const id = parseId(c.req.param(param) ?? '', param);
      const body = await load(locationId, id);
      if (body === undefined) {
        throw new LarderError('ERR_NOT_FOUND', {
          message: `No ${label} ${id} at location ${locationId}.`,
        });
      }
      // Bytes from a store are Buffers, never views of a SharedArrayBuffer.
      return c.body(body as string | Uint8Array<ArrayBuffer>, 200, jsonHeaders());
    });

  // Registered before the by-id routes, so `GET …/search` is a 405 rather than "search is not a UUID".
  for (const { name: operation } of RECORD_KINDS) {
    routes.on(['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], `/v1/${operation}/search`, () => {
      throw new LarderError('ERR_METHOD_NOT_ALLOWED', { headers: { allow: 'POST' } });
    });
  }
  for (const kind of RECORD_KINDS) {
    search(kind.name, kind.parseFilter, (locationId, filter, limit, after) =>
      store.records.search(kind, { locationId, ...filter, limit, ...(after === undefined ? {} : { after }) }),
    );
    getById(kind.name, kind.idParam, kind.label, (locationId, id) => store.records.get(kind, locationId, id));
  }
  for (const { name: operation } of RECORD_KINDS) {
    routes.on(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], `/v1/${operation}/:id`, () => {
      throw new LarderError('ERR_METHOD_NOT_ALLOWED', { headers: { allow: 'GET, HEAD' } });
    });
  }

  return routes;
};
