import type { CommandIo } from './command.js';

/**
 * The process's own standard streams as a command's io. A reader of standard output that stops early
 * (`larder check | head`) closes the pipe: from then on output is dropped quietly, as Unix tools stop, while the
 * command runs on to its own exit code (check still exits 1 on findings, so `set -o pipefail` sees it), and
 * `stdoutGone` tells one that would write forever (`requests --follow`) to end. Any other failure (a full disk:
 * ENOSPC) is said in one line, exit code 1; exiting waits a turn, so a command can first undo what it started.
 * (export writes a piped standard output through a handle of its own and says itself what an early reader cost.)
 */
export const processIo = (): CommandIo => {
  const gone = new AbortController();
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') {
      gone.abort();
      return;
    }
    process.stderr.write(`larder: cannot write to standard output: ${error.message}\n`);
    setImmediate(() => process.exit(1));
  });
  return {
    // A write after the reader went would fail again (ERR_STREAM_DESTROYED) for nothing.
    stdout: (text) => {
      if (!gone.signal.aborted && !process.stdout.destroyed) process.stdout.write(text);
    },
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    isTty: process.stderr.isTTY === true,
    stdoutIsTty: process.stdout.isTTY === true,
    stdoutGone: gone.signal,
  };
};
