import pg from 'pg';
import { type BackendMessage, DataRowMessage } from 'pg-protocol/dist/messages.js';
import { type MessageCallback, Parser } from 'pg-protocol/dist/parser.js';
import { PageQuery, type RowSink } from './page-query.js';

/**
 * node-postgres with row columns handed out as the bytes PostgreSQL sent, undecoded.
 *
 * node-postgres always decodes every column into a string, and the read path only encodes the record bodies back
 * into bytes for the response. On a 100-order page that was a quarter of the server's CPU, more where a body holds
 * any non-ASCII character (V8 encodes such a string 12× slower). Its parser and connection offer no hook, so this
 * client parses DataRow messages itself (pg 8.23 / pg-protocol 1.16, both pinned): each column is copied out of the
 * parser's buffer, which it reuses. Every other message goes through pg-protocol unchanged.
 *
 * Queries ask for bytes with `types: RAW_COLUMNS`; for all others `decodedTypes` decodes text columns first, so
 * they see the strings node-postgres would have given them. A PageQuery (page-query.ts) takes each DataRow's bytes
 * itself, before any column is copied out.
 */

const DATA_ROW = 0x44; // 'D'

// handlePacket is private in pg-protocol's typings; it is the parser's one dispatch point for a complete message.
const ParserBase = Parser as unknown as new () => {
  parse(buffer: Buffer, callback: MessageCallback): void;
  handlePacket(offset: number, code: number, length: number, bytes: Buffer): BackendMessage;
};

/** Stands for every row a RowSink took: the client hands it to the sink's handleDataRow, which ignores it. */
const SUNK_ROW = new DataRowMessage(0, []);

class RawRowParser extends ParserBase {
  /** The running query when it reads rows itself (a PageQuery), else undefined. */
  readonly #sink: () => RowSink | undefined;

  constructor(sink: () => RowSink | undefined) {
    super();
    this.#sink = sink;
  }

  override handlePacket(offset: number, code: number, length: number, bytes: Buffer): BackendMessage {
    if (code !== DATA_ROW) return super.handlePacket(offset, code, length, bytes);
    const sink = this.#sink();
    if (sink !== undefined) {
      sink.appendRow(bytes, offset);
      return SUNK_ROW;
    }
    const count = bytes.readInt16BE(offset);
    const fields: (Buffer | null)[] = new Array(count);
    let at = offset + 2;
    for (let i = 0; i < count; i++) {
      const size = bytes.readInt32BE(at);
      at += 4;
      if (size === -1) {
        fields[i] = null;
        continue;
      }
      const column = Buffer.allocUnsafe(size);
      bytes.copy(column, 0, at, at + size);
      fields[i] = column;
      at += size;
    }
    return new DataRowMessage(length, fields as unknown as string[]);
  }
}

/** The pg internals this module replaces or calls, by where they live. */
export interface RawRowHooks {
  parser: object;
  connection: object;
  client: object;
  dataRowMessage: unknown;
}

const PINNED_HOOKS: RawRowHooks = {
  parser: Parser.prototype,
  connection: (pg as unknown as { Connection?: { prototype: object } }).Connection?.prototype ?? {},
  client: pg.Client.prototype,
  dataRowMessage: DataRowMessage,
};

/**
 * Throws unless pg and pg-protocol still have the private methods RawRowsClient overrides (Parser.handlePacket,
 * Connection.attachListeners) and the DataRowMessage it builds: after an upgrade that moved them, every record
 * would silently come back decoded or not at all. Called when a PostgreSQL store starts.
 */
export const assertRawRowHooks = (hooks: RawRowHooks = PINNED_HOOKS): void => {
  const missing = [
    ...(typeof (hooks.parser as { handlePacket?: unknown }).handlePacket === 'function'
      ? []
      : ['pg-protocol Parser.prototype.handlePacket']),
    ...(typeof (hooks.parser as { parse?: unknown }).parse === 'function'
      ? []
      : ['pg-protocol Parser.prototype.parse']),
    ...(typeof (hooks.connection as { attachListeners?: unknown }).attachListeners === 'function'
      ? []
      : ['pg Connection.prototype.attachListeners']),
    ...(typeof (hooks.client as { _getActiveQuery?: unknown })._getActiveQuery === 'function'
      ? []
      : ['pg Client.prototype._getActiveQuery']),
    ...(typeof hooks.dataRowMessage === 'function' ? [] : ['pg-protocol DataRowMessage']),
  ];
  if (missing.length > 0) {
    throw new Error(
      `src/storage/postgres/raw-rows.ts cannot read record bodies as bytes: the installed pg / pg-protocol lack ${missing.join(', ')}. ` +
        'It overrides private internals of pg 8.23 / pg-protocol 1.16; pin those versions or update raw-rows.ts.',
    );
  }
};

interface ClientInternals {
  _getActiveQuery(): unknown;
}

interface ConnectionInternals {
  attachListeners(stream: NodeJS.ReadableStream): void;
  emit(event: string, message: unknown): boolean;
  _emitMessage?: boolean;
}

/** A pool client whose connection parses with RawRowParser (the same dispatch as pg's Connection.attachListeners). */
export class RawRowsClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const connection = this.connection as unknown as ConnectionInternals;
    const client = this as unknown as ClientInternals;
    connection.attachListeners = (stream) => {
      const parser = new RawRowParser(() => {
        const query = client._getActiveQuery();
        return query instanceof PageQuery ? query : undefined;
      });
      stream.on('data', (buffer: Buffer) =>
        parser.parse(buffer, (message) => {
          if (connection._emitMessage === true) connection.emit('message', message);
          connection.emit(message.name === 'error' ? 'errorMessage' : message.name, message);
        }),
      );
    };
  }
}

type TypeParser = (value: unknown) => unknown;
type GetTypeParser = (oid: number, format?: 'text' | 'binary') => TypeParser;

/** Every column as the Buffer received. */
export const RAW_COLUMNS: pg.CustomTypesConfig = {
  getTypeParser: (() => (value: unknown) => value) as unknown as pg.CustomTypesConfig['getTypeParser'],
};

/** Wraps text-format parsers so they get the string node-postgres would have decoded. */
export const decodedTypes = (getTypeParser: GetTypeParser): pg.CustomTypesConfig => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    const parse = getTypeParser(oid, format);
    if (format === 'binary') return parse;
    return (value: unknown) => parse(Buffer.isBuffer(value) ? value.toString('utf8') : value);
  }) as unknown as pg.CustomTypesConfig['getTypeParser'],
});
