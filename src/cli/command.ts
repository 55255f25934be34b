import { parseArgs } from 'node:util';
import { didYouMean } from '../shared/did-you-mean.js';
import { DEFAULT_SQLITE_PATH } from '../shared/limits.js';

/**
 * One option table per command drives parsing, precedence (flag > environment > default), validation and the
 * `--help` text, so the documentation cannot drift from what is parsed.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  env?: string;
  default?: string;
  placeholder?: string;
  short?: string;
}

export type OptionTable = Record<string, OptionSpec>;

export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether stderr is a terminal. */
  isTty: boolean;
  /** Whether stdout is a terminal (serve's banner is text there, JSON otherwise). */
  stdoutIsTty?: boolean;
  /**
   * Aborted once standard output's reader has gone (a closed pipe): what is written then is dropped, and a command
   * that would write on forever (`requests --follow`) ends.
   */
  stdoutGone?: AbortSignal;
}

export interface ParsedArgs {
  strings: Record<string, string | undefined>;
  flags: Record<string, boolean>;
  positionals: string[];
  /** The options given as flags on the command line. */
  given: ReadonlySet<string>;
  /** The environment variable each option's value came from, when not from its flag or default. */
  fromEnv: Record<string, string>;
  /** The environment variable each option may come from (for options that have one). */
  envOf: Record<string, string>;
}

/**
 * How an option is named in a message: `--port`, or `LARDER_PORT (--port)` when the value came from the
 * environment, so the user looks where the mistake is.
 */
export const optionLabel = (args: ParsedArgs, name: string): string => {
  const env = args.fromEnv[name];
  return env === undefined ? `--${name}` : `${env} (--${name})`;
};

/** A URL as a usage error may echo it: any `user:password@` masked, so a mistyped secret never reaches a terminal log. */
export const maskedUrl = (text: string): string => text.replace(/\/\/[^/?#]*@/, '//***@');

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: OptionTable;
  /** Extra help text after the options. */
  notes?: string;
  /** Takes words after the command (an action, an id); otherwise any such word is a usage error. */
  takesArguments?: boolean;
  /**
   * For a command of several actions (`keys list | rotate`): the options only some of them take, by action ('' for
   * none given, or `defaultAction`). An option no action lists is taken by all; one given to an action that does
   * not list it is a usage error, not silently ignored.
   */
  actions?: Readonly<Record<string, readonly string[]>>;
  /** Its arguments may be signing key ids, which may begin with '-' (see kidReadAsOption). */
  takesKids?: boolean;
  /** The action a command without an action word performs (`larder clock` shows). */
  defaultAction?: string;
  run(args: ParsedArgs, io: CommandIo): Promise<number>;
}

/** A mistake in how a command was called: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {}

const unknownOption = (message: string, options: readonly string[]): string => {
  // `larder clock advance -1d`: a negative value, not a flag. Durations and counts are positive.
  if (/^Unknown option '-\d/.test(message))
    return `${message.replace(/\. To specify a positional argument.*$/s, '.')} A negative value is not taken: durations and counts are positive (to move the clock back, \`larder clock set\`).`;
  const given = /^Unknown option '--([^']+)'/.exec(message)?.[1];
  const names = given === undefined ? [] : didYouMean(given, options);
  const first = message.replace(/\. To specify a positional argument.*$/s, '.');
  return names.length === 0
    ? first
    : `${first} Did you mean ${names.map((name) => `--${name}`).join(' or ')}?`;
};

/** A signing key's id as Larder makes them: a JWK SHA-256 thumbprint in base64url, 43 characters. */
const KID = /^[\w-]{43}$/;

type ParseOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/**
 * The word parseArgs read as an unknown option when it has a kid's shape, with the arguments before it: one kid in
 * 64 begins with '-' (`-jA…`), and "Unknown option '-j'" never says that the word was the kid.
 */
const kidReadAsOption = (
  args: string[],
  options: ParseOptions,
): { kid: string; before: string[] } | undefined => {
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  const at = tokens.findIndex((token) => token.kind === 'option' && !Object.hasOwn(options, token.name));
  const word = at === -1 ? undefined : args[tokens[at]!.index];
  if (word === undefined || !KID.test(word)) return undefined;
  const before = tokens.slice(0, at).flatMap((token) => (token.kind === 'positional' ? [token.value] : []));
  return { kid: word, before };
};

/** The placeholders of options whose value is a number (--port PORT, --workers N, --token-ttl SECONDS, --sqlite-cache-mb MIB). */
export const NUMBER_PLACEHOLDERS: ReadonlySet<string> = new Set(['N', 'PORT', 'SECONDS', 'STATUS', 'MIB']);

export const STORE_OPTIONS: OptionTable = {
  db: {
    type: 'string',
    env: 'LARDER_DB',
    default: DEFAULT_SQLITE_PATH,
    placeholder: 'PATH',
    description: 'SQLite database file (the embedded store).',
  },
  'database-url': {
    type: 'string',
    env: 'DATABASE_URL',
    placeholder: 'URL',
    description: 'PostgreSQL connection URL (postgres://user@host/db); used instead of --db.',
  },
  'key-file': {
    type: 'string',
    env: 'LARDER_KEY_FILE',
    placeholder: 'PATH',
    description:
      'File holding the key-encryption key (32+ random characters) that seals signing keys and secrets at rest; or set LARDER_KEY_ENCRYPTION_KEY.',
  },
};

/**
 * A boolean option's environment variable: the usual spellings of on and off, any case. Anything else is a
 * mistake to report, not "off": LARDER_NO_DEMO=on must not build the demo.
 */
const envBoolean = (env: string | undefined, name: string, value: string | undefined): boolean => {
  if (value === undefined) return false;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new UsageError(`${env} (--${name}) must be 1, true, yes or on (or 0, false, no, off), not ${value}.`);
};

/** `a, b or c`. */
const listed = (names: readonly string[]) =>
  names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;

/**
 * A command of several actions refuses a missing or mistyped one before any database or server is asked, with
 * the actions it takes and the one most likely meant. (`larder requests`, whose bare form lists, names a stray
 * word itself.)
 */
const checkAction = (command: Command, word: string | undefined) => {
  const { actions } = command;
  if (actions === undefined || '' in actions) return;
  const names = Object.keys(actions);
  if (word === undefined) {
    if (command.defaultAction === undefined) throw new UsageError(`An action is required: ${listed(names)}.`);
    return;
  }
  if (Object.hasOwn(actions, word)) return;
  const meant = didYouMean(word, names);
  throw new UsageError(
    `Unknown ${command.name} action '${word}': use ${listed(names)}.${meant.length === 0 ? '' : ` Did you mean ${listed(meant)}?`}`,
  );
};

const rejectOtherActionsOptions = (command: Command, word: string | undefined, given: readonly string[]) => {
  const { actions } = command;
  const action = word ?? command.defaultAction ?? '';
  const takes = actions?.[action];
  // `larder requests WORD`: its own usage error, clearer than one about its options.
  if (actions === undefined || takes === undefined) return;
  const specific = new Set(Object.values(actions).flat());
  const wrong = given.find((name) => specific.has(name) && !takes.includes(name));
  if (wrong === undefined) return;
  const takers = Object.keys(actions)
    .filter((other) => actions[other]?.includes(wrong))
    .map((other) => `larder ${command.name}${other === '' ? '' : ` ${other}`}`);
  throw new UsageError(
    `larder ${command.name}${word === undefined ? '' : ` ${word}`} does not take --${wrong} (only ${takers.join(', ')}).`,
  );
};

/**
 * `--port -1` as `--port=-1`, for options whose value is a number: parseArgs calls a value starting with a dash
 * "ambiguous" and asks for `--port=-XYZ`, where the user who typed a negative number should read what the option
 * takes (its own check says so). No option is spelled as a number, so nothing else is meant. Other options keep the
 * refusal: `--db -1` is more likely a forgotten value than a file to create.
 */
const negativeValuesJoined = (command: Command, argv: readonly string[]): string[] => {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    // After `--` every word is an argument.
    if (arg === '--') return [...joined, ...argv.slice(index)];
    const spec = arg.startsWith('--') ? command.options[arg.slice(2)] : undefined;
    const next = argv[index + 1];
    if (
      spec?.type === 'string' &&
      NUMBER_PLACEHOLDERS.has(spec.placeholder ?? '') &&
      /^-\d/.test(next ?? '')
    ) {
      joined.push(`${arg}=${next}`);
      index++;
    } else joined.push(arg);
  }
  return joined;
};

export const parseCommandArgs = (
  command: Command,
  argv: readonly string[],
  io: CommandIo,
): ParsedArgs | 'help' => {
  const options: ParseOptions = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, spec] of Object.entries(command.options)) {
    options[name] = spec.short === undefined ? { type: spec.type } : { type: spec.type, short: spec.short };
  }
  const args = negativeValuesJoined(command, argv);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const read =
      command.takesKids === true && (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
        ? kidReadAsOption(args, options)
        : undefined;
    if (read !== undefined)
      throw new UsageError(
        `'${read.kid}' looks like a key id beginning with '-': put it after --, as in: ${['larder', command.name, ...read.before, '--', read.kid].join(' ')}`,
      );
    throw new UsageError(unknownOption((error as Error).message, Object.keys(options)));
  }
  if (parsed.values['help'] === true) return 'help';
  // A stray word is a mistake (a forgotten --, a value without its flag), never silently ignored.
  if (command.takesArguments !== true && parsed.positionals.length > 0)
    throw new UsageError(
      `Unexpected argument '${parsed.positionals[0]}': larder ${command.name} takes only options (--name value).`,
    );
  checkAction(command, parsed.positionals[0]);
  rejectOtherActionsOptions(command, parsed.positionals[0], Object.keys(parsed.values));
  const strings: Record<string, string | undefined> = {};
  const flags: Record<string, boolean> = {};
  const fromEnv: Record<string, string> = {};
  const envOf: Record<string, string> = {};
  const givenNames = new Set<string>();
  for (const [name, spec] of Object.entries(command.options)) {
    const given = parsed.values[name];
    if (spec.env !== undefined) envOf[name] = spec.env;
    if (given !== undefined) givenNames.add(name);
    // An empty variable counts as unset, as shells and compose files leave them.
    const envValue = spec.env === undefined || io.env[spec.env] === '' ? undefined : io.env[spec.env];
    if (given === undefined && envValue !== undefined && spec.env !== undefined) fromEnv[name] = spec.env;
    if (spec.type === 'boolean') {
      flags[name] = given === true || (given === undefined && envBoolean(spec.env, name, envValue));
    } else {
      if (typeof given === 'string' && given === '') throw new UsageError(`--${name} must not be empty.`);
      strings[name] = typeof given === 'string' ? given : (envValue ?? spec.default);
    }
  }
  return { strings, flags, positionals: parsed.positionals, given: givenNames, fromEnv, envOf };
};

export const renderHelp = (command: Command): string => {
  const rows = Object.entries(command.options).map(([name, spec]) => {
    const flag = `--${name}${spec.type === 'string' ? ` ${spec.placeholder ?? 'VALUE'}` : ''}`;
    const extras = [
      spec.env === undefined ? '' : `env ${spec.env}`,
      spec.default === undefined ? '' : `default ${spec.default}`,
    ].filter((extra) => extra !== '');
    return [`  ${flag}`, `${spec.description}${extras.length > 0 ? ` (${extras.join('; ')})` : ''}`] as const;
  });
  rows.push(['  -h, --help', 'Show this help.']);
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  const lines = rows.map(([flag, text]) => flag.padEnd(width) + text);
  return `${command.summary}\n\nUsage: ${command.usage}\n\nOptions:\n${lines.join('\n')}\n${
    command.notes === undefined ? '' : `\n${command.notes}\n`
  }`;
};

/** A whole number option within bounds, or a UsageError naming the flag (and its variable, if from there). */
export const intOption = (args: ParsedArgs, name: string, min: number, max: number): number => {
  const raw = args.strings[name];
  const value = raw !== undefined && /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new UsageError(
      `${optionLabel(args, name)} must be a whole number from ${min} to ${max}${raw === undefined ? '' : `, not ${raw}`}.`,
    );
  }
  return value;
};

export const requiredOption = (args: ParsedArgs, name: string): string => {
  const value = args.strings[name];
  const env = args.envOf[name];
  if (value === undefined)
    throw new UsageError(`--${name}${env === undefined ? '' : ` (or ${env})`} is required.`);
  return value;
};
