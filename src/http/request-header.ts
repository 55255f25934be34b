import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';

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

/** Where a request's response headers go: the Node response when there is one, else Hono's context. */
export interface ResponseHeaders {
  setHeader(name: string, value: string): unknown;
}

/**
 * The response's headers, to set several at once: on the Node response when served over node:http, so Hono need
 * not build a `Headers` object and merge it per request.
 */
export const responseHeaders = (c: Context): ResponseHeaders =>
  (c.env as Partial<HttpBindings> | undefined)?.outgoing ?? {
    setHeader: (name, value) => c.header(name, value),
  };

/** Sets one response header (see responseHeaders). */
export const setResponseHeader = (c: Context, name: string, value: string): void => {
  responseHeaders(c).setHeader(name, value);
};
