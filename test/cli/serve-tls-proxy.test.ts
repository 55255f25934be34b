import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { clientAddress, parseTrustProxy, trustedBy } from '../../src/auth/source-address.js';
import { parseCommandArgs, UsageError } from '../../src/cli/command.js';
import { serveCommand } from '../../src/cli/commands/serve-command.js';
import { serve } from '../../src/cli/serve.js';
import { parseServeConfig } from '../../src/cli/serve-config.js';
import { makeDevelopmentCertificate } from '../../src/cli/tls.js';
import { silentLogger } from '../../src/shared/logger.js';
import { captureIo, serveConfigIn } from '../helpers/serve-config.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-tls-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const io = captureIo;
const config = serveConfigIn(() => dir);

/** GET over HTTPS, verifying the server against `ca` only (never rejectUnauthorized: false). */
const httpsGet = (url: string, ca: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { ca }, (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

describe('TLS', () => {
  test('--tls self-signed serves HTTPS with the certificate it prints, which a verifying client trusts', async () => {
    const output = io();
    const handle = await serve(config('--tls', 'self-signed'), output, { logger: silentLogger });
    try {
      assert.match(handle.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const banner = JSON.parse(output.out.join('').trim().split('\n').at(-1) ?? '') as {
        certificate?: string;
      };
      assert.match(banner.certificate ?? '', /^-----BEGIN CERTIFICATE-----/);
      const answer = await httpsGet(`${handle.url}/healthz`, banner.certificate ?? '');
      assert.equal(answer.status, 200);
      const metadata = await httpsGet(
        `${handle.url}/.well-known/oauth-authorization-server`,
        banner.certificate ?? '',
      );
      assert.equal((JSON.parse(metadata.body) as { issuer: string }).issuer, handle.url);
      // Without the printed certificate the same client refuses the server: it really verifies.
      await assert.rejects(fetch(`${handle.url}/healthz`));
    } finally {
      await handle.stop();
    }
  });

  test('on a terminal the certificate is printed as PEM text in the banner', async () => {
    const output = io(true);
    const handle = await serve(config('--tls', 'self-signed'), output, { logger: silentLogger });
    await handle.stop();
    assert.match(output.out.join(''), /Development TLS certificate[^\n]*\n-----BEGIN CERTIFICATE-----/);
    assert.match(output.out.join(''), /Press Ctrl-C to stop/);
  });

  test('--tls-cert and --tls-key serve HTTPS from PEM files; a missing file is named', async () => {
    const material = await makeDevelopmentCertificate(['larder.test']);
    const certFile = join(dir, 'cert.pem');
    const keyFile = join(dir, 'key.pem');
    await writeFile(certFile, material.cert);
    await writeFile(keyFile, material.key);
    const handle = await serve(config('--tls-cert', certFile, '--tls-key', keyFile), io(), {
      logger: silentLogger,
    });
    try {
      assert.equal((await httpsGet(`${handle.url}/healthz`, material.cert)).status, 200);
    } finally {
      await handle.stop();
    }
    await assert.rejects(
      serve(config('--tls-cert', join(dir, 'nope.pem'), '--tls-key', keyFile), io(), {
        logger: silentLogger,
      }),
      /Cannot read the TLS certificate .*nope\.pem: ENOENT/,
    );
    const other = await makeDevelopmentCertificate(['other.test']);
    const otherKeyFile = join(dir, 'other-key.pem');
    await writeFile(otherKeyFile, other.key);
    for (const [cert, key, message] of [
      [keyFile, certFile, /certificate .*key\.pem \(--tls-cert\) holds no PEM certificate/],
      [certFile, certFile, /key .*cert\.pem \(--tls-key\) holds no PEM private key/],
      [certFile, otherKeyFile, /key .*other-key\.pem is not the key of the certificate .*cert\.pem/],
    ] as const)
      await assert.rejects(
        serve(config('--tls-cert', cert, '--tls-key', key), io(), { logger: silentLogger }),
        message,
      );
    assert.throws(() => config('--tls-cert', certFile), /--tls-cert and --tls-key go together/);
    assert.throws(() => config('--tls', 'yes'), UsageError);
  });

  test('a TLS flag sets aside TLS variables of the other kind; the same kind twice is still refused', () => {
    const withEnv = (env: Record<string, string>, ...argv: string[]) => {
      const args = parseCommandArgs(serveCommand, ['--db', join(dir, 'l.db'), '--no-demo', ...argv], {
        ...captureIo(),
        env,
      });
      assert.notEqual(args, 'help');
      return parseServeConfig(args as Exclude<typeof args, 'help'>).tls;
    };
    const files = { LARDER_TLS_CERT: 'env-cert.pem', LARDER_TLS_KEY: 'env-key.pem' };
    assert.equal(withEnv(files, '--tls', 'self-signed'), 'self-signed');
    assert.deepEqual(withEnv({ LARDER_TLS: 'self-signed' }, '--tls-cert', 'c.pem', '--tls-key', 'k.pem'), {
      certFile: 'c.pem',
      keyFile: 'k.pem',
    });
    assert.deepEqual(withEnv(files), { certFile: 'env-cert.pem', keyFile: 'env-key.pem' });
    assert.throws(() => withEnv({ ...files, LARDER_TLS: 'self-signed' }), /not both/);
    assert.throws(() => withEnv({}, '--tls', 'self-signed', '--tls-cert', 'c.pem'), /not both/);
  });
});

describe('behind a proxy', () => {
  test('binding a wildcard address needs --public-url, which becomes the issuer', async () => {
    assert.throws(() => config('--host', '0.0.0.0'), /--public-url/);
    // Other spellings of the unspecified address bind every interface just the same.
    for (const host of [
      '::',
      '[::]',
      '0',
      '0.0.0.00',
      '0x0',
      '000.000.000.000',
      '::0',
      '0:0::0',
      '::ffff:0.0.0.0',
    ])
      assert.throws(() => config('--host', host), /--public-url/, host);
    for (const host of ['127.0.0.1', '::1', 'localhost', '10.0.0.5', '0.0.0.1'])
      assert.doesNotThrow(() => config('--host', host), host);
    const handle = await serve(
      config('--host', '0.0.0.0', '--public-url', 'https://larder.example.com'),
      io(),
      {
        logger: silentLogger,
      },
    );
    try {
      const metadata = (await (
        await fetch(`${handle.url}/.well-known/oauth-authorization-server`)
      ).json()) as Record<string, string>;
      assert.equal(metadata['issuer'], 'https://larder.example.com');
      assert.match(metadata['jwks_uri'] ?? '', /^https:\/\/larder\.example\.com\//);
      assert.match(metadata['token_endpoint'] ?? '', /^https:\/\/larder\.example\.com\//);
      assert.ok(!JSON.stringify(metadata).includes('localhost'));
    } finally {
      await handle.stop();
    }
  });

  test('the login throttle counts per client address as the trusted proxy names it', async () => {
    const attempt = (url: string, forwardedFor: string) =>
      fetch(`${url}/authentication/v1/authentication/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({
          clientId: 'c',
          clientSecret: 'wrong',
          userAccessType: 'PLATFORM_MACHINE_CLIENT',
        }),
      }).then((response) => response.status);
    const behindProxy = await serve(config('--trust-proxy', '1', '--login-throttle', '2/min'), io(), {
      logger: silentLogger,
    });
    try {
      assert.deepEqual(
        [await attempt(behindProxy.url, '198.51.100.1'), await attempt(behindProxy.url, '198.51.100.1')],
        [401, 401],
      );
      assert.equal(await attempt(behindProxy.url, '198.51.100.1'), 429);
      assert.equal(await attempt(behindProxy.url, '198.51.100.2'), 401, 'another client behind the proxy');
    } finally {
      await behindProxy.stop();
    }
    const direct = await serve(config('--login-throttle', '2/min'), io(), { logger: silentLogger });
    try {
      await attempt(direct.url, '198.51.100.1');
      await attempt(direct.url, '198.51.100.1');
      assert.equal(await attempt(direct.url, '198.51.100.2'), 429, 'without trust the header is ignored');
    } finally {
      await direct.stop();
    }
  });

  test('--trust-proxy takes a hop count or networks, never a blanket yes', () => {
    assert.deepEqual(parseTrustProxy('2'), { hops: 2 });
    assert.deepEqual(parseTrustProxy('10.0.0.0/8, ::1'), { networks: ['10.0.0.0/8', '::1'] });
    assert.equal(parseTrustProxy(undefined), false);
    for (const bad of ['true', 'yes', '10.0.0.0/33', '11', 'example.com'])
      assert.equal(typeof parseTrustProxy(bad), 'string', bad);
    assert.throws(() => config('--trust-proxy', 'true'), /hop count or addresses/);
  });

  test('the client address: the socket peer unless a trusted proxy names it', () => {
    const inTen = trustedBy(['10.0.0.0/8']);
    assert.ok(inTen('::ffff:10.1.2.3') && inTen('10.255.0.1') && !inTen('11.0.0.1') && !inTen('::1'));
    assert.ok(trustedBy(['::1', 'fd00::/8'])('fd12::5'));
    // No trust: X-Forwarded-For is ignored, whatever it claims.
    assert.equal(clientAddress('203.0.113.9', '1.1.1.1', false), '203.0.113.9');
    // One hop: the entry the nearest proxy appended; earlier entries are the client's to forge.
    assert.equal(clientAddress('10.0.0.2', 'forged, 198.51.100.7', { hops: 1 }), '198.51.100.7');
    assert.equal(clientAddress('10.0.0.3', 'forged, 198.51.100.7, 10.0.0.2', { hops: 2 }), '198.51.100.7');
    assert.equal(clientAddress('10.0.0.2', undefined, { hops: 1 }), '10.0.0.2');
    // Networks: skip trusted proxies from the nearest back; the first other address is the client.
    const networks = { networks: ['10.0.0.0/8'] };
    assert.equal(
      clientAddress('10.0.0.2', 'forged, 198.51.100.7, 10.1.1.1', networks, inTen),
      '198.51.100.7',
    );
    // A peer outside the trusted networks is the client itself: its header counts for nothing.
    assert.equal(clientAddress('198.51.100.8', '10.0.0.9, 1.2.3.4', networks, inTen), '198.51.100.8');
  });
});
