import { type ChildProcess, fork, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

export interface Child {
  url: string;
  /** Every server the child runs (server-child.mjs with LARDER_BENCH_CONFIGS); else just `url`. */
  urls?: readonly string[];
  /** Sends `message` and resolves with the first reply that has `key`. */
  ask<T>(message: unknown, key: string): Promise<T>;
  stop(): Promise<void>;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

const reply = <T>(child: ChildProcess, key: string, timeoutMs: number, whole = false) =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`no "${key}" from the child within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onMessage = (message: Record<string, unknown>) => {
      if (!(key in message)) return;
      cleanup();
      resolve((whole ? message : message[key]) as T);
    };
    const onExit = (code: number | null) =>
      fail(new Error(`the child exited (${code}) before sending "${key}"`));
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });

/** Starts a bench module in its own Node process (TypeScript through tsx, .mjs as is), talking over IPC. */
export const startChild = async (
  script: string,
  options: { env?: Record<string, string>; execArgv?: string[] } = {},
): Promise<Child> => {
  const child = fork(join(import.meta.dirname, script), [], {
    cwd: ROOT,
    execArgv: [...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), ...(options.execArgv ?? [])],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await reply<{ url: string; urls?: string[] }>(child, 'url', 60_000, true);
  const { url } = ready;
  return {
    url,
    urls: ready.urls ?? [url],
    ask: (message, key) => {
      const answer = reply<never>(child, key, 30_000);
      child.send(message as never);
      return answer;
    },
    stop: async () => {
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited(child);
      clearTimeout(timer);
    },
  };
};

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

/** Prism is the bench's own dependency (bench/package.json), not the server's. */
const PRISM = join(ROOT, 'bench', 'node_modules', '.bin', 'prism');

/**
 * Prism mocking Larder's own OpenAPI document (the peer). Resolves undefined, with the reason, when it is not
 * installed or does not start, so the bench still runs without it.
 */
export const startPrism = async (documentPath: string): Promise<{ child: Child } | { skipped: string }> => {
  if (!existsSync(PRISM))
    return {
      skipped:
        'bench/node_modules/.bin/prism is missing (npm run bench installs it; or npm ci --prefix bench)',
    };
  const port = await freePort();
  const child = spawn(PRISM, ['mock', '-h', '127.0.0.1', '-p', String(port), '--errors', documentPath], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Prism is listening/.test(output)) {
        clearTimeout(timer);
        resolve(true);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  // Prism logs every request; the pipe must keep draining or it stalls.
  child.stdout.resume();
  child.stderr.resume();
  const stop = async () => {
    child.kill('SIGTERM');
    await exited(child);
  };
  if (!ready) {
    await stop();
    return { skipped: `Prism did not start: ${output.trim().split('\n').slice(-3).join(' | ')}` };
  }
  return {
    child: {
      url: `http://127.0.0.1:${port}`,
      ask: () => Promise.reject(new Error('Prism has no IPC')),
      stop,
    },
  };
};
