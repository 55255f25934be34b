import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';

/**
 * The route pattern a request matched (`/v1/purchaseOrders/:purchaseOrderId`), read after the handler ran, so
 * logs and metrics group by endpoint and carry no record ids; undefined when no route matched.
 */
export const matchedRoute = (c: Context): string | undefined => {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i];
    if (route !== undefined && route.method !== 'ALL') return route.path;
  }
  return undefined;
};
