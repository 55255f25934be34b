import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { Hono } from 'hono';
import { LarderError } from '../shared/errors.js';
import { inlineScriptSource } from '../shared/inline-script.js';
import { CONSOLE_PATH } from '../shared/own-paths.js';
import { CONSOLE_THEME_SCRIPT } from '../shared/theme.js';

/** Where the web console is served; the built files (console/dist, made by `npm run build:console`) live below. */

/** console/dist from src/sandbox (tests) and from dist/sandbox (the built server) alike. */
const DEFAULT_DIR = join(import.meta.dirname, '..', '..', 'console', 'dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

/** The built console is a handful of small files: a bound on what is read into memory, should the folder grow. */
const MAX_FILES = 100;
const MAX_TOTAL_BYTES = 5 * 1024 * 1024;

/**
 * The page may load from and talk to this server only: no CDN, font or analytics call can leave it, and the admin
 * token, read from the URL fragment, never travels in a Referer. `data:` images: the page's empty icon, so no
 * browser asks for /favicon.ico. Its one inline script, the theme's, by its hash.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; " +
    `script-src 'self' ${inlineScriptSource(CONSOLE_THEME_SCRIPT)}; ` +
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
}

const listFiles = async (dir: string): Promise<string[]> => {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
};

/**
 * The page with the theme's script first in its head: a chosen theme shows from the first paint, not once the
 * module script has run. Added here, not in console/index.html, so the script and the hash its CSP allows are one
 * text whatever build is served.
 */
const withThemeScript = (page: Uint8Array<ArrayBuffer>, file: string): Uint8Array<ArrayBuffer> => {
  const html = new TextDecoder().decode(page);
  const head = /<head>/i.exec(html);
  if (head === null) throw new Error(`The console page ${file} has no <head>.`);
  const at = head.index + head[0].length;
  return new TextEncoder().encode(
    `${html.slice(0, at)}<script>${CONSOLE_THEME_SCRIPT}</script>${html.slice(at)}`,
  );
};

/** The built console's files by URL path, or undefined when it was not built. */
export const loadConsoleAssets = async (dir = DEFAULT_DIR): Promise<Map<string, Asset> | undefined> => {
  const files = await listFiles(dir).catch(() => undefined);
  if (files === undefined || !files.some((file) => file.endsWith(`${sep}index.html`))) return undefined;
  if (files.length > MAX_FILES)
    throw new Error(`The console folder ${dir} holds more than ${MAX_FILES} files.`);
  const assets = new Map<string, Asset>();
  let total = 0;
  for (const file of files) {
    const body = new Uint8Array(await readFile(file));
    total += body.byteLength;
    if (total > MAX_TOTAL_BYTES) throw new Error(`The console folder ${dir} holds more than 5 MiB.`);
    const path = relative(dir, file).split(sep).join('/');
    assets.set(path, {
      body: path === 'index.html' ? withThemeScript(body, file) : body,
      type: TYPES[extname(file)] ?? 'application/octet-stream',
    });
  }
  return assets;
};

/**
 * The web console at /console: its page (for /console and /console/) and its hashed assets. Without a built
 * console every path answers 404 saying how to build it. The page holds no secret: it asks the admin API, with the
 * admin token the user brings, for everything it shows.
 */
export const createConsoleRoutes = (assets: Map<string, Asset> | undefined): Hono => {
  const routes = new Hono();
  routes.get('/*', (c) => {
    if (assets === undefined)
      throw new LarderError('ERR_ROUTE_NOT_FOUND', {
        message: 'The console is not built: run `npm run build:console` (npm ci does) and restart.',
      });
    const path = c.req.path.slice(CONSOLE_PATH.length).replace(/^\//, '');
    // The page at /console (and /console/), its files under assets/: the paths the OpenAPI document names.
    const page = path === '';
    const asset = page ? assets.get('index.html') : path.startsWith('assets/') ? assets.get(path) : undefined;
    if (asset === undefined) throw new LarderError('ERR_ROUTE_NOT_FOUND');
    return c.body(asset.body, 200, {
      'content-type': asset.type,
      // Assets carry a content hash in their name; the page must be read again to pick up a new build.
      'cache-control': page ? 'no-cache' : 'public, max-age=31536000, immutable',
      ...(page ? PAGE_HEADERS : { 'x-content-type-options': 'nosniff' }),
    });
  });
  return routes;
};
