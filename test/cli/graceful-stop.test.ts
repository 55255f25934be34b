import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { type ClientRequest, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startServe } from '../helpers/cli.js';

/** SIGTERM on the real CLI: stop accepting, let requests in flight finish within --shutdown-timeout, exit 0. */

const LOGIN = '/authentication/v1/authentication/login';
const BODY = JSON.stringify({
  clientId: 'nobody',
  clientSecret: 'wrong',
  userAccessType: 'PLATFORM_MACHINE_CLIENT',
});

/**
 * A login whose head the server has read (it answered 100 Continue) but whose body has not been sent: a request
 * in flight, for as long as the test wants.
 */
const requestInFlight = (url: string) =>
  new Promise<{ req: ClientRequest; answer: Promise<{ status: number; body: string }> }>(
    (resolve, reject) => {
      const req = request(`${url}${LOGIN}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(BODY),
          expect: '100-continue',
        },
      });
      const answer = new Promise<{ status: number; body: string }>((done, fail) => {
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => done({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', fail);
      });
      answer.catch(() => {});
      req.on('continue', () => resolve({ req, answer }));
      req.on('error', reject);
      req.flushHeaders();
    },
  );

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });

/** Resolves once the server has said it is stopping (it got the signal). */
const saidStopping = (output: () => string, child: ChildProcess) =>
  new Promise<void>((resolve) => {
    const check = () => {
      if (!/SIGTERM: stopping/.test(output())) return;
      child.stderr?.off('data', check);
      resolve();
    };
    child.stderr?.on('data', check);
    check();
  });

describe('larder serve stops gracefully on SIGTERM', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-stop-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('requests in flight finish, new connections are refused, the store is closed and the exit code is 0', async () => {
    const db = join(dir, 'finish.db');
    const server = await startServe(['--db', db, '--no-demo', '--port', '0', '--shutdown-timeout', '30']);
    const inFlight = await Promise.all([requestInFlight(server.url), requestInFlight(server.url)]);
    const exit = exited(server.child);
    server.child.kill('SIGTERM');
    await saidStopping(server.output, server.child);
    // No longer accepting.
    await assert.rejects(fetch(`${server.url}/healthz`));
    for (const { req } of inFlight) req.end(BODY);
    for (const { answer } of inFlight) {
      const { status, body } = await answer;
      assert.equal(status, 401);
      assert.match(body, /"requestId"/);
    }
    assert.equal(await exit, 0);
    assert.match(server.output(), /stopped/);
  });

  test('a request that never completes is cut at --shutdown-timeout, and the exit code is still 0', {
    timeout: 30_000,
  }, async () => {
    const db = join(dir, 'cut.db');
    const server = await startServe(['--db', db, '--no-demo', '--port', '0', '--shutdown-timeout', '1']);
    const stuck = await requestInFlight(server.url);
    const started = performance.now();
    const exit = exited(server.child);
    server.child.kill('SIGTERM');
    await assert.rejects(stuck.answer);
    assert.equal(await exit, 0);
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds >= 0.9 && seconds < 10, `stopped after ${seconds} s`);
  });
});
