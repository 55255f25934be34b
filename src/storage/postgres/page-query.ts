import pg from 'pg';
import type { StoredPage } from '../store.js';

/** Bytes kept free before a page's records for the envelope's head (two page tokens and some 50 bytes). */
export const PAGE_HEADROOM = 512;
/** Room after the records for the envelope's `]}`. */
const PAGE_TAIL = 2;
const COMMA = 0x2c;
/**
 * The most a page's buffer starts at, whatever earlier pages weighed (a shape's hint is shared by every location):
 * beyond it a page grows as its records come. A 100-order page of 2–3 KB orders fits.
 */
const MAX_FIRST_BYTES = 384 * 1024;

/** What the parser hands a page query instead of a DataRow message: the row's bytes in its reused buffer. */
export interface RowSink {
  appendRow(bytes: Buffer, offset: number): void;
}

interface RowDescription {
  fields: readonly { name: string }[];
}

/**
 * One keyset page read straight into the buffer it is served from. A query of `modifiedAt`, `id` and `json`
 * columns, limited to one row more than the page (that row says whether more follow): the parser (raw-rows.ts)
 * hands it each DataRow's bytes, and it copies the `json` column after the previous record's comma, leaving room
 * before the first for the envelope's head. node-postgres would make a row object, a fields array and a Buffer per
 * column for every row, only for the page to copy the bodies once more into its response: on a 100-record page
 * that garbage was an eighth of the server's CPU (garbage collection) and the copies and objects another tenth.
 * Only the last record's keyset position is decoded, from a copy of its bytes kept aside. It pays with the serving
 * process's fixed heap growing factor (server/heap-growth.ts): without it, these pages' buffers outside the heap
 * set off a mark-compact every few pages and made pages slower (bench/results/2026-11-26-postgres-page-query-dropped).
 *
 * Subclasses pg's Query (the documented Submittable), so preparing named statements, errors, timeouts and the
 * pool's callback stay node-postgres's own; only rows and the result differ.
 */
export class PageQuery extends pg.Query implements RowSink {
  readonly #limit: number;
  readonly #sizeHint: { bytesPerRow: number };
  #body: Buffer;
  #end = PAGE_HEADROOM;
  #rows = 0;
  #columns: { modifiedAt: number; id: number; json: number } | undefined;
  /** The latest record's `modifiedAt` and `id` bytes: only the page's last is ever decoded. */
  #modifiedAt = Buffer.allocUnsafe(24);
  #modifiedAtLength = 0;
  #id = Buffer.allocUnsafe(64);
  #idLength = 0;
  #failure: Error | undefined;

  /**
   * `sizeHint` is shared by every page of one statement shape: the buffer starts at the size its earlier pages
   * needed, so a page grows (a copy) only when its records are larger than those before.
   */
  constructor(config: pg.QueryConfig, limit: number, sizeHint: { bytesPerRow: number }) {
    super(config);
    this.#limit = limit;
    this.#sizeHint = sizeHint;
    this.#body = Buffer.allocUnsafe(
      Math.min(PAGE_HEADROOM + limit * sizeHint.bytesPerRow + PAGE_TAIL, MAX_FIRST_BYTES),
    );
  }

  handleRowDescription(message: RowDescription): void {
    const names = message.fields.map((field) => field.name);
    const columns = {
      modifiedAt: names.indexOf('modifiedAt'),
      id: names.indexOf('id'),
      json: names.indexOf('json'),
    };
    if (columns.modifiedAt < 0 || columns.id < 0 || columns.json < 0)
      this.#failure = new Error(
        `a page query needs modifiedAt, id and json columns, got ${names.join(', ')}`,
      );
    this.#columns = columns;
  }

  appendRow(bytes: Buffer, offset: number): void {
    const row = this.#rows++;
    const columns = this.#columns;
    // The row past the page only says that more follow.
    if (row >= this.#limit || columns === undefined || this.#failure !== undefined) return;
    const count = bytes.readInt16BE(offset);
    let at = offset + 2;
    for (let column = 0; column < count; column++) {
      const size = bytes.readInt32BE(at);
      at += 4;
      if (size < 0) {
        this.#failure = new Error('a page query row has a NULL column');
        return;
      }
      if (column === columns.json) this.#append(bytes, at, size, row > 0);
      else if (column === columns.id) {
        if (size > this.#id.length) this.#id = Buffer.allocUnsafe(size);
        bytes.copy(this.#id, 0, at, at + size);
        this.#idLength = size;
      } else if (column === columns.modifiedAt) {
        // bigint as text: at most 20 characters.
        if (size > this.#modifiedAt.length) {
          this.#failure = new Error('a page query row has no bigint modifiedAt');
          return;
        }
        bytes.copy(this.#modifiedAt, 0, at, at + size);
        this.#modifiedAtLength = size;
      }
      at += size;
    }
  }

  #append(bytes: Buffer, at: number, size: number, comma: boolean): void {
    const needed = this.#end + (comma ? 1 : 0) + size + PAGE_TAIL;
    if (needed > this.#body.length) {
      const body = Buffer.allocUnsafe(Math.max(needed, Math.ceil(this.#body.length * 1.5)));
      this.#body.copy(body, 0, 0, this.#end);
      this.#body = body;
    }
    if (comma) this.#body[this.#end++] = COMMA;
    bytes.copy(this.#body, this.#end, at, at + size);
    this.#end += size;
  }

  handleDataRow(): void {}

  handleReadyForQuery(): void {
    const callback = (this as unknown as { callback?: (error: Error | null, page?: StoredPage) => void })
      .callback;
    if (this.#failure !== undefined) {
      callback?.(this.#failure);
      return;
    }
    callback?.(null, this.page());
  }

  /** The page as read (after the query completed). */
  page(): StoredPage {
    const count = Math.min(this.#rows, this.#limit);
    if (count === 0) return { chunks: [], count: 0, last: undefined, more: false };
    const bytes = this.#end - PAGE_HEADROOM;
    // Follows the latest pages, falling slowly after a page of larger records.
    this.#sizeHint.bytesPerRow = Math.max(
      Math.ceil(bytes / count) + 1,
      Math.floor(this.#sizeHint.bytesPerRow * 0.875),
    );
    return {
      chunks: [this.#body.subarray(PAGE_HEADROOM, this.#end)],
      count,
      last: {
        modifiedAt: Number(this.#modifiedAt.toString('latin1', 0, this.#modifiedAtLength)),
        id: this.#id.toString('latin1', 0, this.#idLength),
      },
      more: this.#rows > this.#limit,
      room: { before: PAGE_HEADROOM, after: this.#body.length - this.#end },
    };
  }
}
