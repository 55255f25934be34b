import { createServer } from 'node:net';
import { generate } from 'selfsigned';
import { type Larder, startLarder } from '../../packages/client/test/larder.js';
import { RECORD_KINDS } from '../../src/records/kinds.js';
import type { TlsMaterial } from '../../src/server/server.js';
import type { Store } from '../../src/storage/store.js';
import { inventoryFixture, purchaseOrderFixture } from './fixtures.js';

/** The location `larder pull` tests copy: 30 purchase orders (some archived) and 1,200 entries, days ago. */
export const SOURCE_LOCATION = 'src-loc';

/** A real Larder in process holding the source location, and a client that may read it. */
export const startPullSource = async (options: Parameters<typeof startLarder>[0] = {}) => {
  const source: Larder = await startLarder(options);
  const base = Date.now() - 3 * 86_400_000;
  await source.load(
    SOURCE_LOCATION,
    'inventoryHistory',
    Array.from({ length: 1200 }, (_, n) => inventoryFixture(n + 1, { modifiedAt: base + n * 60_000 })),
  );
  await source.load(
    SOURCE_LOCATION,
    'purchaseOrders',
    Array.from({ length: 30 }, (_, n) =>
      purchaseOrderFixture(n + 1, { modifiedAt: base + n * 3_600_000, archived: n % 7 === 0 }),
    ),
  );
  return { source, reader: await source.createReader([SOURCE_LOCATION]), base };
};

/** Every stored record of a location, per kind, in keyset order. */
export const storedTexts = (store: Store, location: string): Promise<string[][]> =>
  Promise.all(
    RECORD_KINDS.map(async (kind) => {
      const all: string[] = [];
      for await (const batch of store.records.scan(kind, location)) all.push(...batch);
      return all;
    }),
  );

/**
 * A port nothing listens on, without racing another process for a free one: one the system gave a server of ours,
 * closed (and awaited) before it is used.
 */
export const refusedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return port;
};

/**
 * A self-signed certificate for `names` alone, valid from two days ago to `days` from now (-1: expired a day ago). `larder serve`'s
 * own development certificate always names localhost and 127.0.0.1, and never has expired.
 */
export const testCertificate = async (names: readonly string[], days = 30): Promise<TlsMaterial> => {
  const now = Date.now();
  const result = await generate([{ name: 'commonName', value: 'Larder test certificate' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 2 * 86_400_000),
    notAfterDate: new Date(now + days * 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames: names.map((value) => ({ type: 2 as const, value })) }],
  });
  return { key: result.private, cert: result.cert };
};
