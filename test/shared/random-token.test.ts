import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateClientSecret } from '../../src/auth/client-secret.js';
import { parseCommandArgs } from '../../src/cli/command.js';
import { clockCommand } from '../../src/cli/commands/clock-command.js';
import { demoText } from '../../src/sandbox/demo.js';
import { randomToken } from '../../src/shared/random-token.js';
import { captureIo } from '../helpers/serve-config.js';

test('generated secrets and admin tokens never start with "-" (a flag), and keep their length', () => {
  // One plain base64url draw in 64 starts with "-": 2,000 draws all passing is no accident.
  for (let i = 0; i < 2000; i++) {
    const token = randomToken(24);
    assert.equal(token.length, 32);
    assert.match(token, /^[A-Za-z0-9_][A-Za-z0-9_-]*$/);
    assert.ok(!generateClientSecret().startsWith('-'));
  }
});

test("the start banner's CLI line works even with an admin token that starts with '-' (older demo databases)", () => {
  const adminToken = '-HFSe4nvJNabcdefghijklmnopqrstuv';
  const banner = demoText(
    { clientId: 'c', clientSecret: 's', locations: [{ id: 'l', name: 'L', records: '' }], adminToken },
    'http://127.0.0.1:8080',
  );
  const line = banner.split('\n').find((l) => l.includes('clock advance'));
  assert.ok(line !== undefined);
  const argv = line.trim().split(/\s+/).slice(3); // after `npx larder clock`
  const parsed = parseCommandArgs(clockCommand, argv, captureIo());
  assert.notEqual(parsed, 'help');
  assert.equal((parsed as Exclude<typeof parsed, 'help'>).strings['admin-token'], adminToken);
});
