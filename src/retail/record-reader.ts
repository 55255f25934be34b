import type { RecordKind } from '../records/kinds.js';
import { LarderError } from '../shared/errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageSizeOf } from '../shared/limits.js';
import { UUID } from '../shared/schema-helpers.js';
import type { Store, StoredJson, StoredPage } from '../storage/store.js';
import type { PageTokens } from './page-token.js';

/**
 * `?pageSize=`: decimal digits whose value is 1 to MAX_PAGE_SIZE, leading zeros or not (`0100` is 100, as any
 * integer parser reads it); no sign, point, exponent or space, which Number would let through.
 */
const parsePageSize = (raw: string | undefined): number => {
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  const size = pageSizeOf(raw);
  if (size === undefined) {
    throw new LarderError('ERR_QUERY_PARAM', {
      fieldName: 'pageSize',
      message: `pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE} in decimal digits (leading zeros are ignored; no sign, point, exponent or space).`,
    });
  }
  return size;
};

const parseId = (raw: string, fieldName: string): string => {
  if (!UUID.test(raw)) {
    throw new LarderError('ERR_INVALID_ID', { fieldName, message: `${fieldName} must be a UUID.` });
  }
  return raw.toLowerCase();
};

const CLOSE = ']}';

/**
 * Splices the stored JSON of the page into the page envelope: records are never parsed on the read path. The
 * page is written straight into one exactly sized buffer: a concatenated string would be flattened, measured
 * and UTF-8 encoded again on the way out (0.85 ms against 0.24 ms for a 400 KB page). Chunks that come as bytes
 * (each a record, or several already joined with commas) are copied as they are. When the store leaves room
 * around a page's one chunk (SQLite), the envelope is written into that room and the chunk's buffer is the body:
 * no second buffer of the page's size, and no copy of it.
 */
export const pageBody = (
  current: string,
  next: string,
  chunks: readonly StoredJson[],
  room?: StoredPage['room'],
): Uint8Array<ArrayBuffer> => {
  const head = `{"currentPageToken":${JSON.stringify(current)},"nextPageToken":${JSON.stringify(next)},"data":[`;
  const headBytes = Buffer.byteLength(head);
  const only = chunks.length === 1 ? chunks[0] : undefined;
  if (
    room !== undefined &&
    only instanceof Uint8Array &&
    headBytes <= room.before &&
    CLOSE.length <= room.after
  ) {
    const start = only.byteOffset - headBytes;
    const body = Buffer.from(only.buffer, start, headBytes + only.byteLength + CLOSE.length);
    body.write(head, 0);
    body.write(CLOSE, headBytes + only.byteLength);
    // Buffer.from over an ArrayBuffer keeps its type; Hono's body type asks for a plain ArrayBuffer.
    return body as Uint8Array<ArrayBuffer>;
  }
  let size = headBytes + CLOSE.length + Math.max(chunks.length - 1, 0);
  for (const json of chunks) size += typeof json === 'string' ? Buffer.byteLength(json) : json.byteLength;
  const body = Buffer.allocUnsafe(size);
  let offset = body.write(head);
  for (let i = 0; i < chunks.length; i++) {
    if (i > 0) body[offset++] = 0x2c; // ,
    const json = chunks[i]!;
    if (typeof json === 'string') offset += body.write(json, offset);
    else {
      body.set(json, offset);
      offset += json.byteLength;
    }
  }
  body.write(CLOSE, offset);
  // allocUnsafe never hands out a SharedArrayBuffer; Hono's body type asks for a plain ArrayBuffer.
  return body as Uint8Array<ArrayBuffer>;
};

/** One search page as asked over HTTP: the body, `?pageToken=` and `?pageSize=` as they came. */
export interface PageRequest {
  body: unknown;
  pageToken: string;
  pageSize: string | undefined;
}

/**
 * Reading records as the retail API serves them: one search page or one record by id at a location. The
 * retail routes (after authorization) and the sandbox console's admin routes share it, so both answer alike.
 */
export interface RecordReader {
  /** The page body, spliced from the stored JSON, and whether a next page exists. */
  search(
    kind: RecordKind,
    locationId: string,
    request: PageRequest,
  ): Promise<{ body: Uint8Array<ArrayBuffer>; hasNextPage: boolean }>;
  /** The stored JSON of one record; 400 when `rawId` is no UUID, 404 when the location has no such record. */
  get(kind: RecordKind, locationId: string, rawId: string): Promise<StoredJson>;
}

/** Paging parameters: sent in the body, where the filter goes, they are told where they belong. */
const QUERY_ONLY = ['pageToken', 'pageSize'] as const;

export const createRecordReader = (store: Store, pageTokens: PageTokens): RecordReader => ({
  search: async (kind, locationId, { body, pageToken, pageSize: rawPageSize }) => {
    for (const name of QUERY_ONLY)
      if (typeof body === 'object' && body !== null && Object.hasOwn(body, name))
        throw new LarderError('ERR_VALIDATION', {
          fieldName: name,
          message: `${name} goes in the query string (POST /v1/${kind.name}/search?${name}=…), not in the body.`,
        });
    const filter = kind.parseFilter(body);
    const pageSize = parsePageSize(rawPageSize);
    const binding = `${kind.name}\n${locationId}\n${filter.binding}\n${pageSize}`;
    const after = pageToken === '' ? undefined : pageTokens.decode(binding, pageToken);
    // The store says whether records follow the page, so no empty page carries a next token.
    const page = await store.records.page(kind, {
      locationId,
      ...filter,
      limit: pageSize,
      ...(after === undefined ? {} : { after }),
    });
    const next = page.more && page.last !== undefined ? pageTokens.encode(binding, page.last) : '';
    return { body: pageBody(pageToken, next, page.chunks, page.room), hasNextPage: next !== '' };
  },
  get: async (kind, locationId, rawId) => {
    const id = parseId(rawId, kind.idParam);
    const body = await store.records.get(kind, locationId, id);
    if (body === undefined) {
      throw new LarderError('ERR_NOT_FOUND', {
        message: `No ${kind.label} ${id} at location ${locationId}.`,
      });
    }
    return body;
  },
});
