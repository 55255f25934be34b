import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';

/** One record's text and the line it starts on. */
export interface RawRecord {
  line: number;
  text: string;
}

export class RecordSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Splits a JSON array or NDJSON stream into top-level values without holding the whole file: it tracks string
 * and nesting state across chunks and hands each complete element to JSON.parse separately. The format is
 * detected from the first non-blank character (`[` = array; anything else = one value per line).
 */
export async function* readRecords(input: Readable): AsyncGenerator<RawRecord> {
  let mode: 'unknown' | 'array' | 'lines' | 'done' = 'unknown';
  let line = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  let startLine = 0;
  let pending = '';

  for await (const chunk of input.setEncoding('utf8') as AsyncIterable<string>) {
    const text = pending + chunk;
    // Inside strings (most of the text) the scan jumps to the next character that matters with native indexOf;
    // the next backslash and newline are remembered, so each is searched for once per occurrence.
    const next = (code: number, from: number) => {
      const at = text.indexOf(String.fromCharCode(code), from);
      return at === -1 ? text.length : at;
    };
    let nextBackslash = -1;
    let nextNewline = -1;
    // `pending` was scanned already; only the new chunk is.
    for (let i = pending.length; i < text.length; i++) {
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
          if (ch === 44 /* , */) continue;
          if (ch === 93 /* ] */) {
            mode = 'done';
            continue;
          }
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
          yield { line: startLine, text: text.slice(start, i + 1) };
          start = -1;
        }
      }
    }
    // Keep the unfinished element for the next chunk.
    if (start === -1) pending = '';
    else {
      pending = text.slice(start);
      start = 0;
    }
  }
  if (start !== -1 || inString)
    throw new RecordSyntaxError(startLine || line, 'the file ends inside a record');
  if (mode === 'array') throw new RecordSyntaxError(line, 'the file ends before the closing ]');
}

export const openInput = (path: string): Readable =>
  path === '-' ? process.stdin : createReadStream(path, { highWaterMark: 1 << 20 });
