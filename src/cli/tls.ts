import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { generate } from 'selfsigned';
import type { TlsMaterial } from '../server/server.js';
import { isWildcardHost } from '../server/server.js';
import type { ServeConfig } from './serve-config.js';

/** How the primary of --workers hands its development certificate to the workers (one certificate for all). */
const SHARED_CERT = 'LARDER_TLS_SELF_SIGNED_CERT';
const SHARED_KEY = 'LARDER_TLS_SELF_SIGNED_KEY';
/** A development certificate outlives any sandbox session, and expires before anyone mistakes it for a real one. */
const DEVELOPMENT_DAYS = 30;

export interface LoadedTls {
  material: TlsMaterial;
  /** Made at this start (--tls self-signed): print it so clients can trust it. */
  generated: boolean;
}

const readPem = async (file: string, what: string): Promise<string> => {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read the TLS ${what} ${file}: ${(error as Error).message}`);
  }
};

/** Each file holds what its flag says, and the two belong together: else the TLS layer's error names neither file. */
const checkPair = (files: { certFile: string; keyFile: string }, cert: string, key: string): void => {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new Error(`The TLS certificate ${files.certFile} (--tls-cert) holds no PEM certificate.`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new Error(`The TLS key ${files.keyFile} (--tls-key) holds no PEM private key.`);
  }
  if (!certificate.checkPrivateKey(privateKey))
    throw new Error(`The TLS key ${files.keyFile} is not the key of the certificate ${files.certFile}.`);
};

/**
 * A certificate for the names a local client uses (localhost, 127.0.0.1, ::1, the bound host, the public URL's
 * host). `selfsigned` (on @peculiar/x509) builds the X.509 structure: node:crypto makes keys but not certificates.
 */
export const makeDevelopmentCertificate = async (names: readonly string[]): Promise<TlsMaterial> => {
  const unique = [...new Set(['localhost', '127.0.0.1', '::1', ...names])];
  const now = new Date();
  const result = await generate([{ name: 'commonName', value: 'Larder development certificate' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + DEVELOPMENT_DAYS * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: unique.map((name) =>
          isIP(name) === 0 ? { type: 2 as const, value: name } : { type: 7 as const, ip: name },
        ),
      },
    ],
  });
  return { key: result.private, cert: result.cert };
};

/** The TLS material `serve` was asked for, read or made; undefined for plain HTTP. */
export const loadTls = async (
  config: Pick<ServeConfig, 'tls' | 'host' | 'publicUrl'>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<LoadedTls | undefined> => {
  const { tls } = config;
  if (tls === undefined) return undefined;
  if (tls !== 'self-signed') {
    const [cert, key] = await Promise.all([
      readPem(tls.certFile, 'certificate'),
      readPem(tls.keyFile, 'key'),
    ]);
    checkPair(tls, cert, key);
    return { material: { cert, key }, generated: false };
  }
  const sharedCert = env[SHARED_CERT];
  const sharedKey = env[SHARED_KEY];
  if (sharedCert !== undefined && sharedKey !== undefined)
    return { material: { cert: sharedCert, key: sharedKey }, generated: false };
  const names = [
    ...(isWildcardHost(config.host) ? [] : [config.host]),
    ...(config.publicUrl === undefined ? [] : [new URL(config.publicUrl).hostname.replace(/^\[|\]$/g, '')]),
  ];
  return { material: await makeDevelopmentCertificate(names), generated: true };
};

/** The primary of --workers makes one development certificate and passes it to the workers it forks. */
export const shareWithWorkers = (material: TlsMaterial): void => {
  process.env[SHARED_CERT] = material.cert;
  process.env[SHARED_KEY] = material.key;
};
