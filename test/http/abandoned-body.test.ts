import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { test } from 'node:test';
import type { Context } from 'hono';
import { readBodyText } from '../../src/http/request-body.js';
import { LarderError } from '../../src/shared/errors.js';

/**
 * A client that gives up while its request waits (autocannon ending a run, a client timeout) leaves a request
 * whose 'close' has already fired when the handler comes to read the body. The read must end at once: before,
 * it waited for an 'end' that never comes, and the request held its place until the 10 s deadline.
 */
test('reading the body of a request whose client has already gone ends at once with a 400', {
  timeout: 10_000,
}, async () => {
  let arrive: (request: IncomingMessage) => void = () => {};
  const arrived = new Promise<IncomingMessage>((resolve) => {
    arrive = resolve;
  });
  const server = createServer((request) => {
    // As in the server, where the reader listens for it: the departure surfaces as an 'aborted' error.
    request.on('error', () => {});
    arrive(request);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    const body = '{"includeArchived":true}';
    socket.write(
      `POST /v1/purchaseOrders/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 10}\r\n\r\n${body}`,
    );
    const request = await arrived;
    // The client goes away before the handler reads a byte of the body.
    socket.destroy();
    // Not events.once: it would reject with the 'aborted' error the request emits on the way.
    if (!request.destroyed) await new Promise((resolve) => request.once('close', resolve));
    const context = { env: { incoming: request }, req: { raw: undefined } } as unknown as Context;
    const error = await readBodyText(context).then(
      () => assert.fail('a body cut off by a departed client must not read as complete'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof LarderError);
    assert.equal(error.status, 400);
  } finally {
    server.close();
  }
});
