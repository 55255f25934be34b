import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type CommandIo, parseCommandArgs } from '../../src/cli/command.js';
import { serveCommand } from '../../src/cli/commands/serve-command.js';
import { parseServeConfig, type ServeConfig } from '../../src/cli/serve-config.js';

/** An in-memory CommandIo collecting everything written (stdout a terminal or not). */
export const captureIo = (stdoutIsTty = false): CommandIo & { out: string[] } => {
  const out: string[] = [];
  return { out, stdout: (t) => out.push(t), stderr: (t) => out.push(t), env: {}, isTty: false, stdoutIsTty };
};

/** The config `larder serve --db DIR/larder.db --port 0 --no-demo ARGS` parses, defaults included. */
export const serveConfigIn =
  (dir: () => string) =>
  (...argv: string[]): ServeConfig => {
    const args = parseCommandArgs(
      serveCommand,
      ['--db', join(dir(), 'larder.db'), '--port', '0', '--no-demo', ...argv],
      captureIo(),
    );
    assert.notEqual(args, 'help');
    return parseServeConfig(args as Exclude<typeof args, 'help'>);
  };
