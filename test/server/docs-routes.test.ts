import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { parseCommandArgs } from '../../src/cli/command.js';
import { serveCommand } from '../../src/cli/commands/serve-command.js';
import { parseServeConfig } from '../../src/cli/serve-config.js';
import { LOCATION_HEADER } from '../../src/shared/limits.js';
import { THEME_STORAGE_KEY } from '../../src/shared/theme.js';
import { LOGIN, loginRequest } from '../auth/harness.js';
import { larder } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** GET /, /docs and its assets, `larder openapi` and the --cors option, without a browser (test/browser has one). */

describe('on a demo database', () => {
  let running: TestServer;
  before(async () => {
    running = await startTestServer({ demo: true });
  });
  after(() => running?.stop());

  test('GET / sends a browser to /docs and gives an API client a JSON index of links', async () => {
    const browser = await fetch(`${running.server.url}/`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      redirect: 'manual',
    });
    assert.equal(browser.status, 302);
    assert.equal(browser.headers.get('location'), '/docs');
    const client = await fetch(`${running.server.url}/`, { headers: { accept: 'application/json' } });
    assert.equal(client.status, 200);
    assert.match(client.headers.get('vary') ?? '', /Accept/);
    const index = (await client.json()) as { links: Record<string, string> };
    assert.equal(index.links['docs'], `${running.server.publicUrl}/docs`);
    assert.equal(index.links['openapi'], `${running.server.publicUrl}/openapi.json`);
    const plain = await fetch(`${running.server.url}/`);
    assert.equal(plain.status, 200, 'curl (Accept: */*) gets the JSON');
  });

  test('/docs loads only its own assets, under a same-origin Content-Security-Policy', async () => {
    const page = await fetch(`${running.server.url}/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const policy = page.headers.get('content-security-policy') ?? '';
    assert.match(policy, /default-src 'self'/);
    assert.match(policy, /connect-src 'self'/);
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    assert.ok(sources.length >= 3);
    for (const source of sources) {
      assert.ok(source.startsWith('/docs/'), source);
      const asset = await fetch(`${running.server.url}${source}`);
      assert.equal(asset.status, 200, source);
      assert.ok((await asset.arrayBuffer()).byteLength > 0, source);
    }
    assert.equal((await fetch(`${running.server.url}/docs/assets/package.json`)).status, 404);
    assert.equal((await fetch(`${running.server.url}/docs/assets/..%2Fpackage.json`)).status, 404);
  });

  test("the page's one inline script (its theme, set before the first paint) is allowed by its hash, and reads the console's choice", async () => {
    const page = await fetch(`${running.server.url}/docs`);
    const policy = page.headers.get('content-security-policy') ?? '';
    const inline = [...(await page.text()).matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
      (match) => match[1]!,
    );
    assert.equal(inline.length, 1);
    const hash = createHash('sha256').update(inline[0]!).digest('base64');
    assert.match(policy, new RegExp(`script-src 'self' 'sha256-${hash.replace(/[+/]/g, '\\$&')}'`));
    assert.match(inline[0]!, new RegExp(`localStorage\\.getItem\\("${THEME_STORAGE_KEY}"\\)`));
  });

  test('the page script prefills the demo client for try-it', async () => {
    const script = await (await fetch(`${running.server.url}/docs/init.js`)).text();
    assert.ok(script.includes(JSON.stringify(running.demo!.clientId)));
    assert.ok(script.includes(JSON.stringify(running.demo!.clientSecret)));
    assert.match(script, /validatorUrl: null/);
  });

  test("the page script prefills try-it's GET-by-id paths with ids the demo location really holds", async () => {
    const script = await (await fetch(`${running.server.url}/docs/init.js`)).text();
    const ids = JSON.parse(/const ids = (\{.*\});/.exec(script)?.[1] ?? '{}') as Record<string, string>;
    const served = (await (await fetch(`${running.server.url}/openapi.json`)).json()) as {
      paths: Record<string, { get?: { parameters: { name: string; in: string; example?: string }[] } }>;
    };
    const login = await fetch(`${running.server.url}${LOGIN}`, loginRequest(running.demo!));
    const { token } = (await login.json()) as { token: { accessToken: string } };
    const tried: string[] = [];
    for (const [path, item] of Object.entries(served.paths)) {
      const parameters = item.get?.parameters ?? [];
      const idParameter = parameters.find((parameter) => parameter.in === 'path' && path.startsWith('/v1/'));
      if (idParameter === undefined) continue;
      const id = ids[idParameter.name];
      assert.ok(id, `no example for ${idParameter.name}`);
      const location = parameters.find((parameter) => parameter.in === 'header')?.example;
      const answer = await fetch(`${running.server.url}${path.replace(`{${idParameter.name}}`, id)}`, {
        headers: { authorization: `Bearer ${token.accessToken}`, [LOCATION_HEADER]: String(location) },
      });
      assert.equal(answer.status, 200, `${path} with ${id}`);
      tried.push(idParameter.name);
    }
    assert.deepEqual(tried.sort(), ['inventoryHistoryEntryId', 'purchaseOrderId'].sort());
  });
});

test('without a demo client the page script names no credentials', async () => {
  const running = await startTestServer();
  try {
    const script = await (await fetch(`${running.server.url}/docs/init.js`)).text();
    assert.doesNotMatch(script, /initOAuth|clientSecret/);
    assert.match(script, /const ids = \{\};/, 'no example ids outside a demo database');
  } finally {
    await running.stop();
  }
});

test('without the admin API, /openapi.json names no sandbox path, tag, scheme or shape; with it, all of them', async () => {
  type Served = {
    paths: Record<string, unknown>;
    tags: { name: string }[];
    components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  };
  const named = async (options: Parameters<typeof startTestServer>[0]) => {
    const running = await startTestServer(options);
    try {
      const served = (await (await fetch(`${running.server.url}/openapi.json`)).json()) as Served;
      return [
        ...Object.keys(served.paths),
        ...served.tags.map((tag) => `tag ${tag.name}`),
        ...Object.keys(served.components.schemas),
        ...Object.keys(served.components.securitySchemes).map((scheme) => `scheme ${scheme}`),
      ];
    } finally {
      await running.stop();
    }
  };
  const sandboxOnly =
    /^\/_larder|^\/console|^tag sandbox$|^FaultRule|^JournalEntry$|^ClockView$|^scheme admin$/;
  const production = await named({});
  assert.deepEqual(
    production.filter((name) => sandboxOnly.test(name)),
    [],
  );
  assert.ok(production.includes('/v1/purchaseOrders/search') && production.includes('PurchaseOrder'));
  const sandbox = await named({ demo: true });
  for (const name of [
    '/_larder/clock',
    '/console',
    'tag sandbox',
    'FaultRule',
    'JournalEntry',
    'scheme admin',
  ])
    assert.ok(sandbox.includes(name), `${name} is missing`);
});

test('`larder openapi` prints the document, naming the given server', async () => {
  const run = await larder(['openapi', '--public-url', 'https://larder.example.com/']);
  assert.equal(run.code, 0, run.stderr);
  const document = JSON.parse(run.stdout) as { openapi: string; servers: { url: string }[] };
  assert.equal(document.openapi, '3.1.0');
  assert.deepEqual(document.servers, [{ url: 'https://larder.example.com' }]);
  const bad = await larder(['openapi', '--public-url', 'ftp://x']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--public-url must use http or https/);
});

describe('--cors', () => {
  const parse = (argv: string[], env: Record<string, string> = {}) => {
    const args = parseCommandArgs(serveCommand, argv, {
      stdout: () => {},
      stderr: () => {},
      env,
      isTty: false,
    });
    assert.notEqual(args, 'help');
    return parseServeConfig(args as Exclude<typeof args, 'help'>);
  };

  test('is off by default, takes a list of origins or *, and LARDER_CORS too', () => {
    assert.equal(parse([]).cors, undefined);
    assert.deepEqual(parse(['--cors', 'https://a.example, http://localhost:3000']).cors, [
      'https://a.example',
      'http://localhost:3000',
    ]);
    assert.deepEqual(parse(['--cors', '*']).cors, ['*']);
    assert.deepEqual(parse([], { LARDER_CORS: 'https://b.example' }).cors, ['https://b.example']);
  });

  test('refuses what is not an origin, naming it', () => {
    for (const bad of [
      'https://a.example/',
      'https://a.example/app',
      'a.example',
      'ftp://a.example',
      'https://a.example,',
    ])
      assert.throws(() => parse(['--cors', bad]), /--cors takes origins/, bad);
  });

  test('is in `larder serve --help`', async () => {
    const help = await larder(['serve', '--help']);
    assert.match(help.stdout, /--cors ORIGIN\[,ORIGIN\]/);
    assert.match(help.stdout, /LARDER_CORS/);
  });
});
