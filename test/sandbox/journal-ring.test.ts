import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import {
  createJournal,
  type Journal,
  MAX_KEPT_BODY,
  MAX_KEPT_TEXT,
  type RecordedEntry,
} from '../../src/sandbox/journal.js';
import { type JournalRow, OPERATIONS } from '../../src/sandbox/journal-entry.js';
import {
  clusterJournalView,
  type JournalView,
  localJournalView,
  serveClusterJournal,
} from '../../src/sandbox/journal-view.js';
import { judgeClient } from '../../src/sandbox/report.js';

/** A listed entry without its stamp, which no recorded entry has to compare with. */
const unstamped = ({ stamp: _stamp, ...row }: JournalRow) => row;

const entry = (n: number, extra: Partial<RecordedEntry> = {}): RecordedEntry => ({
  timeMs: 1_700_000_000_000 + n,
  method: 'GET',
  path: `/v1/purchaseOrders/${n}`,
  status: 200,
  durationMs: 0.5,
  requestId: `req-${n}`,
  ...extra,
});

test('the journal gives back what was recorded, the optional fields only when they were set', () => {
  const journal = createJournal(4);
  journal.record(
    entry(1, { operation: 'getPurchaseOrder', clientId: 'c1', location: 'L1', tokenFingerprint: 'ab' }),
  );
  journal.record(entry(2, { status: 429, code: 42902, retryAfterSeconds: 3, fault: 'status=429' }));
  journal.record(entry(3, { body: { includeArchived: true }, pageSize: 10, hasNextPage: false }));
  const [first, second, third] = journal.list().map(unstamped);
  assert.deepEqual(first, {
    seq: 0,
    time: new Date(1_700_000_000_001).toISOString(),
    ...entry(1, { operation: 'getPurchaseOrder', clientId: 'c1', location: 'L1', tokenFingerprint: 'ab' }),
  });
  assert.deepEqual(second, {
    seq: 1,
    time: new Date(1_700_000_000_002).toISOString(),
    ...entry(2, { status: 429, code: 42902, retryAfterSeconds: 3, fault: 'status=429' }),
  });
  assert.deepEqual(Object.keys(third!).sort(), [
    'body',
    'durationMs',
    'hasNextPage',
    'method',
    'pageSize',
    'path',
    'requestId',
    'seq',
    'status',
    'time',
    'timeMs',
  ]);
});

test('the ring keeps the newest `capacity` entries in order, filters and limits them, counts what it dropped, and clears', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }),
      fc.array(fc.record({ status: fc.constantFrom(200, 401, 429), clientId: fc.constantFrom('a', 'b') })),
      fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
      (capacity, shapes, limit) => {
        const journal = createJournal(capacity);
        for (const [n, shape] of shapes.entries()) journal.record(entry(n, shape));
        const kept = shapes.map((shape, n) => ({ n, ...shape })).slice(-capacity);
        assert.deepEqual(
          journal.list().map((e) => e.seq),
          kept.map((e) => e.n),
        );
        const wanted = kept.filter((e) => e.clientId === 'a' && e.status >= 400 && e.status < 500);
        const expected = (
          limit === undefined ? wanted : wanted.slice(Math.max(wanted.length - limit, 0))
        ).map((e) => e.n);
        const filter = { clientId: 'a', status: '4xx', ...(limit === undefined ? {} : { limit }) };
        assert.deepEqual(
          journal.list(filter).map((e) => e.seq),
          expected,
        );
        assert.equal(journal.dropped(), Math.max(shapes.length - capacity, 0));
        journal.clear();
        assert.deepEqual(journal.list(), []);
        // Cleared is not dropped: only what wraps after the clear counts.
        assert.equal(journal.dropped(), 0);
        for (let n = 0; n <= capacity; n++) journal.record(entry(100 + n));
        assert.equal(journal.dropped(), 1);
        assert.deepEqual(
          journal.list().map((e) => e.requestId),
          Array.from({ length: capacity }, (_, n) => `req-${101 + n}`),
        );
      },
    ),
  );
});

/** UUIDs in canonical form and not: upper case, a digit off, a dash moved, non-hex, one char short or long. */
const uuidLike = fc.oneof(
  fc.uuid(),
  fc.uuid().map((id) => id.toUpperCase()),
  fc
    .tuple(fc.uuid(), fc.integer({ min: 0, max: 35 }), fc.constantFrom('g', '-', 'é', 'F', '0'))
    .map(([id, at, char]) => id.slice(0, at) + char + id.slice(at + 1)),
  fc.uuid().map((id) => id.slice(1)),
  fc.uuid().map((id) => `${id}0`),
);

test('paths and request ids come back exactly, short or long, ASCII or not, as their slots are reused', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          path: fc.oneof(
            fc.string({ unit: 'grapheme', maxLength: 200 }).filter((path) => path.length <= MAX_KEPT_TEXT),
            // A path ending in an id: a UUID (kept as its 16 bytes when canonical), or nearly one.
            fc
              .tuple(
                fc.oneof(
                  fc.constantFrom('/v1/purchaseOrders/', '/v1/inventoryHistory/', '/'),
                  fc.string({ unit: 'grapheme', maxLength: 60 }).map((prefix) => `${prefix}/`),
                ),
                uuidLike,
              )
              .map(([prefix, id]) => prefix + id),
            fc.constantFrom('/v1/purchaseOrders/search', '/authentication/v1/authentication/login'),
          ),
          requestId: fc.oneof(fc.string({ unit: 'grapheme', maxLength: 140 }), uuidLike),
          method: fc.constantFrom('GET', 'POST'),
          operation: fc.option(fc.constantFrom('searchPurchaseOrders', 'getPurchaseOrder'), {
            nil: undefined,
          }),
        }),
        {
          minLength: 1,
          maxLength: 12,
        },
      ),
      (values) => {
        const journal = createJournal(3);
        for (const [n, { operation, ...value }] of values.entries())
          journal.record(entry(n, { ...value, ...(operation === undefined ? {} : { operation }) }));
        assert.deepEqual(
          journal.list().map(({ path, requestId, method }) => ({ path, requestId, method })),
          values.slice(-3).map(({ path, requestId, method }) => ({ path, requestId, method })),
        );
      },
    ),
  );
});

test('client ids, locations and fingerprints past the dictionaries’ bound come back exactly, as do reused slots', () => {
  const journal = createJournal(5000);
  const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  const shape = (n: number): Partial<RecordedEntry> => ({
    clientId: `client-${n}`,
    location: `location-${n}`,
    tokenFingerprint: `fp-${n}`,
    operation: `op-${n % 3}`,
    // Paths the dictionary holds: a named POST operation's whole, a GET's part before a UUID.
    ...(n % 2 === 0 ? { method: 'POST', path: `/search-${n}` } : { path: `/kind-${n}/${uuid(n)}` }),
    requestId: uuid(n + 1),
    ...(n % 7 === 0 ? { code: 40001 } : {}),
  });
  // 6,000 distinct values each: the first 4,096 get ids, the rest are kept whole; the ring keeps the last 5,000.
  for (let n = 0; n < 6000; n++) journal.record(entry(n, shape(n)));
  const kept = journal.list();
  assert.equal(kept.length, 5000);
  for (const [k, got] of kept.entries()) {
    const n = 1000 + k;
    assert.deepEqual(unstamped(got), {
      seq: n,
      time: new Date(1_700_000_000_000 + n).toISOString(),
      ...entry(n, shape(n)),
    });
  }
  assert.equal(journal.list({ location: 'location-5999' })[0]?.seq, 5999);
  assert.equal(journal.list({ clientId: 'client-1000' })[0]?.seq, 1000);
  // A slot that held extras or spilled values, reused by a plain entry, keeps none of them.
  for (let n = 6000; n < 11000; n++) journal.record(entry(n));
  assert.deepEqual(unstamped(journal.list({ limit: 1 })[0]!), {
    seq: 10999,
    time: new Date(1_700_000_010_999).toISOString(),
    ...entry(10999),
  });
  assert.ok(journal.list().every((got) => got.clientId === undefined && got.code === undefined));
});

test('a path, location or page token past MAX_KEPT_TEXT is kept cut, and a search body past MAX_KEPT_BODY is left out', () => {
  const journal = createJournal(4);
  const long = (prefix: string) => prefix + 'x'.repeat(16_000);
  const search = { operation: 'searchPurchaseOrders', method: 'POST' };
  journal.record(
    entry(1, {
      ...search,
      path: long('/v1/'),
      location: long('L'),
      pageToken: long('p'),
      body: { statuses: Array.from({ length: 5000 }, () => []) },
    }),
  );
  const fits = { statuses: ['ORDERED'], note: 'n'.repeat(MAX_KEPT_BODY - 34) };
  assert.equal(JSON.stringify(fits).length, MAX_KEPT_BODY);
  journal.record(entry(2, { ...search, body: fits, location: `L${'😀'.repeat(MAX_KEPT_TEXT)}` }));
  const [cut, kept] = journal.list();
  const cutTo = (text: string) => `${text.slice(0, MAX_KEPT_TEXT)}…`;
  assert.equal(cut!.path, cutTo(long('/v1/')));
  assert.equal(cut!.location, cutTo(long('L')));
  assert.equal(cut!.pageToken, cutTo(long('p')));
  assert.equal(cut!.body, undefined);
  assert.deepEqual(kept!.body, fits);
  // Never half of a surrogate pair.
  assert.equal(kept!.location, `L${'😀'.repeat((MAX_KEPT_TEXT - 2) / 2)}…`);
});

test('a full journal of long paths, locations, page tokens and bodies holds a few MB, not the requests they came from', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const journal = createJournal(1000);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let n = 0; n < 2000; n++) {
    // As a request's strings are: slices of a 16 KB URL or header, fresh each time.
    const url = `/v1/purchaseOrders/${n}/${'u'.repeat(16_000)}`;
    journal.record(
      entry(n, {
        path: url.slice(0, 400),
        location: `${n}-${'L'.repeat(16_000)}`,
        pageToken: `${n}-${'p'.repeat(16_000)}`.slice(0, 300),
        body: { statuses: Array.from({ length: 2000 }, () => []) },
      }),
    );
  }
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  assert.ok(grown < 8 * 1024 * 1024, `the journal grew the heap by ${(grown / 1024 / 1024).toFixed(1)} MB`);
  assert.equal(journal.list().length, 1000);
});

/** Workers 1, 2, … each with its journal and view, and the primary that merges their parts. */
const cluster = (journals: readonly Journal[]): JournalView[] => {
  type Worker = { id: number; send(message: unknown): void };
  let primary: (worker: Worker, message: unknown) => void = () => {};
  const workers = journals.map((journal, index) => {
    let own: (message: unknown) => void = () => {};
    // Delivered later, as IPC would.
    const worker: Worker = { id: index + 1, send: (message) => setImmediate(() => own(message)) };
    // Later workers answer first, as when the first is busy: a merge must not lean on the order parts arrive in.
    const later = (hops: number, deliver: () => void): unknown =>
      setImmediate(hops === 0 ? deliver : () => later(hops - 1, deliver));
    const view = clusterJournalView(journal, {
      send: (message) => {
        later(journals.length - index, () => primary(worker, message));
        return true;
      },
      on: (_event, listener) => {
        own = listener;
      },
    });
    return { worker, view };
  });
  serveClusterJournal(
    () => workers.map(({ worker }) => worker),
    (listener) => {
      primary = listener;
    },
  );
  return workers.map(({ view }) => view);
};

test('under --workers a cursor holds each worker’s place: a quiet worker’s new entries are not taken for old', async () => {
  const journals = [createJournal(4), createJournal(4)];
  const [busy, quiet] = journals as [Journal, Journal];
  const view = cluster(journals)[0]!;
  for (let n = 0; n < 3; n++) busy.record(entry(n));
  const first = await view.list({ limit: 1 });
  assert.deepEqual(first.next, { 1: 3, 2: 0 });
  quiet.record(entry(10));
  busy.record(entry(11));
  const second = await view.list({ after: first.next });
  assert.deepEqual(
    second.entries.map((each) => each.requestId),
    ['req-10', 'req-11'],
  );
  assert.deepEqual([second.next, second.missed], [{ 1: 4, 2: 1 }, 0]);
  // Five into the busy worker's ring of four: one left unlisted, and is counted.
  for (let n = 20; n < 25; n++) busy.record(entry(n));
  const third = await view.list({ after: second.next });
  assert.deepEqual([third.entries.length, third.missed], [4, 1]);
});

test('under --workers every listed entry has an id of its own, `<journal>:<seq>`, though each worker counts seq from 0', async () => {
  const journals = [createJournal(8), createJournal(8)];
  const views = cluster(journals);
  const [first, second] = journals as [Journal, Journal];
  for (let n = 0; n < 3; n++) {
    first.record(entry(2 * n));
    second.record(entry(2 * n + 1));
  }
  const { entries, next } = await views[1]!.list();
  assert.deepEqual(
    entries.map(({ id, seq, requestId }) => [id, seq, requestId]),
    [
      ['1:0', 0, 'req-0'],
      ['2:0', 0, 'req-1'],
      ['1:1', 1, 'req-2'],
      ['2:1', 1, 'req-3'],
      ['1:2', 2, 'req-4'],
      ['2:2', 2, 'req-5'],
    ],
  );
  // The id names its journal as the cursor does: the entry `<journal>:<seq>` is listed by `after` up to that seq.
  assert.deepEqual(next, { 1: 3, 2: 3 });
  const after = await views[0]!.list({ after: { 1: 2, 2: 3 } });
  assert.deepEqual(
    after.entries.map(({ id }) => id),
    ['1:2'],
  );
});

test('a single process lists its entries with ids `0:<seq>`, journal 0 as in its cursor', async () => {
  const journal = createJournal(4);
  for (let n = 0; n < 2; n++) journal.record(entry(n));
  const { entries, next } = await localJournalView(journal).list();
  assert.deepEqual(
    entries.map(({ id }) => id),
    ['0:0', '0:1'],
  );
  assert.deepEqual(next, { 0: 2 });
});

test('each entry is stamped as recorded from the host’s monotonic clock, which another process reads alike', () => {
  const journal = createJournal(4);
  journal.record(entry(0));
  // A worker is another process: its clock reading, taken between two entries, falls between their stamps.
  const other = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.hrtime.bigint()))'], {
    encoding: 'utf8',
  });
  journal.record(entry(0));
  journal.record(entry(0));
  const [before, after, last] = journal.list().map(({ stamp }) => stamp);
  assert.ok(
    before! < Number(other.stdout) && Number(other.stdout) < after!,
    `${before} < ${other.stdout} < ${after}`,
  );
  assert.ok(after! < last!);
});

test('under --workers entries of one instant list in the order they were recorded, though each worker counts its own seq', async () => {
  const journals = [createJournal(8), createJournal(8)];
  const [view] = cluster(journals);
  const [first, second] = journals as [Journal, Journal];
  // One virtual instant (a frozen clock); the first worker was busier, so the seqs say nothing of the order.
  const order: [Journal, string][] = [
    [first, 'a'],
    [first, 'b'],
    [second, 'c'],
    [first, 'd'],
    [second, 'e'],
    [second, 'f'],
    [first, 'g'],
  ];
  for (const [journal, requestId] of order) journal.record(entry(0, { requestId }));
  const { entries, next } = await view!.list();
  assert.deepEqual(
    entries.map(({ id, requestId }) => [id, requestId]),
    [
      ['1:0', 'a'],
      ['1:1', 'b'],
      ['2:0', 'c'],
      ['1:2', 'd'],
      ['2:1', 'e'],
      ['2:2', 'f'],
      ['1:3', 'g'],
    ],
  );
  assert.deepEqual(Object.keys(next), ['1', '2']);
  // The newest of them, as recorded, whichever worker answered the primary first.
  assert.deepEqual(
    (await view!.list({ limit: 2 })).entries.map(({ requestId }) => requestId),
    ['f', 'g'],
  );
});

test('under --workers the report judges a client’s requests of one frozen instant in the order they were answered', async () => {
  const journals = [createJournal(8), createJournal(8)];
  const [view] = cluster(journals);
  const [first, second] = journals as [Journal, Journal];
  // Another client's traffic: the first worker's seqs run ahead of the second's.
  for (let n = 0; n < 3; n++) first.record(entry(0, { clientId: 'other' }));
  const page = (journal: Journal, requestId: string, pageToken?: string) =>
    journal.record(
      entry(0, {
        method: 'POST',
        path: '/v1/purchaseOrders/search',
        operation: OPERATIONS.searchPurchaseOrders,
        clientId: 'client',
        location: 'loc-1',
        requestId,
        body: {},
        hasNextPage: pageToken === undefined,
        ...(pageToken === undefined ? {} : { pageToken }),
      }),
    );
  // The whole history, two pages, walked twice, each page answered by one worker or the other.
  page(first, 'walk-1-page-1');
  page(second, 'walk-1-page-2', 'p2');
  page(second, 'walk-2-page-1');
  page(first, 'walk-2-page-2', 'p2');
  const { entries } = await view!.list({ clientId: 'client' });
  // Taken in seq order, the second walk's first page came first: one walk, and the first walk's page polled.
  const findings = judgeClient(entries, 'client');
  assert.deepEqual(
    findings.map(({ rule, exampleRequestIds }) => [rule, exampleRequestIds]),
    [
      ['first-page-polled', ['walk-2-page-1']],
      ['full-rewalk-without-date-range', ['walk-2-page-1']],
    ],
  );
});
