import { createHmac, timingSafeEqual } from 'node:crypto';
import { LarderError } from '../shared/errors.js';
import type { Cursor } from '../storage/store.js';

/**
 * Opaque, tamper-proof page tokens. The MAC covers the keyset position and the search it belongs to (operation,
 * location, canonical filter, page size), so a token is accepted only by the search that issued it, on any
 * instance sharing the database's secret. Tokens do not expire: a keyset position stays meaningful.
 */
export interface PageTokens {
  encode(binding: string, cursor: Cursor): string;
  /** Throws ERR_PAGE_TOKEN for anything it did not issue for this binding. */
  decode(binding: string, token: string): Cursor;
}

const MAC_LENGTH = 16;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,200}\.[A-Za-z0-9_-]{22}$/;

const invalid = () =>
  new LarderError('ERR_PAGE_TOKEN', {
    fieldName: 'pageToken',
    message:
      'pageToken is not valid for this search: a page token works only for the search that issued it (the same location, body and pageSize); send the previous page’s nextPageToken unchanged, with everything else as before.',
  });

export const createPageTokens = (secret: string): PageTokens => {
  const mac = (binding: string, payload: string) =>
    createHmac('sha256', secret)
      .update(binding)
      .update('\n')
      .update(payload)
      .digest()
      .subarray(0, MAC_LENGTH);

  return {
    encode: (binding, cursor) => {
      const payload = Buffer.from(`${cursor.modifiedAt}:${cursor.id}`).toString('base64url');
      return `${payload}.${mac(binding, payload).toString('base64url')}`;
    },
    decode: (binding, token) => {
      if (!TOKEN_SHAPE.test(token)) throw invalid();
      const dot = token.indexOf('.');
      const payload = token.slice(0, dot);
      const given = Buffer.from(token.slice(dot + 1), 'base64url');
      if (given.length !== MAC_LENGTH || !timingSafeEqual(given, mac(binding, payload))) throw invalid();
      const text = Buffer.from(payload, 'base64url').toString();
      const colon = text.indexOf(':');
      const modifiedAt = Number(text.slice(0, colon));
      if (colon < 1 || !Number.isSafeInteger(modifiedAt)) throw invalid();
      return { modifiedAt, id: text.slice(colon + 1) };
    },
  };
};
