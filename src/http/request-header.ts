import { isUtf8 } from 'node:buffer';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { LOCATION_HEADER } from '../shared/limits.js';
import { LarderResponse } from './larder-response.js';

/**
 * A request header by lower-case name. Served over node:http, it is read from the raw header list: building the
 * fetch `Headers` object that `c.req.header()` needs costs more than the rest of a cached-token GET by id's
 * header work. Repeated headers are joined with ", " as `Headers` joins them. Elsewhere (app.request in tests)
 * (app.request in tests, with or without a stand-in `incoming`) it is `c.req.header()`.
 */
export const requestHeader = (c: Context, name: string): string | undefined => {
  const raw = (c.env as Partial<HttpBindings> | undefined)?.incoming?.rawHeaders;
  if (raw === undefined) return c.req.header(name);
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length === name.length && key.toLowerCase() === name)
      value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
};

/** Beyond ASCII, and within the one byte a character Node's header parser makes of each byte. */
const NOT_ASCII = /[^\x00-\x7f]/;
const NOT_BYTES = /[^\x00-\xff]/;

/**
 * A header value as its sender wrote it. Node reads header bytes as Latin-1, one character each, so a value sent
 * as UTF-8 (curl, most HTTP libraries) reads as mojibake (`CafÃ©`): bytes that are valid UTF-8 are read as UTF-8.
 * Any others stay Latin-1, as fetch sends them (`Café` as one byte é); Latin-1 text is hardly ever valid UTF-8.
 */
export const headerText = (value: string): string => {
  if (!NOT_ASCII.test(value) || NOT_BYTES.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
};

/** A header value an error message repeats: as its sender wrote it, cut to 100 characters (it may be 16 KB). */
export const echoedHeader = (value: string): string => {
  const text = headerText(value);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
};

const LOCATION_KEY = LOCATION_HEADER.toLowerCase();

/**
 * The location header, trimmed, as its sender wrote it (headerText): what the journal, the access log and fault
 * rules show and match. Undefined when missing or blank.
 */
export const sentLocation = (c: Context): string | undefined => {
  const sent = requestHeader(c, LOCATION_KEY)?.trim();
  return sent === undefined || sent === '' ? undefined : headerText(sent);
};

/** Where a request's response headers go: deferred on Larder's Node response, else set at once. */
export interface ResponseHeaders {
  /** `name` in lower case (see LarderResponse.deferHeader). */
  deferHeader(name: string, value: string): unknown;
}

/**
 * The response's headers. Served by Larder's server they wait on its LarderResponse and are written with the
 * route's own in one `writeHead`, so Hono need not build a `Headers` object per request, nor Node take its slow
 * header path. On another Node response they are set on it; without one (app.request in tests), on Hono's context.
 */
export const responseHeaders = (c: Context): ResponseHeaders => {
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  if (outgoing instanceof LarderResponse) return outgoing;
  return outgoing === undefined
    ? { deferHeader: (name, value) => c.header(name, value) }
    : { deferHeader: (name, value) => outgoing.setHeader(name, value) };
};

/** Sets one response header (see responseHeaders); `name` in lower case. */
export const setResponseHeader = (c: Context, name: string, value: string): void => {
  responseHeaders(c).deferHeader(name, value);
};
