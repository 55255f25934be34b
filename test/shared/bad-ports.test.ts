import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BAD_PORTS, badPortReason, FETCH_BAD_PORT } from '../../src/shared/bad-ports.js';

test("every bad port of Larder's copy is one Node's fetch refuses, before connecting", async () => {
  // Port 0 joined the standard's table in 2025, after Node 20's fetch was made: it connects (and is refused).
  for (const port of [...BAD_PORTS].filter((p) => p !== 0)) {
    const error = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    assert.equal((error as { cause?: Error }).cause?.message, FETCH_BAD_PORT, String(port));
  }
  // The ranges the audit named, spelled out, are all in.
  for (const port of [1, 7, 9, 6000, 6665, 6666, 6667, 6668, 6669, 6697, 10080])
    assert.ok(BAD_PORTS.has(port));
  assert.ok(!BAD_PORTS.has(8080) && !BAD_PORTS.has(443) && !BAD_PORTS.has(80));
});

test('the reason names the port, that fetch refused it and what to do', () => {
  assert.equal(
    badPortReason('http://127.0.0.1:6000'),
    'port 6000 is one fetch refuses to connect to (a "bad port" of the Fetch standard, blocked by browsers too; nothing was sent): serve it on another port',
  );
});
