import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESET_EFFECTS, resetFailure } from '../../console/src/reset.js';

test('a reset refused because the database was not started as a demo says so in words: nothing was reset', () => {
  const said = resetFailure(
    409,
    '409: Only a demo database can be reset: this one was not first started as a demo.',
  );
  assert.match(said, /^Nothing was reset: /);
  assert.match(said, /not first started as a demo/);
  assert.doesNotMatch(said, /409/);
});

test('a reset Larder did not answer may have happened or not: said so, not "failed"', () => {
  const said = resetFailure(0, 'Larder did not answer: is it still running? Retrying as you go on.');
  assert.match(said, /^Larder did not answer/);
  assert.match(said, /may or may not have been reset/);
});

test('any other refusal is a failed reset, with the server’s words', () => {
  assert.equal(resetFailure(500, '500: Internal error'), 'The reset failed: 500: Internal error');
});

test('what a reset does is said before it is confirmed: data, clients, clock, journal, fault rules, failed logins and rate-limit counts', () => {
  for (const part of [
    /demo data/,
    /demo client/,
    /real time/,
    /journal/,
    /fault rules/,
    /failed logins/,
    /rate-limit counts/,
  ])
    assert.match(RESET_EFFECTS, part);
});
