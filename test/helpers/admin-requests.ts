import type { Hono } from 'hono';

/** Admin API calls in process: `admin(method, path, body?, token?)` with a JSON body, and `json(response)`. */
export const adminRequests = (app: () => Hono, adminToken: string) => ({
  admin: (method: string, path: string, body?: unknown, token = adminToken) =>
    app().request(`/_larder${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  json: async <T = Record<string, unknown>>(response: Response | Promise<Response>) =>
    (await (await response).json()) as T,
});

/** The config of an in-process app with the admin API on. */
export const adminConfig = (adminToken: string) => ({
  publicUrl: 'http://larder.test',
  tokenTtlSeconds: 86_400,
  trustProxy: false as const,
  adminToken,
});
