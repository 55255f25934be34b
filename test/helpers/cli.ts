import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandIo } from '../../src/cli/command.js';
import { main } from '../../src/cli/main.js';
import { REPO } from './repo.js';

/** The real CLI from bin/ (built by `npm run build`), as a user runs it. */
export const BIN = join(REPO, 'bin', 'larder.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node ...argv` to completion, collecting its output. */
export const runNode = (argv: string[], options: { env?: Record<string, string>; cwd?: string } = {}) =>
  new Promise<Run>((resolve) => {
    // A child that runs tests of its own (an example suite) reports as a user sees it, not as this runner's subtest.
    const { NODE_TEST_CONTEXT: _context, ...env } = { ...process.env, ...options.env };
    const child = spawn(process.execPath, argv, {
      env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

export const larder = (args: string[], env: Record<string, string> = {}, cwd?: string) =>
  runNode([BIN, ...args], { env, ...(cwd === undefined ? {} : { cwd }) });

/**
 * Runs `larder ...argv` with a reader of its standard output that takes the first chunk and closes the pipe
 * (`larder … | head -1`): `readerGone` once it has, `closed` with the exit code and stderr.
 */
export const larderToHead = (argv: string[], env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, [BIN, ...argv], { env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.once('data', () => child.stdout.destroy());
  return {
    readerGone: once(child.stdout, 'close'),
    closed: once(child, 'close').then(([code]) => ({ code: code as number | null, stderr })),
  };
};

/** Records the exceptions nothing handled in a CLI whose standard error is gone: test/helpers/uncaught-probe.mjs. */
const UNCAUGHT_PROBE = join(import.meta.dirname, 'uncaught-probe.mjs');
let probed = 0;

/**
 * Runs `larder ...argv` with a reader of its standard error that takes the first chunk and closes the pipe
 * (`larder … 2> >(head -1)`), or with `mergeStderr` both streams into that one reader (`larder … 2>&1 | head -1`,
 * through sh). Resolves with the exit code, standard output (unless merged), and the stack of every exception
 * nothing handled (kept in a file in `dir`).
 */
export const larderStderrToHead = async (argv: string[], options: { dir: string; mergeStderr?: boolean }) => {
  const uncaughtLog = join(options.dir, `uncaught-${++probed}.log`);
  const node = [process.execPath, '--import', UNCAUGHT_PROBE, BIN, ...argv];
  const env = { ...process.env, LARDER_UNCAUGHT_LOG: uncaughtLog };
  const child = options.mergeStderr
    ? spawn('sh', ['-c', 'exec "$@" 2>&1', 'sh', ...node], { env })
    : spawn(node[0]!, node.slice(1), { env });
  const reader = options.mergeStderr ? child.stdout : child.stderr;
  let stdout = '';
  if (!options.mergeStderr)
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
  reader.once('data', () => reader.destroy());
  const [code] = await once(child, 'close');
  const uncaught = await readFile(uncaughtLog, 'utf8').catch(() => '');
  return { code: code as number | null, stdout, uncaught };
};

/**
 * Starts `larder serve` and resolves with its URL once it says it is listening. `until` resolves once the output
 * so far (every line of the primary and its workers) passes `test`, at the write that makes it so: the log is
 * written asynchronously, so a line may come after the answer that caused it.
 */
export const startServe = (args: string[], options: { cwd?: string } = {}) =>
  new Promise<{
    child: ChildProcess;
    url: string;
    output: () => string;
    until: (test: (output: string) => boolean) => Promise<void>;
  }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [BIN, 'serve', ...args],
      options.cwd === undefined ? {} : { cwd: options.cwd },
    );
    let output = '';
    const waiting = new Set<() => void>();
    const until = (test: (output: string) => boolean) =>
      new Promise<void>((done, fail) => {
        const check = () => {
          if (!test(output)) return;
          clearTimeout(bound);
          waiting.delete(check);
          done();
        };
        // Only a bound on a failing test: a passing one goes on at the line's arrival.
        const bound = setTimeout(() => {
          waiting.delete(check);
          fail(new Error(`not in the output within 60 s:\n${output}`));
        }, 60_000);
        waiting.add(check);
        check();
      });
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const check of [...waiting]) check();
      // The banner is text on a terminal (ending "Press Ctrl-C"), else one JSON line.
      const match = /listening on (https?:\/\/\S+?) /.exec(output);
      const complete =
        output.includes('Press Ctrl-C') || /"msg":"Larder is listening on [^\n]*\n/.test(output);
      if (match?.[1] !== undefined && complete) {
        clearTimeout(timer);
        resolve({ child, url: match[1], output: () => output, until });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
  });

/** Sends SIGTERM and resolves with the exit code. */
export const stop = (child: ChildProcess) => {
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  return exited;
};

/** Runs the CLI in process through `main`, with captured output and `env` as its whole environment. */
export const runMain = async (argv: string[], env: Record<string, string> = {}) => {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    isTty: false,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
};
