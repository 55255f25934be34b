import assert from 'node:assert/strict';
import { test } from 'node:test';
import { siblingModule, startWorker } from '../../src/shared/start-worker.js';

test('a worker next to a source module is the compiled one in dist/: no TypeScript loader', () => {
  assert.equal(
    siblingModule('file:///app/src/import/record-converter.ts', 'convert-worker').href,
    'file:///app/dist/import/convert-worker.js',
  );
  assert.equal(
    siblingModule('file:///app/dist/import/record-converter.js', 'convert-worker').href,
    'file:///app/dist/import/convert-worker.js',
  );
});

test('a worker module that was not built is named, with what to do', () => {
  assert.throws(
    () => startWorker(new URL('file:///nowhere/dist/seed/seed-worker.js'), {}),
    /\/nowhere\/dist\/seed\/seed-worker\.js is missing: run `npm run build` first/,
  );
});
