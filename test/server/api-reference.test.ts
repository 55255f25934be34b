import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderApiReference } from '../../src/server/api-reference.js';
import { REPO } from '../helpers/repo.js';

test('docs/api.md is what the schemas render (run `npm run docs` after changing a schema)', () => {
  const committed = readFileSync(join(REPO, 'docs', 'api.md'), 'utf8');
  assert.equal(committed, renderApiReference());
});

test('the reference names every record shape, the id fields, paging and an example of each record', () => {
  const text = renderApiReference();
  for (const shape of [
    'PurchaseOrder',
    'InventoryHistoryLogEntry',
    'PurchaseOrderItem',
    'ErrorMessage',
    'DateRange',
  ])
    assert.match(text, new RegExp(`### ${shape}\\n`), shape);
  assert.match(text, /`pageToken`/);
  assert.match(text, /inventoryHistoryLogId/);
  assert.match(text, /"platformGeneratedPurchaseOrderNumber"/);
  assert.match(text, /"adjustmentType": "RECEIVE"/);
});
