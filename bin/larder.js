#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

// Standard output's failures (a reader that stops early, a full disk) are handled by the io main gives commands:
// src/cli/process-io.ts.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  },
);
