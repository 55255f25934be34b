import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { compileValidators, createValidator, uncompiledValidators } from '../../src/shared/validator.js';
import { startTestServer } from '../helpers/test-server.js';

/** Validators compile when first used, and all at once before a server is ready. */

test('a server compiles every validator before it is ready, and each compiles under strict mode', async () => {
  // Importing the server makes every validator of the app and compiles none.
  assert.ok(uncompiledValidators() > 0, `${uncompiledValidators()} validators wait`);
  const running = await startTestServer({ demo: true });
  try {
    assert.equal(uncompiledValidators(), 0);
    assert.equal((await fetch(`${running.server.url}/readyz`)).status, 200);
  } finally {
    await running.stop();
  }
});

test('a validator compiles at its first use; a schema strict mode refuses throws then, or at compileValidators', () => {
  const age = createValidator<number>(Type.Integer({ minimum: 0 }));
  const waiting = uncompiledValidators();
  assert.deepEqual(age.problems(-1), [{ fieldName: '', message: 'must be >= 0' }]);
  assert.equal(age.is(3), true);
  assert.equal(uncompiledValidators(), waiting - 1);

  const refused = createValidator({ type: 'string', unknownKeyword: true } as never);
  assert.throws(() => compileValidators(), /strict mode: unknown keyword: "unknownKeyword"/);
  assert.throws(() => refused.is('x'), /unknown keyword/);
});
