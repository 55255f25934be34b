import type Database from 'better-sqlite3';

type Db = Database.Database;

/**
 * A connection whose reads of one event-loop turn share one read transaction. On its own, every SQLite read
 * statement begins and ends a transaction, and in WAL mode each one takes and drops a read lock on the -shm file
 * (two fcntl calls): 2.5 µs of a 5 µs primary-key read. A turn is short, so the snapshot is never stale by more
 * than the turn; commits of other processes show from the next turn, and `end()` lets this process's own commits
 * show at once.
 *
 * The connection opens on first use: a bulk load before serving still finds the file to itself.
 */
export interface TurnSnapshot {
  /** A statement prepared once on the reader connection; call `begin()` before running it. */
  prepare<P extends unknown[], R>(sql: string): Database.Statement<P, R>;
  /** Joins the turn's read transaction, beginning it if this is the turn's first read. */
  begin(): void;
  /** Ends the current read transaction, if any (after a commit, so the next read sees it). */
  end(): void;
  close(): void;
}

export const createTurnSnapshot = (open: () => Db): TurnSnapshot => {
  let connection: Db | undefined;
  let begin: Database.Statement | undefined;
  let commit: Database.Statement | undefined;
  let inTransaction = false;
  const statements = new Map<string, Database.Statement>();

  const reader = (): Db => {
    if (connection === undefined) {
      connection = open();
      begin = connection.prepare('BEGIN');
      commit = connection.prepare('COMMIT');
    }
    return connection;
  };

  const end = (): void => {
    if (!inTransaction) return;
    inTransaction = false;
    // Runs from setImmediate, where a throw would end the process. Only a failed read makes COMMIT fail (a corrupt
    // or unreadable file), and that read's request has the error already: roll back whatever is left, so the next
    // turn begins afresh.
    try {
      commit!.run();
    } catch {
      try {
        if (connection!.inTransaction) connection!.exec('ROLLBACK');
      } catch {
        // Nothing is left to release: SQLite ended the transaction itself.
      }
    }
  };

  return {
    prepare: <P extends unknown[], R>(sql: string) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = reader().prepare(sql);
        statements.set(sql, statement);
      }
      return statement as Database.Statement<P, R>;
    },
    begin: () => {
      if (inTransaction) return;
      reader();
      begin!.run();
      inTransaction = true;
      setImmediate(end);
    },
    end,
    close: () => {
      end();
      connection?.close();
    },
  };
};
