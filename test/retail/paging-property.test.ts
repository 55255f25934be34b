import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import {
  ADJUSTMENT_TYPES,
  type InventoryHistoryLogEntry,
  PURCHASE_ORDER_STATUSES,
  type PurchaseOrder,
} from '../../src/records/schemas.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import { inventoryFixture, purchaseOrderFixture } from '../helpers/fixtures.js';
import { createRetailHarness, loadRecords, type PageEnvelope } from '../helpers/retail-app.js';

/**
 * Through the HTTP layer (filters, page tokens, envelope): for random data, filters and page sizes, following
 * nextPageToken yields exactly the matching records, each once, in (modifiedDate, id) order.
 */

const DAY = 86_400_000;
const T0 = Date.parse('2024-01-01T00:00:00Z');
const day = (offset: number) => new Date(T0 + offset * DAY).toISOString().slice(0, 10);

let dir: string;
let store: Store;
let location = 0;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-paging-'));
  store = await createSqliteStore({ path: join(dir, 'larder.db') });
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

// Few distinct instants, so many records share a modifiedDate and the id tie-break matters.
const instant = fc.integer({ min: 0, max: 9 }).map((d) => T0 + d * DAY + (d % 3) * 1000);
const dateRange = fc.option(
  fc
    .tuple(fc.integer({ min: 0, max: 9 }), fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }))
    .map(([start, length]) => ({
      startDate: day(start),
      ...(length === undefined ? {} : { endDate: day(start + length) }),
    })),
  { nil: undefined },
);

/** How many leading zeros each page's pageSize is spelled with (mostly none). */
const ZEROS = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 })), {
  minLength: 1,
  maxLength: 4,
});

const inRange = (modified: string, range: { startDate: string; endDate?: string } | undefined) =>
  range === undefined ||
  (modified.slice(0, 10) >= range.startDate &&
    (range.endDate === undefined || modified.slice(0, 10) <= range.endDate));

const byKeyset = (a: { modifiedDate: string; id: string }, b: { modifiedDate: string; id: string }) =>
  a.modifiedDate.localeCompare(b.modifiedDate) || a.id.localeCompare(b.id);

const walk = async (
  h: Awaited<ReturnType<typeof createRetailHarness>>,
  kind: 'purchaseOrders' | 'inventoryHistory',
  locationId: string,
  body: unknown,
  pageSize: number,
  /** Leading zeros each page's pageSize is spelled with, in turn: `0005` is 5, and its tokens are 5's. */
  zeros: readonly number[],
) => {
  const seen: Record<string, unknown>[] = [];
  let token = '';
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 200, 'paging does not terminate');
    const spelled = `${'0'.repeat(zeros[pages % zeros.length] ?? 0)}${pageSize}`;
    const query = `?pageSize=${spelled}${token === '' ? '' : `&pageToken=${token}`}`;
    const response = await h.search(kind, locationId, body, query);
    assert.equal(response.status, 200);
    const page = (await response.json()) as PageEnvelope;
    assert.equal(page.currentPageToken, token);
    assert.ok(page.data.length <= pageSize);
    if (page.nextPageToken !== '') assert.ok(page.data.length > 0, 'an empty page carries a next token');
    seen.push(...page.data);
    token = page.nextPageToken;
    if (token === '') return seen;
  }
};

test('purchase order pages cover exactly the matching orders, once each, in order', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          modifiedAt: instant,
          status: fc.constantFrom(...PURCHASE_ORDER_STATUSES),
          archived: fc.boolean(),
        }),
        { maxLength: 60 },
      ),
      fc.subarray([...PURCHASE_ORDER_STATUSES]),
      fc.option(fc.boolean(), { nil: undefined }),
      dateRange,
      fc.integer({ min: 1, max: 25 }),
      ZEROS,
      async (specs, statuses, includeArchived, range, pageSize, zeros) => {
        const locationId = `loc-${location++}`;
        const orders: PurchaseOrder[] = specs.map((spec, i) => purchaseOrderFixture(i, spec));
        await loadRecords(store, locationId, { purchaseOrders: orders });
        const h = await createRetailHarness(store, [locationId]);
        const body = {
          purchaseOrderStatuses: statuses,
          ...(includeArchived === undefined ? {} : { includeArchived }),
          ...(range === undefined ? {} : { updatedDateRange: range }),
        };
        const expected = orders
          .filter(
            (o) =>
              (statuses.length === 0 || statuses.includes(o.status)) &&
              (includeArchived === true || !o.archived) &&
              inRange(o.modifiedDate, range),
          )
          .sort(byKeyset)
          .map((o) => o.id);
        const seen = await walk(h, 'purchaseOrders', locationId, body, pageSize, zeros);
        assert.deepEqual(
          seen.map((o) => o['id']),
          expected,
        );
      },
    ),
    { numRuns: 40 },
  );
});

test('inventory pages cover exactly the matching entries, once each, in order', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ modifiedAt: instant, adjustmentType: fc.constantFrom(...ADJUSTMENT_TYPES) }), {
        maxLength: 60,
      }),
      fc.subarray([...ADJUSTMENT_TYPES], { maxLength: 4 }),
      dateRange,
      fc.integer({ min: 1, max: 25 }),
      ZEROS,
      async (specs, types, range, pageSize, zeros) => {
        const locationId = `loc-${location++}`;
        const entries: InventoryHistoryLogEntry[] = specs.map((spec, i) => inventoryFixture(i, spec));
        await loadRecords(store, locationId, { inventory: entries });
        const h = await createRetailHarness(store, [locationId]);
        const body = { adjustmentType: types, ...(range === undefined ? {} : { updatedDateRange: range }) };
        const expected = entries
          .filter(
            (e) => (types.length === 0 || types.includes(e.adjustmentType)) && inRange(e.modifiedDate, range),
          )
          .map((e) => ({ id: e.inventoryHistoryLogId, modifiedDate: e.modifiedDate }))
          .sort(byKeyset)
          .map((e) => e.id);
        const seen = await walk(h, 'inventoryHistory', locationId, body, pageSize, zeros);
        assert.deepEqual(
          seen.map((e) => e['inventoryHistoryLogId']),
          expected,
        );
      },
    ),
    { numRuns: 40 },
  );
});

/** What `?pageSize=` takes: decimal digits valued 1 to 500, leading zeros or not. */
const PAGE_SIZE_RULE = /^\d+$/;

test('pageSize: any decimal digits valued 1 to 500 (leading zeros too) sizes the page; anything else is a 400 saying the rule', async () => {
  const locationId = `loc-${location++}`;
  const count = 3;
  await loadRecords(store, locationId, {
    purchaseOrders: Array.from({ length: count }, (_, i) => purchaseOrderFixture(i, { modifiedAt: T0 + i })),
  });
  const h = await createRetailHarness(store, [locationId]);
  const digits = fc
    .tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 700 }))
    .map(([zeros, value]) => `${'0'.repeat(zeros)}${value}`);
  // Near misses: a sign, a point, an exponent, spaces, other scripts' digits, hex, empty, huge.
  const other = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('+5', '-5', '5.0', '1e2', ' 5', '5 ', '\u0665', '0x10', '', `1${'0'.repeat(400)}`),
  );
  await fc.assert(
    fc.asyncProperty(fc.oneof(digits, other), async (raw) => {
      const response = await h.search(
        'purchaseOrders',
        locationId,
        {},
        `?pageSize=${encodeURIComponent(raw)}`,
      );
      const value = Number(raw);
      if (PAGE_SIZE_RULE.test(raw) && value >= 1 && value <= 500) {
        assert.equal(response.status, 200, raw);
        const page = (await response.json()) as PageEnvelope;
        assert.equal(page.data.length, Math.min(value, count), raw);
        if (page.nextPageToken !== '') {
          // The token is the size's, however it was spelled.
          const next = await h.search(
            'purchaseOrders',
            locationId,
            {},
            `?pageSize=${value}&pageToken=${page.nextPageToken}`,
          );
          assert.equal(next.status, 200, raw);
        }
      } else {
        assert.equal(response.status, 400, raw);
        const body = (await response.json()) as { code: number; fieldName: string; message: string };
        assert.deepEqual([body.code, body.fieldName], [40006, 'pageSize'], raw);
        assert.match(
          body.message,
          /^pageSize must be a whole number from 1 to 500 in decimal digits \(leading zeros are ignored/,
        );
      }
    }),
    { numRuns: 200 },
  );
});
