import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { missing } from './smoke.js';

test('a sub-second run whose server answers only after the run’s duration still measures its answers', {
  skip: missing,
}, async () => {
  const { measure } = await import('../../bench/load.js');
  const duration = 0.3;
  let held = true;
  // A stalled server, as a loaded CI machine's can be: nothing answers until twice the run's duration has gone.
  // The wait is in real time because autocannon's duration is.
  const release = setTimeout(() => {
    held = false;
    for (const answer of waiting.splice(0)) answer();
  }, duration * 2000);
  const waiting: (() => void)[] = [];
  const server = createServer((_request, response) => {
    const answer = () => response.end('ok');
    if (held) waiting.push(answer);
    else answer();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const measured = await measure(
      `http://127.0.0.1:${port}`,
      { method: 'GET', paths: ['/'], headers: {} },
      { connections: 2, duration },
    );
    assert.ok(measured.requestsPerSecond > 0, `measured ${measured.requestsPerSecond} requests a second`);
    assert.equal(measured.failures, 0);
  } finally {
    clearTimeout(release);
    server.closeAllConnections();
    server.close();
  }
});
