import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Context, Hono } from 'hono';
import { LOGIN_PATH } from '../auth/auth-service.js';
import { JWKS_PATH, METADATA_PATH } from '../auth/metadata.js';
import { TOKEN_ENDPOINT_PATH } from '../auth/oauth-token-route.js';
import { KNOWN_SCOPES } from '../auth/scopes.js';
import { LarderError } from '../shared/errors.js';
import { inlineScriptSource } from '../shared/inline-script.js';
import { DOCS_PATH, OPENAPI_PATH } from '../shared/own-paths.js';
import { STORED_THEME_FUNCTION, THEME_STORAGE_KEY } from '../shared/theme.js';
import { DOCS_ASSETS, DOCS_ASSETS_PATH } from './docs-paths.js';

/**
 * `/docs`: the OpenAPI document rendered by Swagger UI (swagger-ui-dist: a well-kept renderer whose try-it
 * supports the OAuth 2.0 client-credentials flow), served from node_modules by Larder itself, so the page makes
 * no request outside this server (its Content-Security-Policy says so to the browser too). And `GET /`: a
 * browser goes to /docs, an API client gets a JSON index of links.
 */

export interface DocsDeps {
  publicUrl: string;
  /** The demo client of a demo database, prefilled in the page's Authorize dialog; undefined elsewhere. */
  demoClient: () => Promise<{ clientId: string; clientSecret: string } | undefined>;
  /**
   * On a demo database, a real record id per GET-by-id path parameter (`purchaseOrderId`, …) at the documented
   * example location, prefilled in try-it; the document's own example ids are generated and not stored.
   */
  exampleIds: () => Promise<Readonly<Record<string, string>>>;
}

/** Read once (about 2 MB), at the first request, so later ones never touch the disk. */
let assets: Map<string, Buffer> | undefined;
const loadAssets = (): Map<string, Buffer> => {
  if (assets !== undefined) return assets;
  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  assets = new Map(Object.keys(DOCS_ASSETS).map((name) => [name, readFileSync(join(root, name))]));
  return assets;
};

/**
 * Dark or light before the first paint: Swagger UI's dark styles apply under `html.dark-mode`, set here from the
 * console's choice (same origin, same storage) or else the system's, and kept in step with both while the page is
 * open (a choice made in a console tab arrives as a storage event).
 */
const THEME_SCRIPT = `(() => {
  const root = document.documentElement;
  const system = matchMedia('(prefers-color-scheme: dark)');
  const chosen = ${STORED_THEME_FUNCTION};
  const apply = () => {
    const theme = chosen();
    root.classList.toggle('dark-mode', theme === 'dark' || (theme !== 'light' && system.matches));
  };
  apply();
  system.addEventListener('change', apply);
  addEventListener('storage', (event) => {
    if (event.key === ${JSON.stringify(THEME_STORAGE_KEY)} || event.key === null) apply();
  });
})();`;

/** Everything from this origin, and the one inline script above, by its hash; Swagger UI styles some elements inline and shows data: images. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  `script-src 'self' ${inlineScriptSource(THEME_SCRIPT)}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Larder API reference</title>
<link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-32x32.png">
<script>${THEME_SCRIPT}</script>
<link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
<style>
html { color-scheme: light; }
html.dark-mode { color-scheme: dark; }
html.dark-mode body { background: #1c2022; }
/* Swagger UI's dark styles leave a response's header table and the "Examples:" label in the light theme's ink
   (#3b4151, 1.5:1 on the dark blocks), Cancel and a request body's "required" at 4.3:1 and a PUT block's section
   header too light for its white text (4.25:1): brought to 4.5:1 or more. */
html.dark-mode .swagger-ui table.headers td, html.dark-mode .swagger-ui .examples-select__section-label { color: #e4e6e6; }
html.dark-mode .swagger-ui .opblock .opblock-section-header .try-out__btn.cancel { border-color: #ff9b91; color: #ff9b91; }
html.dark-mode .swagger-ui .opblock .opblock-section-header .parameter__name.required::after { color: #ff9b91; }
html.dark-mode .swagger-ui .opblock.opblock-put .opblock-section-header { background: #3d2a20; }
/* Light, Swagger UI's own colours fell under WCAG AA's 4.5:1 (1.6 to 3.8:1): white on the method badges, the
   version badges, Execute, Download and the string badges; the green Authorize, the blue links, Cancel, the red
   required markers, the grey "(query)" and "Expand all". Each keeps its hue, darkened to 4.6:1 or more against the
   white or the method's tint beneath it. The tints and borders stay, so each method still reads as its colour. */
html:not(.dark-mode) .swagger-ui .opblock.opblock-get .opblock-summary-method { background: #0b6bcf; }
html:not(.dark-mode) .swagger-ui .opblock.opblock-post .opblock-summary-method { background: #218356; }
html:not(.dark-mode) .swagger-ui .opblock.opblock-put .opblock-summary-method { background: #a95f00; }
html:not(.dark-mode) .swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #d92626; }
html:not(.dark-mode) .swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #117f68; }
html:not(.dark-mode) .swagger-ui .btn.authorize { border-color: #218356; color: #218356; }
html:not(.dark-mode) .swagger-ui .btn.authorize svg { color: #218356; }
html:not(.dark-mode) .swagger-ui .btn.execute { background-color: #1f6fcf; border-color: #1f6fcf; }
html:not(.dark-mode) .swagger-ui .info a, html:not(.dark-mode) .swagger-ui .scopes h2 a { color: #1f6fcf; }
html:not(.dark-mode) .swagger-ui .btn.cancel { border-color: #b52222; color: #b52222; }
html:not(.dark-mode) .swagger-ui .info .title small { background: #68707e; }
html:not(.dark-mode) .swagger-ui .info .title small.version-stamp { background-color: #5a7d00; }
html:not(.dark-mode) .swagger-ui .download-contents { background: #6b7180; }
html:not(.dark-mode) .swagger-ui .json-schema-2020-12__constraint--string { background-color: #94691b; }
html:not(.dark-mode) .swagger-ui .parameter__in, html:not(.dark-mode) .swagger-ui .parameter__extension,
html:not(.dark-mode) .swagger-ui .json-schema-2020-12-expand-deep-button { color: #555; }
html:not(.dark-mode) .swagger-ui .parameter__name.required span,
html:not(.dark-mode) .swagger-ui .parameter__name.required::after,
html:not(.dark-mode) .swagger-ui table.model tr.property-row .star,
html:not(.dark-mode) .swagger-ui .json-schema-2020-12-property--required > .json-schema-2020-12:first-of-type > .json-schema-2020-12-head .json-schema-2020-12__title::after { color: #c00; }
/* Keyboard focus (WCAG 2.4.7, 1.4.11): Swagger UI removes the outline in places (dark: an operation's summary, a
   select; both: a body's textarea), and leaves the browser's ring elsewhere, drawn in Execute's white text colour.
   One ring for every control instead, 3:1 or more against every background beside it: the light links' blue, the
   dark theme's own focus blue. By the root's id, to win over Swagger UI's longer selectors. */
#swagger-ui :is(a, button, input, select, textarea, summary, [tabindex]):focus-visible { outline: 2px solid #1f6fcf; outline-offset: 2px; }
html.dark-mode #swagger-ui :is(a, button, input, select, textarea, summary, [tabindex]):focus-visible { outline-color: #51a8ff; }
/* A copy button sits on its own grey square (1.3:1 under the light blue ring, 2.7:1 under the dark one). */
#swagger-ui .copy-to-clipboard button:focus-visible, html.dark-mode #swagger-ui .copy-to-clipboard button:focus-visible { outline-color: #fff; }
/* A text field's border is its only edge: Swagger UI's light grey (#d9d9d9) is 1.3:1 on an operation's tint, its
   dark body textarea's border the colour of its fill. Brought to 3.5:1 or more, in its own greys. */
html:not(.dark-mode) .swagger-ui :is(input[type=email], input[type=file], input[type=password], input[type=search], input[type=text], textarea) { border-color: #808080; }
html.dark-mode .swagger-ui textarea { border-color: #8c969a; }
/* Dark, an answer's Download button is filled #545d61 on its #2a2e30 code block: 2.0:1, under the 3:1 a control's
   edge needs (WCAG 1.4.11; its label names it, but does not draw where it starts and stops). A border in the dark
   theme's own grey draws it at 4.5:1; the fill stays, for its label's 5.3:1. */
html.dark-mode .swagger-ui .download-contents { border: 1px solid #8c969a; }
/* An answer's copy button sits 100 px in from its code block's right edge, beside Download at 10 px; but Download is
   as wide as its label, 90 px in a wide sans-serif (DejaVu Sans, Debian's), so the two touched and their edges
   ran together. Moved clear of it. */
.swagger-ui .highlight-code > .copy-to-clipboard { right: 112px; }
/* An operation's "Copy path to clipboard" is 0 px wide until the pointer is over its summary: focused by Tab, nothing
   of it showed (WCAG 2.4.11). Shown as a hover shows it while the focus is in the summary. */
.swagger-ui .opblock .opblock-summary:focus-within .view-line-link { margin: 0 5px; width: 18px; }
.swagger-ui .opblock .opblock-summary:focus-within .view-line-link.copy-to-clipboard { width: 24px; }
/* The Authorize dialog's scope checkboxes: Swagger UI hides the real input (display: none, so Tab never reached it)
   and draws a grey square beside it whose edge is 1.2:1 (dark 2.0:1). The browser's own checkbox instead: Tab
   reaches it, and its edge is 4.2:1 or more in both themes, checked or not (WCAG 2.1.1, 1.4.11). */
.swagger-ui .checkbox { display: flex; align-items: baseline; gap: 8px; }
.swagger-ui .checkbox input[type=checkbox] { display: inline-block; }
.swagger-ui .checkbox input[type=checkbox] + label > .item { display: none; }
/* At phone width a wide table (the error codes, an operation's parameters and responses) scrolls in its own box, not the page. */
.swagger-ui .markdown table, .swagger-ui .renderedMarkdown table { display: block; max-width: 100%; overflow-x: auto; }
.swagger-ui .opblock .opblock-body { overflow-x: auto; }
</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

/**
 * The page's script. Requests go to the origin the page came from even when the document's server URL (the
 * issuer, --public-url) names another host for the same server: the page must never call elsewhere.
 */
const initScript = (
  publicUrl: string,
  demo: { clientId: string; clientSecret: string } | undefined,
  ids: Readonly<Record<string, string>>,
) => `'use strict';
(() => {
  const publicUrl = ${JSON.stringify(publicUrl)};
  // The Authorize dialog as a modal dialog (WAI-ARIA APG). Swagger UI closes it on Escape and focuses a token or
  // password field when it shows one, but none once those are authorized; Tab leaves it for the page behind, and
  // closed, the focus is lost to the page's top. Added here: its role and name, the focus moved into it when
  // Swagger UI moves none, Tab and Shift+Tab held within it, and the focus given back to the button that opened it.
  const root = document.getElementById('swagger-ui');
  let dialog = null;
  let opener = null;
  // The button that opens it (Authorize, an operation's lock) is clicked, by the pointer or the keyboard.
  addEventListener('click', (event) => {
    if (dialog === null) opener = event.target.closest('button');
  }, true);
  const controls = () => [...dialog.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')].filter(
    (element) => element.tabIndex >= 0 && !element.disabled && element.getClientRects().length > 0,
  );
  // Swagger UI adds and removes it whole (div.dialog-ux, in Authorize's wrapper): only the records' own nodes are
  // looked at, not the page, whose first render (every operation open) makes thousands of records.
  const dialogIn = (nodes) => [...nodes].find((node) => node.classList?.contains('dialog-ux'));
  new MutationObserver((records) => {
    for (const { addedNodes, removedNodes } of records) {
      if (dialog !== null && dialogIn(removedNodes) !== undefined) {
        dialog = null;
        opener?.focus();
      }
      const added = dialogIn(addedNodes)?.querySelector('.modal-ux');
      if (!added) continue;
      dialog = added;
      dialog.setAttribute('role', 'dialog');
      dialog.setAttribute('aria-modal', 'true');
      const title = dialog.querySelector('h3');
      if (title !== null) dialog.setAttribute('aria-label', title.textContent);
      // Swagger UI gives every bearer scheme's field the same id (auth-bearer-value), so the second scheme's label
      // named the first one's field: each repeat gets an id of its own, its scheme's label following it.
      const ids = new Set();
      for (const scheme of dialog.querySelectorAll('.auth-container')) {
        for (const field of scheme.querySelectorAll('[id]')) {
          const id = field.id;
          if (!ids.has(id)) {
            ids.add(id);
            continue;
          }
          let n = 2;
          while (ids.has(id + '-' + n)) n++;
          field.id = id + '-' + n;
          ids.add(field.id);
          for (const label of scheme.querySelectorAll('label')) if (label.htmlFor === id) label.htmlFor = field.id;
        }
      }
      if (!dialog.contains(document.activeElement)) controls()[0]?.focus();
    }
  }).observe(root, { childList: true, subtree: true });
  addEventListener('keydown', (event) => {
    if (dialog === null || event.key !== 'Tab') return;
    // From its last control (its first, going back) or from outside it, round to the other end.
    const all = controls();
    const [end, other] = event.shiftKey ? [all[0], all.at(-1)] : [all.at(-1), all[0]];
    if (dialog.contains(document.activeElement) && document.activeElement !== end) return;
    event.preventDefault();
    other?.focus();
  });
  // Swagger UI resolves the references of each operation or schema as it is opened, and for an OpenAPI 3.1
  // document its resolver parses the whole document again each time (swagger-api/swagger-ui#10748): 1.4–1.7 s an
  // operation here, and over two minutes to open them all. Asked for the whole document once instead, it parses it
  // once (under a second) and every later part is already resolved. Again only if the document itself changes.
  const resolveWholeDocumentOnce = () => {
    let resolved = null;
    return {
      statePlugins: {
        spec: {
          wrapActions: {
            requestResolvedSubtree: (request, system) => () => {
              const spec = system.specSelectors.specJson();
              if (resolved === spec) return;
              resolved = spec;
              return request([]);
            },
          },
        },
      },
    };
  };
  const start = (source) => SwaggerUIBundle({
    ...source,
    dom_id: '#swagger-ui',
    plugins: [resolveWholeDocumentOnce],
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    displayOperationId: true,
    // Its colours all meet 4.5:1 on the code blocks of both themes; the default (agate) draws numbers at 3.5:1.
    syntaxHighlight: { theme: 'tomorrow-night' },
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    requestInterceptor: (request) => {
      if (request.url.startsWith(publicUrl + '/')) request.url = location.origin + request.url.slice(publicUrl.length);
      return request;
    },
  });
  // Sampled from its schema, the token form would send scope=string (a scope no client has) and
  // client_id=string: blank, the scope asks for every granted one and the client is the Authorize dialog's.
  fetch(${JSON.stringify(OPENAPI_PATH)})
    .then((response) => response.json())
    .then((spec) => {
      const formRef = spec.paths[${JSON.stringify(TOKEN_ENDPOINT_PATH)}].post.requestBody.content['application/x-www-form-urlencoded'].schema.$ref;
      const form = spec.components.schemas[formRef.split('/').pop()].properties;
      for (const field of ['scope', 'client_id', 'client_secret']) form[field].example = '';
      const ids = ${JSON.stringify(ids)};
      for (const item of Object.values(spec.paths))
        for (const parameter of item.get?.parameters ?? [])
          if (parameter.in === 'path' && Object.hasOwn(ids, parameter.name)) parameter.example = ids[parameter.name];
      ${
        demo === undefined
          ? `const ui = start({ spec });`
          : `// On a demo database the login's example body and the token form are the demo client's, so their
      // try-it gets a token as it stands.
      const body = spec.paths[${JSON.stringify(LOGIN_PATH)}].post.requestBody.content['application/json'];
      body.example = { ...body.example, ${`clientId: ${JSON.stringify(demo.clientId)}, clientSecret: ${JSON.stringify(demo.clientSecret)}`} };
      form.client_id.example = ${JSON.stringify(demo.clientId)};
      form.client_secret.example = ${JSON.stringify(demo.clientSecret)};
      const ui = start({ spec });
      ui.initOAuth(${JSON.stringify({ clientId: demo.clientId, clientSecret: demo.clientSecret, scopes: [...KNOWN_SCOPES] })});`
      }
      window.ui = ui;
    });
})();
`;

const noCache = { 'Cache-Control': 'no-store' };

/** Accept: text/html (a browser's navigation) before any JSON preference. */
const wantsHtml = (c: Context): boolean => {
  const accept = c.req.header('accept') ?? '';
  return /\btext\/html\b/i.test(accept);
};

export const createDocsRoutes = ({ publicUrl, demoClient, exampleIds }: DocsDeps): Hono => {
  const routes = new Hono();
  const index = JSON.stringify({
    name: 'Larder',
    links: {
      docs: `${publicUrl}${DOCS_PATH}`,
      openapi: `${publicUrl}${OPENAPI_PATH}`,
      login: `${publicUrl}${LOGIN_PATH}`,
      token: `${publicUrl}${TOKEN_ENDPOINT_PATH}`,
      metadata: `${publicUrl}${METADATA_PATH}`,
      jwks: `${publicUrl}${JWKS_PATH}`,
      health: `${publicUrl}/healthz`,
      ready: `${publicUrl}/readyz`,
    },
  });

  routes.get('/', (c) => {
    c.header('Vary', 'Accept');
    if (wantsHtml(c)) return c.redirect(DOCS_PATH, 302);
    return c.body(index, 200, { 'content-type': 'application/json; charset=utf-8' });
  });
  routes.get(DOCS_PATH, (c) =>
    c.html(PAGE, 200, { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, ...noCache }),
  );
  routes.get(`${DOCS_PATH}/init.js`, async (c) =>
    c.body(initScript(publicUrl, await demoClient(), await exampleIds()), 200, {
      'content-type': 'text/javascript; charset=utf-8',
      ...noCache,
    }),
  );
  routes.get(`${DOCS_ASSETS_PATH}/:name`, (c) => {
    const name = c.req.param('name');
    const type = DOCS_ASSETS[name];
    const body = type === undefined ? undefined : loadAssets().get(name);
    if (type === undefined || body === undefined) throw new LarderError('ERR_ROUTE_NOT_FOUND');
    return c.body(new Uint8Array(body), 200, {
      'content-type': type,
      'Cache-Control': 'public, max-age=86400',
    });
  });
  return routes;
};
