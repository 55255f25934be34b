import { DOCS_PATH } from '../shared/own-paths.js';

export const DOCS_ASSETS_PATH = `${DOCS_PATH}/assets`;

/** The only files served from swagger-ui-dist, with their types. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
