import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createProgress } from '../../src/cli/progress.js';

/** The terminal progress line of import, export and pull, on a clock the test moves. */
const progressOn = (isTty: boolean) => {
  const written: string[] = [];
  let at = 1_000;
  const progress = createProgress(
    { stdout: () => {}, stderr: (text) => written.push(text), env: {}, isTty },
    'records',
    () => at,
  );
  return {
    written,
    progress,
    advance: (ms: number) => {
      at += ms;
    },
  };
};

test('each count erases the rest of the line, so a shorter one leaves nothing of a longer one behind', () => {
  const { written, progress, advance } = progressOn(true);
  advance(1_000);
  progress.update(12_345);
  advance(1_000);
  progress.update(1);
  progress.done();
  assert.deepEqual(written, ['\r12,345 records (12,345/s)\x1b[K', '\r1 record (1/s)\x1b[K', '\n']);
});

test('at most one line per 200 ms, and nothing at all off a terminal', () => {
  const shown = progressOn(true);
  shown.advance(1_000);
  shown.progress.update(10);
  shown.advance(199);
  shown.progress.update(20);
  assert.equal(shown.written.length, 1);

  const quiet = progressOn(false);
  quiet.advance(1_000);
  quiet.progress.update(10);
  quiet.progress.done();
  assert.deepEqual(quiet.written, []);
});
