import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The peer address for per-address throttling. With `trustProxy`, the address the nearest proxy appended to
 * X-Forwarded-For (the only entry a client cannot forge); otherwise the socket peer. Undefined when the
 * request did not come through @hono/node-server (in-process tests).
 */
export const sourceAddress = (c: Context, trustProxy: boolean): string | undefined => {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded !== undefined && forwarded !== '') return forwarded;
  }
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
};
