import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { closeUnansweredHandoffs } from '../../src/server/cluster-handoffs.js';

/** A worker's channel as the primary sees it: what it sent, and the worker's answers and end to emit. */
const fakeChannel = () => {
  const channel = Object.assign(new EventEmitter(), {
    sent: [] as unknown[],
    send(message: unknown, _handle?: unknown) {
      channel.sent.push(message);
      return true;
    },
  });
  return channel;
};

const socket = () => ({
  closed: 0,
  close() {
    this.closed++;
  },
});

const newConnection = (seq: number) => ({ cmd: 'NODE_CLUSTER', act: 'newconn', key: 'k', seq });

test('connections handed to a worker that never answered are closed once it has exited; answered ones are left to Node', () => {
  const channel = fakeChannel();
  closeUnansweredHandoffs(channel);
  const taken = socket();
  const refused = socket();
  const lost = socket();
  channel.send(newConnection(1), taken);
  channel.send(newConnection(2), refused);
  channel.send(newConnection(3), lost);
  channel.send({ cmd: 'NODE_CLUSTER', act: 'other', seq: 4 }, socket());
  assert.equal(channel.sent.length, 4, 'every message still goes out');
  channel.emit('internalMessage', { cmd: 'NODE_CLUSTER', ack: 1, accepted: true, seq: 9 });
  channel.emit('internalMessage', { cmd: 'NODE_CLUSTER', ack: 2, accepted: false, seq: 10 });
  channel.emit('internalMessage', { cmd: 'NODE_HANDLE_ACK' });
  assert.equal(lost.closed, 0, 'nothing is closed while the worker may still answer');
  channel.emit('close');
  assert.deepEqual([taken.closed, refused.closed, lost.closed], [0, 0, 1]);
});
