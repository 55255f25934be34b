import type { Clock } from './clock.js';
import { systemClock } from './clock.js';

export type LogFields = Readonly<Record<string, unknown>>;

/** Structured logging. Callers never pass secrets (client secrets, tokens, private keys) in `fields`. */
export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export interface LineSink {
  write(line: string): unknown;
}

/** One JSON object per line, so log shippers need no parser configuration. */
export const createJsonLogger = (sink: LineSink = process.stderr, clock: Clock = systemClock): Logger => {
  const write = (level: string, msg: string, fields?: LogFields): void => {
    const entry = { time: new Date(clock.now()).toISOString(), level, msg, ...fields };
    sink.write(`${JSON.stringify(entry, errorsAsObjects)}\n`);
  };
  return {
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
  };
};

// Error's own properties are not enumerable, so JSON.stringify would print `{}`.
const errorsAsObjects = (_key: string, value: unknown): unknown =>
  value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
