import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { MAX_RECORD_BYTES } from '../shared/limits.js';
import { strictUtf8, utf8FaultAt } from '../shared/utf8.js';

/** One record's text and the line it starts on. */
export interface RawRecord {
  line: number;
  text: string;
}

/** A problem of the input rather than of one record's fields, at its line (0: the input as a whole). */
export class RecordSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a file that cannot be read at all is said to be, by the system's error code. */
const UNREADABLE: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory, not a file',
  EACCES: 'cannot be read: permission denied',
  EPERM: 'cannot be read: permission denied',
};

/**
 * The input's chunks. Failing to open or read it (a directory, no permission) is a problem of the whole input,
 * at line 0, like its other problems: a raw EISDIR would say neither which file nor that nothing was imported.
 */
async function* chunksOf(input: Readable): AsyncGenerator<Buffer | string> {
  try {
    yield* input as AsyncIterable<Buffer | string>;
  } catch (error) {
    const { code, syscall, message } = error as NodeJS.ErrnoException;
    if (typeof syscall !== 'string') throw error;
    throw new RecordSyntaxError(0, UNREADABLE[code ?? ''] ?? `cannot be read (${message})`);
  }
}

/**
 * Splits a JSON array or NDJSON stream into top-level values without holding the whole file: it tracks string
 * and nesting state across chunks and hands each complete element to JSON.parse separately. The format is
 * detected from the first non-blank character (`[` = array; anything else = one value per line). A UTF-8
 * byte-order mark at the very start of the file is skipped. In an array, elements must be separated by exactly
 * one comma: `[,{}]`, `[{},,{}]` and `[{},]` are syntax errors, as they are for JSON.parse. A record longer
 * than `maxRecordBytes` (in UTF-8) is a syntax error at its first line, raised as soon as it is that long: one
 * unending line must not hold the whole file in memory.
 *
 * Each chunk is scanned once, by itself: the scan's state (nesting, string, escape) carries over, and a record
 * spanning chunks is kept as its pieces, joined once when it ends. Appending each chunk to the unfinished record
 * and scanning that copied the record so far for every chunk: quadratic in its size.
 */
export async function* readRecords(
  input: Readable,
  noun = 'file',
  maxRecordBytes = MAX_RECORD_BYTES,
): AsyncGenerator<RawRecord> {
  let mode: 'unknown' | 'array' | 'lines' | 'done' = 'unknown';
  let line = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  let startLine = 0;
  /** The unfinished record's text in earlier chunks, and its length in UTF-8 bytes. */
  let held: string[] = [];
  let heldBytes = 0;
  let atFileStart = true;
  /** Between an array's elements: what may come next. */
  let expect: 'first' | 'element' | 'comma' = 'first';

  const decoder = strictUtf8();
  const notUtf8 = (at: number, byte: number | undefined) =>
    new RecordSyntaxError(
      at,
      byte === undefined
        ? `the ${noun} ends in the middle of a UTF-8 character`
        : `the ${noun} is not UTF-8: byte 0x${byte.toString(16).padStart(2, '0')} here; save it as UTF-8`,
    );
  const tooLong = () =>
    new RecordSyntaxError(
      startLine,
      `this record is longer than ${describeBytes(maxRecordBytes)}, the most one record may be`,
    );
  /** Whether a piece takes the record past the limit: n UTF-16 units are at most 3n bytes, so few are measured. */
  const overLimit = (piece: string) =>
    heldBytes + piece.length * 3 > maxRecordBytes && heldBytes + Buffer.byteLength(piece) > maxRecordBytes;

  /** A chunk of bytes as text; `line` is the line the chunk starts on. Strings (a stream of text) pass as they are. */
  const decode = (chunk: Buffer | string): string => {
    if (typeof chunk === 'string') return chunk;
    try {
      return decoder.decode(chunk, { stream: true });
    } catch {
      // Up to 3 leading continuation bytes end a character begun in the previous chunk: a fresh decoder skips them.
      let from = 0;
      while (from < 3 && ((chunk[from] ?? 0) & 0xc0) === 0x80) from++;
      const fault = from + utf8FaultAt(chunk.subarray(from));
      const at = fault === chunk.length ? 0 : fault;
      throw notUtf8(line + chunk.subarray(0, at).filter((byte) => byte === 10).length, chunk[at]);
    }
  };

  for await (const chunk of chunksOf(input)) {
    const text = decode(chunk);
    // Inside strings (most of the text) the scan jumps to the next character that matters with native indexOf;
    // the next backslash and newline are remembered, so each is searched for once per occurrence.
    const next = (code: number, from: number) => {
      const at = text.indexOf(String.fromCharCode(code), from);
      return at === -1 ? text.length : at;
    };
    let nextBackslash = -1;
    let nextNewline = -1;
    let from = 0;
    if (atFileStart && text.length > 0) {
      atFileStart = false;
      if (text.charCodeAt(0) === 0xfeff) from = 1;
    }
    for (let i = from; i < text.length; i++) {
      if (inString && !escaped) {
        if (nextBackslash < i) nextBackslash = next(92, i);
        if (nextNewline < i) nextNewline = next(10, i);
        i = Math.min(next(34, i), nextBackslash, nextNewline);
        if (i === text.length) break;
      }
      const ch = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === 92 /* \ */) escaped = true;
        else if (ch === 34 /* " */) inString = false;
        else if (ch === 10)
          throw new RecordSyntaxError(line, 'a string is not closed before the end of the line');
        continue;
      }
      if (ch === 10) line++;
      if (ch === 32 || ch === 10 || ch === 13 || ch === 9) continue;
      if (mode === 'done') throw new RecordSyntaxError(line, 'unexpected text after the closing ]');
      if (mode === 'unknown') {
        mode = ch === 91 /* [ */ ? 'array' : 'lines';
        if (mode === 'array') continue;
      }
      if (depth === 0 && start === -1) {
        if (mode === 'array') {
          if (ch === 44 /* , */) {
            if (expect !== 'comma')
              throw new RecordSyntaxError(
                line,
                expect === 'first'
                  ? 'expected a record or ] after [, found ","'
                  : 'expected a record after ",", found another ","',
              );
            expect = 'element';
            continue;
          }
          if (ch === 93 /* ] */) {
            if (expect === 'element')
              throw new RecordSyntaxError(line, 'expected a record after ",", found "]" (a trailing comma)');
            mode = 'done';
            continue;
          }
          if (expect === 'comma')
            throw new RecordSyntaxError(
              line,
              `expected "," or ] after a record, found ${JSON.stringify(text[i])}`,
            );
        }
        if (ch !== 123 /* { */) {
          throw new RecordSyntaxError(line, `expected a JSON object, found ${JSON.stringify(text[i])}`);
        }
        start = i;
        startLine = line;
      }
      if (ch === 34) inString = true;
      else if (ch === 123 || ch === 91) depth++;
      else if (ch === 125 || ch === 93) {
        depth--;
        if (depth === 0) {
          const piece = text.slice(start, i + 1);
          if (overLimit(piece)) throw tooLong();
          if (held.length === 0) yield { line: startLine, text: piece };
          else {
            held.push(piece);
            const whole = held.join('');
            held = [];
            heldBytes = 0;
            yield { line: startLine, text: whole };
          }
          start = -1;
          expect = 'comma';
        }
      }
    }
    // Keep the unfinished element for the next chunk.
    if (start !== -1) {
      const piece = text.slice(start);
      if (overLimit(piece)) throw tooLong();
      held.push(piece);
      heldBytes += Buffer.byteLength(piece);
      start = 0;
    }
  }
  try {
    decoder.decode();
  } catch {
    throw notUtf8(line, undefined);
  }
  if (start !== -1 || inString)
    throw new RecordSyntaxError(startLine || line, `the ${noun} ends inside a record`);
  if (mode === 'array') throw new RecordSyntaxError(line, `the ${noun} ends before the closing ]`);
}

/** 64 MiB, 1024 bytes. */
const describeBytes = (bytes: number): string =>
  bytes % (1 << 20) === 0 ? `${bytes / (1 << 20)} MiB` : `${bytes} bytes`;

export const openInput = (path: string): Readable =>
  path === '-' ? process.stdin : createReadStream(path, { highWaterMark: 1 << 20 });

/** A field path as the validator reports it (see toFieldPath): `items[3].quantity`. */
const childPath = (path: string, key: string | number): string =>
  typeof key === 'number' || /^\d+$/.test(key) ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;

/**
 * The line a field appears on in a record's text (valid JSON, as JSON.parse accepted it), for a problem's
 * field path: `items[3].quantity` → the line of its key. A field that is missing points at the deepest part of
 * the path that is there (`items[3]` for a missing `items[3].sku`); anything else (`(record)`) at the record's
 * first line. Only called for records with problems, so it rescans the text rather than making the reader keep
 * positions for every record.
 */
export const lineOfField = (text: string, startLine: number, fieldName: string): number => {
  let i = 0;
  let line = startLine;
  let best = startLine;
  const blank = () => {
    for (; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 10) line++;
      else if (ch !== 32 && ch !== 9 && ch !== 13) return;
    }
  };
  // Valid JSON strings hold no raw newline, so lines change only between tokens.
  const string = (): string => {
    const from = i++;
    while (text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
    i++;
    return JSON.parse(text.slice(from, i)) as string;
  };
  const leads = (path: string) =>
    path === '' || fieldName === path || fieldName.startsWith(`${path}.`) || fieldName.startsWith(`${path}[`);
  /**
   * Steps over the value at `i` without descending into it: a loop, not recursion, so a record nested
   * thousands deep (valid JSON, refused by the schema) cannot overflow the stack here.
   */
  const skip = (): void => {
    let depth = 0;
    do {
      const ch = text.charCodeAt(i);
      if (ch === 34) {
        i++;
        while (text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
      } else if (ch === 123 || ch === 91) depth++;
      else if (ch === 125 || ch === 93) depth--;
      else if (ch === 10) line++;
      else if (depth === 0) {
        while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
        return;
      }
      i++;
    } while (depth > 0 && i < text.length);
  };
  /**
   * Scans the value at `i`; true once the field is found. `at` is the line of its key, or of the value. It
   * descends only along the field's path, so its depth is bounded by the field name's.
   */
  const value = (path: string, at: number): boolean => {
    if (!leads(path)) {
      skip();
      return false;
    }
    best = at;
    if (path === fieldName) return true;
    const ch = text.charCodeAt(i);
    if (ch !== 123 && ch !== 91) {
      skip();
      return false;
    }
    const close = ch === 123 ? 125 : 93;
    i++;
    blank();
    for (let index = 0; text.charCodeAt(i) !== close; index++) {
      let key: string | number = index;
      const keyLine = line;
      if (close === 125) {
        key = string();
        blank();
        i++; // :
        blank();
      }
      if (value(childPath(path, key), keyLine)) return true;
      blank();
      if (text.charCodeAt(i) === 44) {
        i++;
        blank();
      }
    }
    i++;
    return false;
  };
  blank();
  value('', startLine);
  return best;
};
