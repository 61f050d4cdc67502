import type { VectorRecord } from "../../ports/vector-index";
import { SNAPSHOT_SCHEMA } from "./decoded-snapshot";
import { readStampOf, restamp } from "./stamps";

/**
 * The index's tables in the Durable Object's SQLite storage and the statements on its rows. One row
 * per (namespace, id) in `vector_index`: the values as Float32 bytes in a BLOB (4 bytes a dimension:
 * 1.5 KiB at 384 dimensions, 3 KiB at 768), their L2 norm precomputed, metadata as a JSON object of
 * strings, the inverted list the vector belongs to (NULL until its namespace has lists and the vector
 * is assigned), whether its current values are in that list's pack (see list-storage.ts) and, while
 * they are not, their byte code (list-codes.ts codeOf; NULL once packed, and in rows stored before codes
 * existed), which a query ranks the list's tail by.
 * `vector_index_versions` holds each namespace's version, set anew by every write.
 */
export const VECTOR_INDEX_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS vector_index (
    namespace TEXT NOT NULL,
    id TEXT NOT NULL,
    dims INTEGER NOT NULL,
    vec BLOB NOT NULL,
    norm REAL NOT NULL,
    metadata TEXT NOT NULL,
    list INTEGER,
    packed INTEGER NOT NULL DEFAULT 0,
    code BLOB,
    PRIMARY KEY (namespace, id)
  )`,
  // Bumped by every write to a namespace, in the same transaction, so a decoded copy can be trusted.
  `CREATE TABLE IF NOT EXISTS vector_index_versions (namespace TEXT PRIMARY KEY, version INTEGER NOT NULL)`,
];

/** A stored vector as read back: the BLOB still encoded. */
export type Row = { id: string; vec: ArrayBuffer; norm: number; metadata: string };

/** Ids per DELETE statement, well under SQLite's bound-parameter limit. */
const DELETE_CHUNK = 50;

export function createTables(sql: SqlStorage): void {
  for (const statement of [...VECTOR_INDEX_SCHEMA, ...SNAPSHOT_SCHEMA]) sql.exec(statement);
  addListColumns(sql);
}

/**
 * Tables stored before inverted lists existed get the `list` and `packed` columns (no list, not packed,
 * in every row: the rows are assigned later, a chunk per write), and those stored before tail codes the
 * `code` column (NULL: such a tail member is read whole until its list is packed), then the indexes.
 * Creating an index over a large namespace is a one-off cost on the first start after the upgrade:
 * about 0.1 s per 100,000 rows.
 *
 * `vector_index_tails` holds only the rows not packed, each with its code, ordered by list: a query
 * reads a list's tail as a few adjacent index pages instead of a table row (and a 1.5 KiB BLOB) per
 * member, scattered as they were written (at 1,000,000 vectors, about 190 rows a query).
 */
function addListColumns(sql: SqlStorage): void {
  const columns = sql.exec<{ name: string }>("PRAGMA table_info(vector_index)").toArray();
  const has = (name: string) => columns.some((c) => c.name === name);
  if (!has("list")) sql.exec("ALTER TABLE vector_index ADD COLUMN list INTEGER");
  if (!has("packed")) sql.exec("ALTER TABLE vector_index ADD COLUMN packed INTEGER NOT NULL DEFAULT 0");
  if (!has("code")) sql.exec("ALTER TABLE vector_index ADD COLUMN code BLOB");
  sql.exec("CREATE INDEX IF NOT EXISTS vector_index_lists ON vector_index (namespace, list, packed)");
  sql.exec(
    "CREATE INDEX IF NOT EXISTS vector_index_tails ON vector_index (namespace, list, id, code) WHERE packed = 0",
  );
}

/** The dimension of the vectors stored, or undefined while there are none. */
export function storedDimensions(sql: SqlStorage): number | undefined {
  return sql.exec<{ dims: number }>("SELECT dims FROM vector_index LIMIT 1").toArray()[0]?.dims;
}

const VERSIONS = { table: "vector_index_versions", column: "version" };

/** A new version for the namespace (stamps.ts), set by every write to its rows. */
export function bumpVersion(sql: SqlStorage, namespace: string): number {
  return restamp(sql, VERSIONS, namespace);
}

/** Every namespace written so far, with its version. */
export function readVersions(sql: SqlStorage): { namespace: string; version: number }[] {
  return sql
    .exec<{ namespace: string; version: number }>("SELECT namespace, version FROM vector_index_versions")
    .toArray();
}

/** The namespace's version; 0 before its first write. */
export function readVersion(sql: SqlStorage, namespace: string): number {
  return readStampOf(sql, VERSIONS, namespace);
}

/**
 * Inserts or replaces one record, its values already converted to Float32 and its norm computed, in
 * `list` with its code (or in none, without); its values are new, so they are in no list's pack yet.
 */
export function writeVector(
  sql: SqlStorage,
  record: VectorRecord,
  values: Float32Array,
  valuesNorm: number,
  placed: { list: number; code: ArrayBuffer } | null,
): void {
  sql.exec(
    `INSERT INTO vector_index (namespace, id, dims, vec, norm, metadata, list, code) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (namespace, id) DO UPDATE SET
           dims = excluded.dims, vec = excluded.vec, norm = excluded.norm, metadata = excluded.metadata,
           list = excluded.list, packed = 0, code = excluded.code`,
    record.namespace,
    record.id,
    values.length,
    values.buffer,
    valuesNorm,
    JSON.stringify(record.metadata),
    placed?.list ?? null,
    placed?.code ?? null,
  );
}

/** Deletes the namespace's vectors with these (distinct) ids. */
export function deleteVectors(sql: SqlStorage, namespace: string, ids: string[]): void {
  for (let start = 0; start < ids.length; start += DELETE_CHUNK) {
    const chunk = ids.slice(start, start + DELETE_CHUNK);
    sql.exec(
      `DELETE FROM vector_index WHERE namespace = ? AND id IN (${chunk.map(() => "?").join(", ")})`,
      namespace,
      ...chunk,
    );
  }
}

/**
 * How many vectors the namespace holds, counting no further than `limit`: whether a namespace is
 * larger than a bound costs a walk over at most that many index entries, not over all of them.
 */
export function countVectors(sql: SqlStorage, namespace: string, limit: number): number {
  return sql
    .exec<{ n: number }>(
      "SELECT count(*) AS n FROM (SELECT 1 FROM vector_index WHERE namespace = ? LIMIT ?)",
      namespace,
      limit,
    )
    .one().n;
}

export function readNamespace(sql: SqlStorage, namespace: string): Row[] {
  return sql
    .exec<Row>("SELECT id, vec, norm, metadata FROM vector_index WHERE namespace = ?", namespace)
    .toArray();
}

/**
 * The namespace's rows whose metadata has every (key, string value) pair of the filter, matched in
 * SQL through `json_each`; read lazily, as the caller iterates.
 */
export function readFiltered(sql: SqlStorage, namespace: string, filter: [string, string][]): Iterable<Row> {
  const clauses = filter.map(
    () => "EXISTS (SELECT 1 FROM json_each(vector_index.metadata) AS m WHERE m.key = ? AND m.value = ?)",
  );
  return sql.exec<Row>(
    `SELECT id, vec, norm, metadata FROM vector_index WHERE namespace = ?${clauses.map((c) => ` AND ${c}`).join("")}`,
    namespace,
    ...filter.flat(),
  );
}
