import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../../scripts/client-types.js';

test('the client types are generated from the current schemas (run `npm run generate:client` if not)', async () => {
  assert.equal(await readFile(CLIENT_TYPES_FILE, 'utf8'), await renderClientTypes());
});
