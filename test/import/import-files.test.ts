import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { formatProblem, importFiles } from '../../src/import/import-files.js';
import { INVENTORY_HISTORY } from '../../src/records/kinds.js';
import { interceptInventoryPuts } from '../helpers/intercept-import.js';
import { collectLocation } from '../seed/collect.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';
import { newLocationId, text } from '../storage/records.js';

// Several 1,000-record write batches, so reading the next batch overlaps writing the previous one.
const { orders, entries } = collectLocation({ days: 84, ordersPerWeek: 60, items: 60, suppliers: 6 });
const ndjson = (records: readonly unknown[]) =>
  Readable.from([records.map((r) => JSON.stringify(r)).join('\n')]);

/** NDJSON arriving in chunks across event-loop turns, as from a file or a pipe. */
const trickle = (records: readonly unknown[]) =>
  Readable.from(
    (async function* () {
      for (let i = 0; i < records.length; i += 250) {
        await new Promise((resolve) => setImmediate(resolve));
        yield `${records
          .slice(i, i + 250)
          .map((r) => JSON.stringify(r))
          .join('\n')}\n`;
      }
    })(),
  );

for (const backend of await backends()) {
  describeBackend(`importFiles: ${backend.name}`, backend, () => {
    let instance: BackendInstance;
    before(async () => {
      instance = await backend.create();
    });
    after(async () => instance.destroy());

    test('imports every record of files spanning several write batches', async () => {
      assert.ok(entries.length > 3000, `only ${entries.length} entries`);
      const locationId = newLocationId();
      const result = await importFiles(instance.store, {
        locationId,
        purchaseOrders: { path: 'po.ndjson', input: ndjson(orders) },
        inventoryHistory: { path: 'ih.ndjson', input: ndjson(entries) },
      });
      assert.deepEqual(result.counts, { purchaseOrders: orders.length, inventoryEntries: entries.length });
      const summary = (await instance.store.locations.list()).find((location) => location.id === locationId);
      assert.equal(summary?.inventoryEntries, entries.length);
      const last = entries.at(-1)!;
      assert.equal(
        text(await instance.store.records.get(INVENTORY_HISTORY, locationId, last.inventoryHistoryLogId)),
        JSON.stringify(last),
      );
    });

    test('a store failure while a later batch is being read fails the import and stores nothing', async () => {
      const locationId = newLocationId();
      let puts = 0;
      const failing = interceptInventoryPuts(instance.store, () => {
        if (++puts === 2) throw new Error('disk full');
      });
      await assert.rejects(
        importFiles(failing, {
          locationId,
          inventoryHistory: { path: 'ih.ndjson', input: trickle(entries) },
        }),
        /disk full/,
      );
      assert.equal(await instance.store.locations.get(locationId), undefined);
    });

    test('problems across batches are reported in file order with their lines, up to maxProblems', async () => {
      const locationId = newLocationId();
      const lines = entries.map((entry) => JSON.stringify(entry));
      // In the first batch (converted on this thread), then in batches the worker converts.
      lines[9] = JSON.stringify({ ...entries[9], adjustmentType: 'MISPLACED' });
      lines[1499] = '{"inventoryHistoryLogId": nope}';
      lines[2599] = JSON.stringify({ ...entries[2599], modifiedDate: 'yesterday' });
      lines[2999] = JSON.stringify({ ...entries[2999], adjustmentType: 'LOST' });
      const result = await importFiles(instance.store, {
        locationId,
        maxProblems: 3,
        inventoryHistory: { path: 'ih.ndjson', input: Readable.from([lines.join('\n')]) },
      });
      assert.equal(result.committed, false);
      assert.equal(result.truncated, true);
      assert.deepEqual(
        result.problems.map((problem) => [problem.line, problem.fieldName]),
        [
          [10, 'adjustmentType'],
          [1500, '(record)'],
          [2600, 'modifiedDate'],
        ],
      );
      assert.equal(await instance.store.locations.get(locationId), undefined);
    });

    test('records broken off by the end of the file are reported after the problems before them', async () => {
      const locationId = newLocationId();
      const lines = entries.map((entry) => JSON.stringify(entry));
      lines[1199] = JSON.stringify({ ...entries[1199], adjustmentType: 'MISPLACED' });
      lines[2499] = '{"inventoryHistoryLogId": "unclosed';
      const result = await importFiles(instance.store, {
        locationId,
        inventoryHistory: { path: 'ih.ndjson', input: Readable.from([lines.join('\n')]) },
      });
      assert.equal(result.committed, false);
      assert.deepEqual(
        result.problems.map((problem) => [problem.line, problem.fieldName]),
        [
          [1200, 'adjustmentType'],
          [2500, '(file)'],
        ],
      );
    });

    test('a date-time must be RFC 3339 as served (T, Z or ±HH:MM) and a real instant: else a problem naming the field', async () => {
      // Each once crashed the import with a driver error (NaN modifiedAt) or was stored as an odd spelling.
      const refused = [
        '2025-01-01T23:59:60Z',
        '2025-01-01T12:00:00+05',
        '2025-01-01T12:00:00+0500',
        '2025-01-01 12:00:00Z',
        '2025-01-01t12:00:00z',
        '2025-02-30T12:00:00Z',
      ];
      const accepted = [
        '2025-01-01T12:00:00.123456Z',
        '2025-01-01T12:00:00+05:30',
        '2024-02-29T00:00:00-00:00',
      ];
      const records = [...refused, ...accepted].map((modifiedDate, i) => ({ ...entries[i], modifiedDate }));
      const result = await importFiles(instance.store, {
        locationId: newLocationId(),
        inventoryHistory: { path: 'ih.ndjson', input: ndjson(records) },
      });
      assert.equal(result.committed, false);
      assert.deepEqual(
        result.problems.map((problem) => [problem.line, problem.fieldName]),
        refused.map((_, i) => [i + 1, 'modifiedDate']),
      );
      assert.match(
        result.problems[0]!.message,
        /must be a valid date-time \(RFC 3339 .*2024-05-01T12:00:00Z\)/,
      );
      const valid = await importFiles(instance.store, {
        locationId: newLocationId(),
        inventoryHistory: { path: 'ih.ndjson', input: ndjson(records.slice(refused.length)) },
      });
      assert.equal(valid.committed, true);
    });

    test('a repeated id is a problem naming the kind’s id field', async () => {
      const result = await importFiles(instance.store, {
        locationId: newLocationId(),
        purchaseOrders: { path: 'po.ndjson', input: ndjson([orders[0], orders[1], orders[0]]) },
        inventoryHistory: { path: 'ih.ndjson', input: ndjson([entries[0], entries[0]]) },
      });
      assert.deepEqual(
        result.problems.map((problem) => [problem.file, problem.line, problem.fieldName]),
        [
          ['po.ndjson', 3, 'id'],
          ['ih.ndjson', 2, 'inventoryHistoryLogId'],
        ],
      );
    });

    test('a file of another kind is that one problem, naming how to give it: none of its records’ field problems', async () => {
      const locationId = newLocationId();
      const asEntries = await importFiles(instance.store, {
        locationId,
        inventoryHistory: { path: 'po.ndjson', input: ndjson(orders.slice(0, 3)) },
        maxProblems: 10,
      });
      assert.equal(asEntries.committed, false);
      assert.equal(asEntries.truncated, false);
      assert.deepEqual(asEntries.problems, [
        {
          file: 'po.ndjson',
          line: 0,
          fieldName: '(file)',
          message: 'looks like purchase orders, not inventory entries: give it as purchaseOrders',
        },
      ]);
      const manyProblems = await importFiles(instance.store, {
        locationId,
        inventoryHistory: {
          path: 'po.ndjson',
          input: ndjson([{ ...orders[0], status: 'LOST' }, ...orders.slice(1, 5)]),
        },
        maxProblems: 10,
      });
      // The first order is broken too: its id field and its other fields still tell its kind.
      assert.deepEqual(manyProblems.problems.map(formatProblem), [
        'po.ndjson:0 (file): looks like purchase orders, not inventory entries: give it as purchaseOrders',
      ]);
      const asOrders = await importFiles(instance.store, {
        locationId,
        purchaseOrders: { path: 'ih.ndjson', input: ndjson(entries.slice(0, 3)) },
        giveAs: (kind) => `give it with --${kind.name}`,
      });
      assert.equal(
        formatProblem(asOrders.problems[0]!),
        'ih.ndjson:0 (file): looks like inventory entries, not purchase orders: give it with --inventoryHistory',
      );
      assert.equal(asOrders.problems.length, 1);
      assert.equal(await instance.store.locations.get(locationId), undefined);
    });

    test('a search page saved as a file is one problem naming what it is, not its fields', async () => {
      const locationId = newLocationId();
      const page = { currentPageToken: '', nextPageToken: 'b2', data: orders.slice(0, 2) };
      const result = await importFiles(instance.store, {
        locationId,
        purchaseOrders: { path: 'page.json', input: Readable.from([JSON.stringify(page, null, 2)]) },
      });
      assert.equal(result.committed, false);
      assert.deepEqual(result.problems.map(formatProblem), [
        "page.json:1 (record): is a search page (currentPageToken, nextPageToken, data), not a purchase order: give the records in its data array (jq -c '.data[]' turns pages into NDJSON)",
      ]);
      assert.equal(await instance.store.locations.get(locationId), undefined);
    });

    test("a file of another kind is told over its records, not its first alone: past a malformed first record, or mixed in with the given kind's", async () => {
      const locationId = newLocationId();
      const hintOf = async (lines: readonly string[]) => {
        const result = await importFiles(instance.store, {
          locationId,
          inventoryHistory: { path: 'ih.ndjson', input: Readable.from([lines.join('\n')]) },
          giveAs: (kind) => `give it with --${kind.name}`,
          maxProblems: 10,
        });
        assert.equal(result.committed, false);
        const hints = result.problems.filter((problem) => problem.line === 0);
        assert.ok(hints.length <= 1, 'said once');
        return hints[0] === undefined ? undefined : formatProblem(hints[0]);
      };
      const json = (records: readonly unknown[]) => records.map((record) => JSON.stringify(record));
      const wrongKind =
        'ih.ndjson:0 (file): looks like purchase orders, not inventory entries: give it with --purchaseOrders';
      // A first record that is not JSON, or of no kind at all: the rest still tell the file's kind.
      assert.equal(await hintOf(['{"id": "x",}', ...json(orders.slice(0, 3))]), wrongKind);
      assert.equal(await hintOf([...json([{ note: 'header' }]), ...json(orders.slice(0, 3))]), wrongKind);
      // Mixed in with entries, whichever comes first, and wherever the first stray is (here past the first batch
      // of 1,000): the orders are to go in a file of their own, not the whole file with the other flag.
      const mixed = (line: number) =>
        `ih.ndjson:0 (file): mixes purchase orders in with inventory entries (the first at line ${line}): a file holds one kind; move those to a file of their own and give it with --purchaseOrders`;
      assert.equal(await hintOf(json([orders[0], entries[0], entries[1], orders[1]])), mixed(1));
      assert.equal(await hintOf(json([...entries.slice(0, 1000), orders[0], entries[1000]])), mixed(1001));
      // Said before the strays' problems, even after those of a broken entry that came first.
      const broken = { ...entries[0], adjustmentType: 'LOST' };
      assert.equal(await hintOf(json([broken, ...entries.slice(1, 1000), orders[0]])), mixed(1001));
      // A single order among lines of no kind is no file of orders.
      assert.equal(await hintOf(['not json', '{"note": 1}', ...json([orders[0]])]), undefined);
      assert.equal(await instance.store.locations.get(locationId), undefined);
    });

    test('a file of another kind is told also once the problem limit was reached before it was judged: the files given the other way round, or the first full of problems', async () => {
      const locationId = newLocationId();
      const hints = (result: Awaited<ReturnType<typeof importFiles>>) =>
        result.problems.filter((problem) => problem.line === 0).map(formatProblem);
      const json = (records: readonly unknown[]) => records.map((record) => JSON.stringify(record));
      // Twenty records of the other kind each: the first file's one problem fills a limit of one.
      const swapped = await importFiles(instance.store, {
        locationId,
        purchaseOrders: { path: 'ih.ndjson', input: ndjson(entries.slice(0, 20)) },
        inventoryHistory: { path: 'po.ndjson', input: ndjson(orders.slice(0, 20)) },
        giveAs: (kind) => `give it with --${kind.name}`,
        maxProblems: 1,
      });
      assert.equal(swapped.committed, false);
      assert.equal(swapped.truncated, true);
      assert.deepEqual(swapped.problems.map(formatProblem), [
        'ih.ndjson:0 (file): looks like inventory entries, not purchase orders: give it with --inventoryHistory',
        'po.ndjson:0 (file): looks like purchase orders, not inventory entries: give it with --purchaseOrders',
      ]);
      // The right kind, broken: its problems fill the list; the file given after it is still judged, and only its
      // hint follows them (a file of the right kind after the limit adds nothing).
      const broken = json(orders.slice(0, 60).map((order) => ({ ...order, status: 'LOST' })));
      const afterBroken = await importFiles(instance.store, {
        locationId,
        purchaseOrders: { path: 'po.ndjson', input: Readable.from([broken.join('\n')]) },
        inventoryHistory: { path: 'other.ndjson', input: ndjson(orders.slice(0, 20)) },
        maxProblems: 5,
      });
      assert.deepEqual(hints(afterBroken), [
        'other.ndjson:0 (file): looks like purchase orders, not inventory entries: give it as purchaseOrders',
      ]);
      assert.deepEqual(
        afterBroken.problems.map((problem) => problem.file),
        ['po.ndjson', 'po.ndjson', 'po.ndjson', 'po.ndjson', 'po.ndjson', 'other.ndjson'],
      );
      // Past the limit a file is read only as far as its first batch of 1,000 records.
      let pulled = 0;
      const counted = Readable.from(
        (function* () {
          for (const entry of entries) {
            pulled++;
            yield `${JSON.stringify(entry)}\n`;
          }
        })(),
      );
      const rightKindAfter = await importFiles(instance.store, {
        locationId,
        purchaseOrders: { path: 'po.ndjson', input: Readable.from([broken.join('\n')]) },
        inventoryHistory: { path: 'ih.ndjson', input: counted },
        maxProblems: 5,
      });
      assert.equal(rightKindAfter.problems.length, 5);
      assert.deepEqual(hints(rightKindAfter), []);
      assert.ok(pulled < 1100, `${pulled} of ${entries.length} entries read`);
      assert.equal(await instance.store.locations.get(locationId), undefined, 'nothing stored');
    });

    test('a file of another kind whose last record is cut off is told so: the records before the break are judged and checked', async () => {
      const locationId = newLocationId();
      const cutOff = await importFiles(instance.store, {
        locationId,
        inventoryHistory: {
          path: 'po.ndjson',
          input: Readable.from([
            [...orders.slice(0, 3).map((order) => JSON.stringify(order)), '{"id": "unclosed'].join('\n'),
          ]),
        },
        maxProblems: 1000,
      });
      // Nor is the break told: the file is not to be given with this flag at all.
      assert.deepEqual(cutOff.problems.map(formatProblem), [
        'po.ndjson:0 (file): looks like purchase orders, not inventory entries: give it as purchaseOrders',
      ]);
      // Of the right kind: a broken record before the break is reported, in file order.
      const lines = entries.slice(0, 5).map((entry) => JSON.stringify(entry));
      lines[2] = JSON.stringify({ ...entries[2], adjustmentType: 'LOST' });
      const ownKind = await importFiles(instance.store, {
        locationId,
        inventoryHistory: {
          path: 'ih.ndjson',
          input: Readable.from([[...lines, '{"a": "unclosed'].join('\n')]),
        },
      });
      assert.deepEqual(
        ownKind.problems.map((problem) => [problem.line, problem.fieldName]),
        [
          [3, 'adjustmentType'],
          [6, '(file)'],
        ],
      );
      assert.equal(await instance.store.locations.get(locationId), undefined);
    });

    test('a file that cannot be read (a directory, no permission) is a problem at line 0, and nothing is stored', async () => {
      const locationId = newLocationId();
      // What a read stream of a file the user may not read fails with (root may read anything, so it is made here).
      const refused = new Readable({
        read() {
          this.destroy(
            Object.assign(new Error("EACCES: permission denied, open 'ih.ndjson'"), {
              code: 'EACCES',
              syscall: 'open',
              path: 'ih.ndjson',
            }),
          );
        },
      });
      const result = await importFiles(instance.store, {
        locationId,
        purchaseOrders: { path: import.meta.dirname },
        inventoryHistory: { path: 'ih.ndjson', input: refused },
      });
      assert.equal(result.committed, false);
      assert.deepEqual(
        result.problems.map((problem) => formatProblem(problem)),
        [
          `${import.meta.dirname}:0 (file): is a directory, not a file`,
          'ih.ndjson:0 (file): cannot be read: permission denied',
        ],
      );
      assert.equal(await instance.store.locations.get(locationId), undefined);
    });

    test('an invalid record after batches were written stores nothing', async () => {
      const locationId = newLocationId();
      const broken = [...entries, { ...entries[0], adjustmentType: 'MISPLACED' }];
      const result = await importFiles(instance.store, {
        locationId,
        inventoryHistory: { path: 'ih.ndjson', input: ndjson(broken) },
      });
      assert.equal(result.committed, false);
      assert.deepEqual(
        result.problems.map((problem) => [problem.line, problem.fieldName]),
        [[broken.length, 'adjustmentType']],
      );
      assert.equal(await instance.store.locations.get(locationId), undefined);
    });
  });
}
