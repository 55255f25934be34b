import pg from 'pg';
import { decodedTypes } from './raw-rows.js';

export interface PostgresConnectionOptions {
  /** postgres://user:password@host:port/database */
  databaseUrl: string;
  /** Schema holding Larder's tables (default: the server's search_path, normally `public`). */
  schema?: string;
  /** Server-side bound on every statement, in ms (default 5000). */
  statementTimeoutMs?: number;
  /** Shown in pg_stat_activity (default `larder`). */
  applicationName?: string;
  /** Opening a connection, or waiting for a free one in the pool, in ms (default 5000). */
  connectTimeoutMs?: number;
}

/** How long past the statement timeout an answer may take on the wire before the connection is presumed dead. */
const READ_TIMEOUT_MARGIN_MS = 1000;

/** Probes an idle connection after this, so one a firewall silently dropped is noticed in seconds, not hours. */
const KEEPALIVE_IDLE_MS = 10_000;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** bigint columns hold epoch ms, counts and the auth version: all far below 2^53, so plain numbers. */
const INT8_OID = 20;
const types = decodedTypes((oid, format) =>
  oid === INT8_OID && format !== 'binary'
    ? (value) => Number(value)
    : (pg.types.getTypeParser as (oid: number, format?: 'text' | 'binary') => (value: unknown) => unknown)(
        oid,
        format,
      ),
);

const checkSchemaName = (schema: string | undefined): void => {
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`Invalid PostgreSQL schema name ${JSON.stringify(schema)}: use [a-z_][a-z0-9_]*.`);
  }
};

/**
 * Settings every Larder connection starts with: search_path and statement_timeout travel in the startup packet,
 * so they hold for each new connection (including reconnects) at no extra round trip.
 */
export const connectionConfig = (options: PostgresConnectionOptions): pg.ClientConfig => {
  checkSchemaName(options.schema);
  const statementTimeout = options.statementTimeoutMs ?? 5000;
  return {
    connectionString: options.databaseUrl,
    application_name: options.applicationName ?? 'larder',
    statement_timeout: statementTimeout,
    // statement_timeout is enforced by the server; a connection gone silent (a firewall or failover dropped it
    // without a reset) never answers, so the client gives up on its own and the pool throws the connection away.
    query_timeout: statementTimeout + READ_TIMEOUT_MARGIN_MS,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    types,
  };
};
