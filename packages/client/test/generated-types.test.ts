import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderClientTypes } from '../../../scripts/client-types.js';
import { REPO } from '../../../test/helpers/repo.js';

test('the client types are generated from the current schemas (run `npm run generate:client` if not)', async () => {
  assert.equal(
    await readFile(join(REPO, 'packages', 'client', 'src', 'generated', 'types.ts'), 'utf8'),
    await renderClientTypes(),
  );
});
