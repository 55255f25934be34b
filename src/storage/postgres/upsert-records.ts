import type pg from 'pg';
import type { RecordKind, RecordRow } from '../../records/kinds.js';

/**
 * Multi-row upserts: one statement per chunk, each column passed as one array parameter and zipped back into rows
 * with ROWS FROM, so thousands of rows cost one round trip and one plan (a VALUES list would need a parameter per
 * cell and hit the 65,535-parameter limit). The JSON bodies travel as a JSON array instead of a text[]: PostgreSQL's
 * array parser handles the many escaped quotes of JSON text several times slower (measured 3–4× on ~3 KB bodies)
 * than its JSON parser; json_array_elements_text gives back each string exactly.
 */

/** Chunks end at this many JSON characters or rows, whichever comes first: large enough to amortise, small
 * enough to stay well inside the statement timeout. */
const CHUNK_CHARS = 4_000_000;
const CHUNK_ROWS = 5_000;

/** ON CONFLICT DO UPDATE may not touch one row twice in a statement: the last version of an id wins. */
const lastById = <T extends { id: string }>(rows: readonly T[]): T[] => {
  const byId = new Map<string, T>();
  for (const row of rows) byId.set(row.id, row);
  return byId.size === rows.length ? [...rows] : [...byId.values()];
};

function* chunks<T extends { json: string }>(rows: readonly T[]): Generator<T[]> {
  let chunk: T[] = [];
  let chars = 0;
  for (const row of rows) {
    chunk.push(row);
    chars += row.json.length;
    if (chars >= CHUNK_CHARS || chunk.length >= CHUNK_ROWS) {
      yield chunk;
      chunk = [];
      chars = 0;
    }
  }
  if (chunk.length > 0) yield chunk;
}

const ARRAY_TYPES = { text: 'text[]', boolean: 'boolean[]' } as const;

/** The kind's upsert statement: ids, modified times and each indexed column as arrays, the bodies as JSON. */
const upsertStatement = (kind: RecordKind): { name: string; text: string } => {
  const columns = kind.columns.map((column) => column.name);
  const unnests = [
    'unnest($2::text[])',
    'unnest($3::bigint[])',
    ...kind.columns.map((column, i) => `unnest($${i + 4}::${ARRAY_TYPES[column.type]})`),
    `json_array_elements_text($${kind.columns.length + 4}::json)`,
  ];
  const updated = ['modified_at', ...columns, 'json'].map((name) => `${name} = excluded.${name}`);
  return {
    name: `${kind.table}_upsert`,
    text: `
  INSERT INTO ${kind.table} (location_id, id, modified_at, ${columns.map((name) => `${name}, `).join('')}json)
  SELECT $1, * FROM ROWS FROM (${unnests.join(', ')})
  ON CONFLICT (location_id, id) DO UPDATE SET ${updated.join(', ')}`,
  };
};

const statements = new Map<RecordKind, { name: string; text: string }>();

/** Writes rows chunk by chunk: the location, the ids and modified times, the columns, the bodies last. */
export const upsertRecords = async (
  client: pg.ClientBase,
  kind: RecordKind,
  locationId: string,
  rows: readonly RecordRow[],
): Promise<void> => {
  let statement = statements.get(kind);
  if (statement === undefined) {
    statement = upsertStatement(kind);
    statements.set(kind, statement);
  }
  for (const chunk of chunks(lastById(rows))) {
    await client.query({
      ...statement,
      values: [
        locationId,
        chunk.map((row) => row.id),
        chunk.map((row) => row.modifiedAt),
        ...kind.columns.map((_, i) => chunk.map((row) => row.values[i])),
        JSON.stringify(chunk.map((row) => row.json)),
      ],
    });
  }
};
