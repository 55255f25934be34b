import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { requestHeader } from '../../http/request-header.js';
import { LarderError } from '../../shared/errors.js';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Locks the admin API with its own bearer token, compared in constant time (digests of equal length, so not
 * even the token's length leaks). Retail access tokens never open it, and it opens nothing else.
 */
export const adminAuth = (adminToken: string): MiddlewareHandler => {
  const expected = digest(adminToken);
  return async (c, next) => {
    const match = /^Bearer +(\S+) *$/i.exec(requestHeader(c, 'authorization') ?? '');
    if (match === null || !timingSafeEqual(digest(match[1]!), expected))
      throw new LarderError('ERR_ADMIN_UNAUTHENTICATED', {
        headers: { 'WWW-Authenticate': 'Bearer realm="larder-admin"' },
      });
    await next();
  };
};
