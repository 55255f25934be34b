import type { CommandIo } from './command.js';

/**
 * The process's own standard streams as a command's io. A reader of standard output that stops early
 * (`larder check | head`) closes the pipe: from then on output is dropped quietly, as Unix tools stop, while the
 * command runs on to its own exit code (check still exits 1 on findings, so `set -o pipefail` sees it), and
 * `stdoutGone` tells one that would write forever (`requests --follow`) to end. Any other failure (a full disk:
 * ENOSPC) is said in one line, exit code 1; exiting waits a turn, so a command can first undo what it started.
 * (export writes a piped standard output through a handle of its own and says itself what an early reader cost.)
 *
 * Standard error that fails, its reader gone (`larder import … 2>&1 | head -1`) or its disk full, loses the
 * messages still to come and nothing else: there is nowhere left to say so, the command's work (an import, all or
 * nothing) runs to its own end, and its exit code still tells how that went. Unheard, the failure would crash the
 * process, exit code 1 whatever the command's own.
 */
export const processIo = (): CommandIo => {
  const gone = new AbortController();
  let stderrGone = false;
  process.stderr.on('error', () => {
    stderrGone = true;
  });
  // A write after a failure would fail again (ERR_STREAM_DESTROYED) for nothing.
  const stderr = (text: string) => {
    if (!stderrGone && !process.stderr.destroyed) process.stderr.write(text);
  };
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') {
      gone.abort();
      return;
    }
    stderr(`larder: cannot write to standard output: ${error.message}\n`);
    setImmediate(() => process.exit(1));
  });
  return {
    stdout: (text) => {
      if (!gone.signal.aborted && !process.stdout.destroyed) process.stdout.write(text);
    },
    stderr,
    env: process.env,
    isTty: process.stderr.isTTY === true,
    stdoutIsTty: process.stdout.isTTY === true,
    stdoutGone: gone.signal,
  };
};
