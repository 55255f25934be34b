import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { RECORD_KINDS } from '../../../src/records/kinds.js';
import { lastCompleteDay } from '../../../src/sandbox/demo.js';
import { seedStore } from '../../../src/seed/seed-store.js';
import { inventoryFixture, purchaseOrderFixture } from '../../../test/helpers/fixtures.js';
import { createClient, type LarderClient, type Watermark } from '../src/index.js';
import { type Larder, startLarder } from './larder.js';

/**
 * Incremental sync against a live demo location that keeps trading as the virtual clock moves, plus records
 * changed through fixtures at the moment they change: sync, advance the clock, change things, sync again from the
 * stored watermark. After every sync the union of what was yielded (newest version per id) is exactly the store's
 * state, and no version is ever yielded twice.
 */

const DAYS = 14;
let larder: Larder;
let client: LarderClient;
let location: string;

before(async () => {
  larder = await startLarder({
    live: true,
    prepare: async (store) => {
      const endDate = lastCompleteDay(Date.now());
      const seeded = await seedStore(store, { seed: 7, days: DAYS, endDate, locations: 1 });
      location = seeded.locations[0]!.id;
      await store.settings.liveDemo.set({
        seed: 7,
        firstDays: DAYS,
        firstEndDate: endDate,
        days: DAYS,
        endDate,
        locations: [{ id: location, locationIndex: 0 }],
      });
    },
  });
  client = createClient({ baseUrl: larder.url, ...(await larder.createReader('all')) });
});
after(() => larder.stop());

type Kind = (typeof RECORD_KINDS)[number];
const idOf = (kind: Kind, record: Record<string, unknown>) => String(record[kind.idField]).toLowerCase();

/** The store's records of the location, by id. */
const stored = async (kind: Kind) => {
  const state = new Map<string, string>();
  for await (const batch of larder.store.records.scan(kind, location))
    for (const json of batch) state.set(idOf(kind, JSON.parse(json)), json);
  return state;
};

const step = fc.record({
  hours: fc.integer({ min: 0, max: 40 }),
  changes: fc.array(
    fc.record({
      kind: fc.constantFrom(...RECORD_KINDS.map((k) => k.name)),
      n: fc.integer({ min: 1, max: 12 }),
    }),
    { maxLength: 5 },
  ),
});

test('sync, advance, change, sync again: the union always equals the store, each version yielded once', async () => {
  /** The last modifiedDate given to each fixture, so a change never moves a record's date backwards. */
  const lastChange = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), async (steps) => {
      const unions = new Map(RECORD_KINDS.map((kind) => [kind.name, new Map<string, string>()]));
      const versions = new Set<string>();
      const watermarks = new Map<string, string>();
      const syncAll = async () => {
        for (const kind of RECORD_KINDS) {
          const saved = watermarks.get(kind.name);
          const since = saved === undefined ? undefined : (JSON.parse(saved) as Watermark);
          const run = client[kind.name].sync({ location, pageSize: 100, ...(since ? { since } : {}) });
          for await (const record of run) {
            const fields = record as unknown as Record<string, unknown>;
            const version = `${kind.name} ${idOf(kind, fields)} ${String(fields['modifiedDate'])}`;
            assert.ok(!versions.has(version), `yielded twice: ${version}`);
            versions.add(version);
            unions.get(kind.name)!.set(idOf(kind, fields), JSON.stringify(record));
          }
          // Stored as text between runs, as an integrator would.
          watermarks.set(kind.name, JSON.stringify(run.watermark));
          const union = unions.get(kind.name)!;
          const state = await stored(kind);
          assert.equal(union.size, state.size, `${kind.name}: as many records as the store`);
          for (const [id, json] of state) assert.equal(union.get(id), json, `${kind.name} ${id}`);
        }
      };
      await syncAll();
      for (const { hours, changes } of steps) {
        if (hours > 0) await larder.advance(hours * 3600);
        const now = await larder.clockNow();
        for (const [i, { kind, n }] of changes.entries()) {
          // Changed now (the interface's rule: a change is dated when it happens), never back in time.
          const key = `${kind} ${n}`;
          const at = Math.max(now + i, (lastChange.get(key) ?? 0) + 1);
          lastChange.set(key, at);
          const record =
            kind === 'purchaseOrders'
              ? purchaseOrderFixture(n, { modifiedAt: at, archived: n % 3 === 0 })
              : inventoryFixture(n, { modifiedAt: at });
          await larder.load(location, kind, [record]);
        }
        await syncAll();
      }
    }),
    { numRuns: 8 },
  );
});
