/** Where the reference lives; the routes (docs-routes.ts) and the document (openapi.ts) both say so. */
export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_ASSETS_PATH = `${DOCS_PATH}/assets`;

/** The only files served from swagger-ui-dist, with their types. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
