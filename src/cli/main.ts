import { readFile } from 'node:fs/promises';
import { didYouMean } from '../shared/did-you-mean.js';
import { isLarderError, isStoreError } from '../shared/errors.js';
import { KeyEncryptionError } from '../shared/key-encryption.js';
import { AdminApiError } from './admin-client.js';
import { type Command, type CommandIo, parseCommandArgs, renderHelp, UsageError } from './command.js';
import { checkCommand } from './commands/check-command.js';
import { clientsCommand } from './commands/clients-command.js';
import { clockCommand } from './commands/clock-command.js';
import { exportCommand } from './commands/export-command.js';
import { faultsCommand } from './commands/faults-command.js';
import { importCommand } from './commands/import-command.js';
import { keysCommand } from './commands/keys-command.js';
import { locationsCommand } from './commands/locations-command.js';
import { migrateCommand } from './commands/migrate-command.js';
import { openapiCommand } from './commands/openapi-command.js';
import { pullCommand } from './commands/pull-command.js';
import { rateLimitsCommand } from './commands/rate-limits-command.js';
import { reportCommand } from './commands/report-command.js';
import { requestsCommand } from './commands/requests-command.js';
import { seedCommand } from './commands/seed-command.js';
import { serveCommand } from './commands/serve-command.js';
import { processIo } from './process-io.js';

export const COMMANDS: readonly Command[] = [
  serveCommand,
  importCommand,
  exportCommand,
  pullCommand,
  seedCommand,
  checkCommand,
  locationsCommand,
  clientsCommand,
  keysCommand,
  migrateCommand,
  clockCommand,
  requestsCommand,
  reportCommand,
  faultsCommand,
  rateLimitsCommand,
  openapiCommand,
];

const NAME_WIDTH = Math.max(...COMMANDS.map((command) => command.name.length)) + 1;

const overview = () =>
  `larder — a self-hostable authentication + retail API server (purchase orders and inventory history).

Usage: larder <command> [options]
       larder --version

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(NAME_WIDTH)} ${command.summary}`).join('\n')}

Run \`larder <command> --help\` or \`larder help <command>\` for a command's options.
`;

/** The version in package.json, found relative to this file (src/cli or dist/cli alike). */
const larderVersion = async (): Promise<string> => {
  const text = await readFile(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
};

/** The options larder takes before any command, each with its other spellings. */
const TOP_OPTIONS: Record<string, readonly string[]> = { '--version': ['-V'], '--help': ['-h'] };

/** The top-level option a mistyped one most likely meant: `-v` (a case away from -V) is --version. */
const meantOption = (given: string): string | undefined => {
  const names = Object.keys(TOP_OPTIONS);
  const byCase = names.find((name) =>
    [name, ...TOP_OPTIONS[name]!].some((alias) => alias.toLowerCase() === given.toLowerCase()),
  );
  const guesses = didYouMean(given, names);
  // `--` begins both: no guess rather than a wrong one.
  return byCase ?? (guesses.length === 1 ? guesses[0] : undefined);
};

/** Runs the CLI; returns the process exit code (2 for usage mistakes). */
export const main = async (argv: readonly string[], io: CommandIo = processIo()): Promise<number> => {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    // A stray word is a usage mistake here as after any command, not quietly dropped.
    if (rest.length > 0) {
      io.stderr(
        `larder: Unexpected argument: ${rest.join(' ')} (${name} takes none).\nRun \`larder --help\` for usage.\n`,
      );
      return 2;
    }
    io.stdout(`larder ${await larderVersion()}\n`);
    return 0;
  }
  const unknown = (given: string): number => {
    const option = given.startsWith('-');
    const meant = option
      ? meantOption(given)
      : didYouMean(
          given,
          COMMANDS.map((candidate) => candidate.name),
        )[0];
    const hint = meant === undefined ? '' : ` Did you mean 'larder ${meant}'?`;
    io.stderr(`larder: unknown ${option ? 'option' : 'command'} '${given}'.${hint}\n\n${overview()}`);
    return 2;
  };
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const [topic, ...stray] = rest;
    if (topic === undefined) {
      io.stdout(overview());
      return name === undefined ? 2 : 0;
    }
    // `larder help serve`, as git and npm take it: that command's own help.
    if (stray.length > 0) {
      io.stderr(
        `larder: Unexpected argument: ${stray.join(' ')} (help takes one command).\nRun \`larder --help\` for usage.\n`,
      );
      return 2;
    }
    const command = COMMANDS.find((candidate) => candidate.name === topic);
    if (command === undefined) return unknown(topic);
    io.stdout(renderHelp(command));
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) return unknown(name);
  try {
    const args = parseCommandArgs(command, rest, io);
    if (args === 'help') {
      io.stdout(renderHelp(command));
      return 0;
    }
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof AdminApiError) {
      io.stderr(`larder ${command.name}: ${error.message}\n`);
      return 1;
    }
    if (error instanceof UsageError) {
      io.stderr(
        `larder ${command.name}: ${error.message}\nRun \`larder ${command.name} --help\` for usage.\n`,
      );
      return 2;
    }
    // Mistakes the domain reports (unknown client, bad scope), a store that cannot be opened or used (the
    // message names the file or server and the cause) and a wrong or missing key-encryption key: the message
    // alone, no stack.
    if (
      (isLarderError(error) && error.status < 500) ||
      isStoreError(error) ||
      error instanceof KeyEncryptionError
    ) {
      io.stderr(`larder ${command.name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
};
