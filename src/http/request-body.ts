import type { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { LarderError } from '../shared/errors.js';
import { MAX_BODY_BYTES } from '../shared/limits.js';
import { mayHoldNul, NUL_MESSAGE, nulFieldOf } from '../shared/nul-field.js';
import { decodeUtf8 } from '../shared/utf8.js';
import { requestHeader } from './request-header.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

const tooLarge = () => new LarderError('ERR_BODY_TOO_LARGE');
const missingBody = (hint: string | undefined) =>
  new LarderError('ERR_BODY_NOT_JSON', {
    message: `A JSON object body is required${hint === undefined ? '' : `; ${hint}`}.`,
  });

/** What a search told its body is missing: every filter is optional, but the object is not. */
export const SEARCH_BODY_HINT = 'send {} to search without filters';

/** JSON is UTF-8 (RFC 8259): other bytes are a 400, not U+FFFD searched for or stored as if sent. */
const bodyText = (chunks: readonly Uint8Array[]): string => {
  const decoded = decodeUtf8(Buffer.concat(chunks));
  if ('text' in decoded) return decoded.text;
  throw new LarderError('ERR_BODY_NOT_JSON', {
    message:
      decoded.byte === undefined
        ? 'The request body ends in the middle of a UTF-8 character: send it as UTF-8.'
        : `The request body is not UTF-8 (byte 0x${decoded.byte.toString(16).padStart(2, '0')} at offset ${decoded.badAt}): send it as UTF-8.`,
  });
};

/** RFC 9110 §8.4: the body as sent. Larder decodes no content coding; a compressed body would read as bad UTF-8. */
const IDENTITY = /^\s*identity\s*$/i;
/** RFC 9110 §15.5.16: 415, naming the codings that would do in Accept-Encoding. */
const unsupportedEncoding = (encoding: string) =>
  new LarderError('ERR_UNSUPPORTED_MEDIA_TYPE', {
    message: `Content-Encoding ${encoding.slice(0, 40)} is not supported: send the body uncompressed.`,
    headers: { 'Accept-Encoding': 'identity' },
  });

const readLimited = async (request: Request, maxBytes: number): Promise<string> => {
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return bodyText(chunks);
};

const cutOff = () => new LarderError('ERR_BODY_NOT_JSON', { message: 'The request body was cut off.' });

/**
 * The same from Node's request stream: a fetch Request (web stream, abort signal) costs more than a small search
 * body. Past the limit the rest is drained, not the socket destroyed, so the 413 still reaches the client.
 */
const readIncoming = (incoming: IncomingMessage, maxBytes: number): Promise<string> =>
  new Promise((resolve, reject) => {
    // Gone before the handler came to read it (a client that timed out while its request waited): its 'close'
    // has fired already and its 'end' never will, so without this the handler would wait for the deadline.
    if (incoming.destroyed && !incoming.readableEnded) {
      reject(cutOff());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: LarderError | undefined) => {
      incoming.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onClose);
      if (error !== undefined) reject(error);
      else
        try {
          resolve(bodyText(chunks));
        } catch (notText) {
          reject(notText);
        }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= maxBytes) chunks.push(chunk);
      else {
        settle(tooLarge());
        incoming.resume();
      }
    };
    const onEnd = () => settle(undefined);
    // A client that goes away mid-body: nobody reads the answer, but the handler must not wait forever.
    const onClose = () => settle(cutOff());
    incoming.on('data', onData).once('end', onEnd).once('close', onClose).once('error', onClose);
  });

/** Node's request behind a Hono context, when served by node:http (tests may pass a stand-in without a stream). */
const nodeIncoming = (c: Context): IncomingMessage | undefined => {
  const env = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  return env?.rawHeaders !== undefined ? env : undefined;
};

/**
 * Reads the whole body as UTF-8 text, refusing it with ERR_BODY_TOO_LARGE (413) past `maxBytes`: on the declared
 * length before a byte is read, else as soon as the bytes read pass it. The one body reader of every endpoint.
 */
export const readBodyText = (c: Context, maxBytes = MAX_BODY_BYTES): Promise<string> => {
  const encoding = requestHeader(c, 'content-encoding');
  if (encoding !== undefined && !IDENTITY.test(encoding))
    return Promise.reject(unsupportedEncoding(encoding));
  const declared = requestHeader(c, 'content-length');
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(tooLarge());
  const incoming = nodeIncoming(c);
  return incoming !== undefined ? readIncoming(incoming, maxBytes) : readLimited(c.req.raw, maxBytes);
};

/**
 * Reads a required JSON object body: 413 over the limit, 415 for another content type, 400 when it is missing
 * (told `missingHint`), not JSON, or not an object. Checks the declared length before reading a byte.
 */
export const readJsonObject = async (
  c: Context,
  { missingHint }: { missingHint?: string } = {},
): Promise<Record<string, unknown>> => {
  const declared = requestHeader(c, 'content-length');
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  const type = requestHeader(c, 'content-type');
  // A Node request always has a body stream; an empty one reads as '' and is refused below like a missing one.
  if (declared === '0' || (nodeIncoming(c) === undefined && c.req.raw.body === null))
    throw missingBody(missingHint);
  if (type === undefined || !JSON_TYPE.test(type)) {
    throw new LarderError('ERR_UNSUPPORTED_MEDIA_TYPE', {
      message: `The request body must be a JSON object sent as Content-Type: application/json${
        type === undefined ? '' : `, not ${type}`
      }.`,
    });
  }
  const text = await readBodyText(c);
  if (text.trim() === '') throw missingBody(missingHint);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LarderError('ERR_BODY_NOT_JSON', {
      message: 'The request body is not valid JSON.',
      developerMessage: error instanceof Error ? error.message : String(error),
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LarderError('ERR_BODY_NOT_JSON', {
      message: `The request body must be a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.`,
    });
  }
  const nulField = mayHoldNul(text) ? nulFieldOf(value) : undefined;
  if (nulField !== undefined)
    throw new LarderError('ERR_VALIDATION', { fieldName: nulField, message: `${nulField} ${NUL_MESSAGE}.` });
  return value as Record<string, unknown>;
};
