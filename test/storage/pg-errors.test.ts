import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUnavailableError } from '../../src/storage/postgres/pg-errors.js';

/** SQLSTATEs as node-postgres reports them: `code` on the error. */
const sqlError = (code: string) => Object.assign(new Error(`failed (${code})`), { code });

test('a database refusing connections, missing, out of resources or refusing the login is unavailable (503)', () => {
  for (const code of [
    '55000',
    '3D000',
    '28P01',
    '28000',
    '53300',
    '53100',
    '57P01',
    '57P04',
    '08006',
    'ECONNREFUSED',
  ])
    assert.equal(isUnavailableError(sqlError(code)), true, code);
});

test('a query mistake or a constraint is not: it stays an error of its own', () => {
  for (const code of ['42P01', '23505', '22021', '0800'])
    assert.equal(isUnavailableError(sqlError(code)), false, code);
});
