import { ADMIN_PREFIX } from './limits.js';

/** Where Larder serves its own reference, console and probes (routes, the OpenAPI document and banners say so). */
export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/openapi.json';
export const CONSOLE_PATH = '/console';
export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';

const under = (path: string, root: string) => path === root || path.startsWith(`${root}/`);

/**
 * Larder's own pages and probes, not the integration's traffic: never journaled and never faulted, so a catch-all
 * fault rule leaves the docs, the console and the health checks answering, and a rule aimed only at them is refused.
 */
export const isLarderOwnPath = (path: string): boolean =>
  path.startsWith(ADMIN_PREFIX) ||
  under(path, DOCS_PATH) ||
  under(path, CONSOLE_PATH) ||
  path === OPENAPI_PATH ||
  path === HEALTH_PATH ||
  path === READY_PATH ||
  path === '/favicon.ico';
