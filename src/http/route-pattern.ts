import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';

/**
 * The route pattern a request matched (`/v1/purchaseOrders/:purchaseOrderId`), read after the handler ran, so
 * logs and metrics group by endpoint and carry no record ids; undefined when no route matched. The first route
 * (not middleware) the request matched is the one it was for.
 */
export const matchedRoute = (c: Context): string | undefined => {
  for (const route of matchedRoutes(c)) if (route.method !== 'ALL') return route.path;
  return undefined;
};
