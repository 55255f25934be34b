#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

// A reader that stops early (`larder openapi | head`) closes the pipe: stop quietly, as Unix tools do, rather
// than crash on the unhandled write error.
process.stdout.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
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
