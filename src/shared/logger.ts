import { createRequire } from 'node:module';
import { type DestinationStream, type LevelWithSilent, pino } from 'pino';
import sonicBoom from 'sonic-boom';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';

export type LogFields = Readonly<Record<string, unknown>>;

/** Structured logging. Callers never pass secrets (client secrets, tokens, private keys) in `fields`. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /**
   * Writes out what is buffered at once (before process.exit where nothing may wait: a crash). With a line still
   * being written (sonic-boom's asynchronous write), the later lines may come out first: prefer settle.
   */
  flush?(): void;
  /** Resolves once every line so far is written, in order, or after `timeoutMs` (a reader that stopped reading). */
  settle?(timeoutMs: number): Promise<void>;
  /** Whether lines of `level` are written (absent: all are), so work done only to log them can be skipped. */
  enabled?(level: LogLevel): boolean;
}

export interface LineSink {
  write(line: string): unknown;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Log lines held while stderr is not being read; beyond it lines are dropped rather than memory grown. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Where lines go (default stderr, written asynchronously: a busy server does not wait on the pipe). */
  sink?: LineSink;
  clock?: Clock;
  /** Colours in the pretty format (a terminal). */
  colorize?: boolean;
}

/**
 * Standard error, written asynchronously. Built here rather than by `pino.destination`, whose sonic-boom 4 retried
 * a synchronous flush that failed for any reason every 100 ms, forever: a stop or crash whose log reader was gone
 * (`larder serve 2>&1 | head`, a dead log shipper) never exited. Lines that cannot be written (the reader gone, a
 * full disk) are lost, and nothing else: an unheard 'error' would crash the server.
 */
const stderrDestination = () => {
  const stream = new sonicBoom.SonicBoom({ fd: 2, sync: false, maxLength: MAX_BUFFERED_BYTES });
  let readerGone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') readerGone = true;
  });
  return {
    write: (line: string) => {
      if (!readerGone) stream.write(line);
    },
    flushSync: () => {
      if (!readerGone) stream.flushSync();
    },
    settle: (timeoutMs: number) =>
      new Promise<void>((resolve) => {
        if (readerGone) return resolve();
        const bound = setTimeout(resolve, timeoutMs);
        // sonic-boom's flush waits for the write in flight, then writes the rest after it; its fsync fails on a
        // pipe or terminal, which changes nothing: the lines were written.
        stream.flush(() => {
          clearTimeout(bound);
          resolve();
        });
      }),
  };
};

/** pino-pretty loaded only when asked for: JSON, the default, never pays for it. */
const prettyDestination = (sink: LineSink, colorize: boolean): DestinationStream => {
  const require = createRequire(import.meta.url);
  const { prettyFactory } = require('pino-pretty') as {
    prettyFactory: (options: Record<string, unknown>) => (line: string) => string;
  };
  const prettify = prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return { write: (line: string) => sink.write(prettify(line)) };
};

/**
 * The process's logger: pino, one JSON object per line (time as ISO from the injected clock, level as its name,
 * the process id so lines of `--workers` can be told apart), or pino-pretty's human lines. Error values under
 * `error` or `err` keep their message and stack.
 */
export const createLogger = (options: LoggerOptions = {}): Logger => {
  const { level = 'info', format = 'json', sink, clock = systemClock } = options;
  const stderr = sink === undefined ? stderrDestination() : undefined;
  const out: LineSink = sink ?? stderr!;
  const destination =
    format === 'pretty'
      ? prettyDestination(out, options.colorize === true)
      : ({ write: (line: string) => out.write(line) } satisfies DestinationStream);
  const base = pino(
    {
      level: level as LevelWithSilent,
      base: { pid: process.pid },
      timestamp: () => `,"time":"${new Date(clock.now()).toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { error: pino.stdSerializers.err, err: pino.stdSerializers.err },
    },
    destination,
  );
  return {
    debug: (msg, fields) => base.debug(fields ?? {}, msg),
    info: (msg, fields) => base.info(fields ?? {}, msg),
    warn: (msg, fields) => base.warn(fields ?? {}, msg),
    error: (msg, fields) => base.error(fields ?? {}, msg),
    enabled: (at) => base.isLevelEnabled(at),
    flush: () => {
      try {
        stderr?.flushSync();
      } catch {
        // A pipe that is full or gone: the lines are lost either way, and exiting must not fail.
      }
    },
    settle: async (timeoutMs) => {
      try {
        await stderr?.settle(timeoutMs);
      } catch {
        // A stream already destroyed: nothing more will be written.
      }
    },
  };
};

/** One JSON object per line, so log shippers need no parser configuration. */
export const createJsonLogger = (sink?: LineSink, clock: Clock = systemClock): Logger =>
  createLogger({ ...(sink === undefined ? {} : { sink }), clock });

const ignore = () => {};
export const silentLogger: Logger = {
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: ignore,
  enabled: () => false,
};
