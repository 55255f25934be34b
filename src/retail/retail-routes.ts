import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { singleQuery } from '../http/query-param.js';
import { readJsonObject, SEARCH_BODY_HINT } from '../http/request-body.js';
import { noteFacts, noteSearch } from '../http/request-facts.js';
import { RECORD_KINDS, type RecordKind } from '../records/kinds.js';
import { didYouMean } from '../shared/did-you-mean.js';
import { LarderError } from '../shared/errors.js';
import type { RecordReader } from './record-reader.js';

// A fresh record per response: @hono/node-server writes Content-Length into the record it is handed.
const jsonHeaders = () => ({ 'content-type': 'application/json; charset=utf-8' });

export interface RetailRoutesDeps {
  /** Runs before every retail operation and sets `locationId` (and `principal`) on the context. */
  authorize: MiddlewareHandler;
  records: RecordReader;
  /** Notes, for the journal, whose token a request refused before authorization carried. */
  noteCaller?: (c: Context) => void;
}

/**
 * The retail operations, two per record kind (search, get by id), registered by looping over the kinds. Each
 * handler does its operation's work: authorization (token, scope, grant, location) ran before it.
 */
export const createRetailRoutes = ({ authorize, records, noteCaller }: RetailRoutesDeps): Hono => {
  const routes = new Hono();

  const search = (kind: RecordKind) =>
    routes.post(`/v1/${kind.name}/search`, authorize, async (c) => {
      const locationId = c.get('locationId');
      const body = await readJsonObject(c, { missingHint: SEARCH_BODY_HINT });
      const current = singleQuery(c, 'pageToken') ?? '';
      const rawPageSize = singleQuery(c, 'pageSize');
      noteSearch(c, body, current, rawPageSize);
      const page = await records.search(kind, locationId, {
        body,
        pageToken: current,
        pageSize: rawPageSize,
      });
      noteFacts(c, { hasNextPage: page.hasNextPage });
      return c.body(page.body, 200, jsonHeaders());
    });

  const getById = (kind: RecordKind) => {
    const searchPath = `/v1/${kind.name}/search`;
    // `GET …/search` matches this route too (a route of its own would slow every request's match, see
    // retailMethodError): the search path with the wrong method, a 405 before any authorization, as for others.
    const notSearch: MiddlewareHandler = (c, next) => {
      if (c.req.path === searchPath) {
        noteCaller?.(c);
        throw searchOnlyPost(searchPath);
      }
      return authorize(c, next);
    };
    routes.get(`/v1/${kind.name}/:${kind.idParam}`, notSearch, async (c) => {
      const body = await records.get(kind, c.get('locationId'), c.req.param(kind.idParam) ?? '');
      // Bytes from a store are Buffers, never views of a SharedArrayBuffer.
      return c.body(body as string | Uint8Array<ArrayBuffer>, 200, jsonHeaders());
    });
  };

  for (const kind of RECORD_KINDS) {
    search(kind);
    getById(kind);
  }

  return routes;
};

const searchOnlyPost = (path: string) =>
  new LarderError('ERR_METHOD_NOT_ALLOWED', {
    headers: { allow: 'POST' },
    message: `${path} takes POST only: a search sends its filter as a JSON body.`,
  });

/**
 * The error for a request to a retail path with a method it does not take (a 405 with `Allow` saying which), or
 * undefined for a path that is not a retail endpoint. Answered where no route matched, not by routes of their
 * own: a `GET …/search` route beside `GET …/:id` (or `POST …/:id` beside `POST …/search`) is a pair Hono's
 * RegExpRouter refuses, and the app then falls back to its TrieRouter, which costs every request about a
 * microsecond more to match (and a few objects). A POST to a near miss of `search` (`…/seach`, `…/Search`) is
 * a mistyped search, not a record asked with the wrong method: a 404 saying what it meant.
 */
export const retailMethodError = (method: string, path: string): LarderError | undefined => {
  for (const { name } of RECORD_KINDS) {
    const prefix = `/v1/${name}/`;
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    if (rest === 'search') return searchOnlyPost(path);
    if (rest === '' || rest.includes('/')) return undefined;
    if (method === 'POST' && didYouMean(rest.toLowerCase(), ['search']).length > 0)
      return new LarderError('ERR_ROUTE_NOT_FOUND', {
        message: `No such endpoint. Did you mean POST ${prefix}search?`,
      });
    return new LarderError('ERR_METHOD_NOT_ALLOWED', {
      headers: { allow: 'GET, HEAD' },
      message: `${path} is one record: it takes GET (or HEAD). Searches are POST ${prefix}search.`,
    });
  }
  return undefined;
};
