import type { MiddlewareHandler } from 'hono';

/**
 * A HEAD answer carries the Content-Length its GET would (RFC 9110 §9.3.2). Hono answers HEAD by running the GET
 * route and dropping the body, and the Node adapter, which counts a body only as it writes it, then sends no
 * length at all: here the body the route made is counted before it is dropped.
 */
export const headLength = (): MiddlewareHandler => (c, next) => {
  if (c.req.method !== 'HEAD') return next();
  return next().then(async () => {
    const answer = c.res;
    // Written to the socket by hand (a transport fault): nothing here to count.
    if (
      answer.body === null ||
      answer.headers.has('content-length') ||
      answer.headers.has('x-hono-already-sent')
    )
      return;
    const length = (await answer.arrayBuffer()).byteLength;
    const headers = new Headers(answer.headers);
    headers.set('content-length', String(length));
    c.res = new Response(null, { status: answer.status, statusText: answer.statusText, headers });
  });
};
