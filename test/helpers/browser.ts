import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { REPO } from './repo.js';

/**
 * Browser tests drive Debian's `chromium` package through playwright-core: no browser is downloaded (`.ci/run`
 * installs the package when it is missing). Every request the browser makes is recorded, and any that would
 * leave the server's origin is aborted, so a test can assert the page works offline and calls nothing else.
 */
export const CHROMIUM = process.env['LARDER_CHROMIUM'] ?? '/usr/bin/chromium';

/** Where the run's screenshots go; the README shows the committed ones. */
export const SCREENSHOT_DIR = process.env['LARDER_SCREENSHOTS'] ?? join(REPO, 'docs', 'screenshots');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface Viewport {
  width: number;
  height: number;
}
export const LAPTOP: Viewport = { width: 1280, height: 800 };
export const PHONE: Viewport = { width: 390, height: 844 };

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** The server's origin, e.g. http://127.0.0.1:41234. */
  origin: string;
  /** Every URL the browser asked for (pages, workers, fetches, assets), in order. */
  requests: readonly string[];
  /** The requests whose origin was not the server's (they were aborted); a test asserts this is empty. */
  offOrigin(): string[];
  /** Saves what the page shows (the viewport) as `<name>.png` in SCREENSHOT_DIR; answers the file path. */
  screenshot(name: string, page?: Page): Promise<string>;
  close(): Promise<void>;
}

/** URLs that never touch the network. */
const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:']);

const isOffOrigin = (url: string, origin: string): boolean => {
  const parsed = new URL(url);
  if (LOCAL_SCHEMES.has(parsed.protocol)) return false;
  // A WebSocket to the server itself is same-origin for this purpose.
  const asHttp = parsed.protocol.startsWith('ws')
    ? `http${parsed.protocol.slice(2)}//${parsed.host}`
    : parsed.origin;
  return asHttp !== origin;
};

/**
 * Launches Chromium with a fresh profile, opens a page at `serverUrl` + `path`, and records every request. The
 * caller closes the session (in `after`/`finally`); closing removes the profile.
 */
export const openBrowser = async (
  serverUrl: string,
  options: { path?: string; viewport?: Viewport } = {},
): Promise<BrowserSession> => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)`);
  const origin = new URL(serverUrl).origin;
  const profile = await mkdtemp(join(tmpdir(), 'larder-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: options.viewport ?? LAPTOP,
    });
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  await context.route(
    (url) => isOffOrigin(url.href, origin),
    (route) => route.abort('blockedbyclient'),
  );
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('websocket', (socket) => requests.push(socket.url()));
  if (options.path !== undefined) await page.goto(new URL(options.path, serverUrl).href);
  return {
    context,
    page,
    origin,
    requests,
    offOrigin: () => requests.filter((url) => isOffOrigin(url, origin)),
    screenshot: async (name, shot = page) => {
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      const file = join(SCREENSHOT_DIR, `${name}.png`);
      await shot.screenshot({ path: file });
      return file;
    },
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
};
