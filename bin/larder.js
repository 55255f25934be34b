#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

// A reader that stops early (`larder openapi | head`) closes the pipe: stop quietly, as Unix tools do, rather
// than crash on the unhandled write error. Any other (a full disk: ENOSPC) is said in one line, exit 1. Exiting
// waits a turn, so a command can first undo what it started. (export writes a pipe or socket there through a
// handle of its own, so that a stop can drop a stalled write, and says itself what an early reader cost.)
process.stdout.on('error', (error) => {
  if (error.code !== 'EPIPE')
    process.stderr.write(`larder: cannot write to standard output: ${error.message}\n`);
  setImmediate(() => process.exit(error.code === 'EPIPE' ? 0 : 1));
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  },
);
