import { dropLayoutSnapshot, LAYOUT_SNAPSHOT_SCHEMA } from "./layout-snapshot";
import { readStampOf, restamp } from "./stamps";
import type { Row } from "./storage";

/**
 * The inverted lists' own tables and every statement on the `list` and `packed` columns of
 * `vector_index`. `vector_index_centroids` holds each list's centroid (Float32 bytes, unit length);
 * `vector_index_layouts` a stamp per namespace, set anew whenever its centroids change, so an instance
 * holding them in memory knows when to read them again (as versions do for the decoded copy);
 * `vector_index_packs` each list's pack (list-codes.ts): the ids, as a JSON array, and codes of the
 * members it was made from. A member whose row says `packed = 1` has its current values in its list's
 * pack; the others (written since) are the list's tail, each with its own code in its row.
 */
const LIST_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS vector_index_centroids (
    namespace TEXT NOT NULL,
    list INTEGER NOT NULL,
    centroid BLOB NOT NULL,
    PRIMARY KEY (namespace, list)
  )`,
  `CREATE TABLE IF NOT EXISTS vector_index_layouts (namespace TEXT PRIMARY KEY, stamp INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS vector_index_packs (
    namespace TEXT NOT NULL,
    list INTEGER NOT NULL,
    ids TEXT NOT NULL,
    codes BLOB NOT NULL,
    PRIMARY KEY (namespace, list)
  )`,
];

/** A stored vector as list upkeep reads it. */
export type ListMember = { id: string; vec: ArrayBuffer; norm: number };

/** A stored vector as a query reads it again, with where it is. */
export type PlacedRow = Row & { list: number | null; packed: number };

export function createListTables(sql: SqlStorage): void {
  for (const statement of [...LIST_SCHEMA, ...LAYOUT_SNAPSHOT_SCHEMA]) sql.exec(statement);
}

const LAYOUTS = { table: "vector_index_layouts", column: "stamp" };

/** The namespace's layout stamp; 0 while it has no lists. */
export function readStamp(sql: SqlStorage, namespace: string): number {
  return readStampOf(sql, LAYOUTS, namespace);
}

export function readCentroids(sql: SqlStorage, namespace: string): { list: number; centroid: ArrayBuffer }[] {
  return sql
    .exec<{ list: number; centroid: ArrayBuffer }>(
      "SELECT list, centroid FROM vector_index_centroids WHERE namespace = ? ORDER BY list",
      namespace,
    )
    .toArray();
}

/** Writes (or rewrites) these lists' centroids and stamps the layout anew; returns the stamp. */
export function writeCentroids(
  sql: SqlStorage,
  namespace: string,
  centroids: { list: number; centroid: Float32Array }[],
): number {
  for (const { list, centroid } of centroids) {
    sql.exec(
      `INSERT INTO vector_index_centroids (namespace, list, centroid) VALUES (?, ?, ?)
         ON CONFLICT (namespace, list) DO UPDATE SET centroid = excluded.centroid`,
      namespace,
      list,
      centroid.slice().buffer,
    );
  }
  return restamp(sql, LAYOUTS, namespace);
}

/** Forgets the namespace's lists: centroids, stamp, layout snapshot, packs, and every vector's assignment. */
export function dropLists(sql: SqlStorage, namespace: string): void {
  dropLayoutSnapshot(sql, namespace);
  sql.exec("DELETE FROM vector_index_centroids WHERE namespace = ?", namespace);
  sql.exec("DELETE FROM vector_index_layouts WHERE namespace = ?", namespace);
  sql.exec("DELETE FROM vector_index_packs WHERE namespace = ?", namespace);
  sql.exec(
    "UPDATE vector_index SET list = NULL, packed = 0, code = NULL WHERE namespace = ? AND list IS NOT NULL",
    namespace,
  );
}

/** Every id of the namespace, in id order: what training samples from. */
export function readIds(sql: SqlStorage, namespace: string): string[] {
  return sql
    .exec<{ id: string }>("SELECT id FROM vector_index WHERE namespace = ? ORDER BY id", namespace)
    .toArray()
    .map((row) => row.id);
}

/** Up to `limit` vectors not yet in a list (in the list index's order, with no sort). */
export function readUnassigned(sql: SqlStorage, namespace: string, limit: number): ListMember[] {
  return sql
    .exec<ListMember>(
      "SELECT id, vec, norm FROM vector_index WHERE namespace = ? AND list IS NULL LIMIT ?",
      namespace,
      limit,
    )
    .toArray();
}

/**
 * A list's members in id order, as a split reads them. Sorted here: with `ORDER BY id` SQLite walks the
 * whole namespace in id order rather than the list's index entries.
 */
export function readMembers(sql: SqlStorage, namespace: string, list: number): ListMember[] {
  return sql
    .exec<ListMember>(
      "SELECT id, vec, norm FROM vector_index WHERE namespace = ? AND list = ?",
      namespace,
      list,
    )
    .toArray()
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Moves a vector to another list (a split): packed or not, and with its code, as it was. */
export function setList(sql: SqlStorage, namespace: string, id: string, list: number): void {
  sql.exec("UPDATE vector_index SET list = ? WHERE namespace = ? AND id = ?", list, namespace, id);
}

/** Puts a vector that had no list in `list`, in its tail, with its code. */
export function assignList(
  sql: SqlStorage,
  namespace: string,
  id: string,
  list: number,
  code: ArrayBuffer,
): void {
  sql.exec(
    "UPDATE vector_index SET list = ?, code = ? WHERE namespace = ? AND id = ?",
    list,
    code,
    namespace,
    id,
  );
}

/** How many vectors the list holds, or only those in its tail (not in its pack). */
export function countMembers(
  sql: SqlStorage,
  namespace: string,
  list: number,
  which: "all" | "tail" = "all",
): number {
  const tail = which === "tail" ? " AND packed = 0" : "";
  return sql
    .exec<{ n: number }>(
      `SELECT count(*) AS n FROM vector_index WHERE namespace = ? AND list = ?${tail}`,
      namespace,
      list,
    )
    .one().n;
}

/** A list's members not in its pack, as a query scores them. */
export function readTailRows(sql: SqlStorage, namespace: string, list: number): Row[] {
  return sql
    .exec<Row>(
      "SELECT id, vec, norm, metadata FROM vector_index WHERE namespace = ? AND list = ? AND packed = 0",
      namespace,
      list,
    )
    .toArray();
}

/** A tail member as a query ranks it: its code, or null for a row stored before codes existed. */
export type TailCode = { id: string; code: ArrayBuffer | null };

/**
 * The tail codes of several lists, by list, in one statement: from `vector_index_tails` alone, which
 * holds every member not packed with its code, in list order.
 */
export function readTailCodesOf(
  sql: SqlStorage,
  namespace: string,
  lists: readonly number[],
): Map<number, TailCode[]> {
  const tails = new Map<number, TailCode[]>(lists.map((list) => [list, []]));
  if (lists.length === 0) return tails;
  const rows = sql.exec<TailCode & { list: number }>(
    `SELECT list, id, code FROM vector_index INDEXED BY vector_index_tails
       WHERE namespace = ? AND list IN (SELECT value FROM json_each(?)) AND packed = 0`,
    namespace,
    JSON.stringify(lists),
  );
  for (const { list, id, code } of rows) tails.get(list)?.push({ id, code });
  return tails;
}

/** The packs of several lists (as readPack reads each), by list, in one statement. */
export function readPacks(
  sql: SqlStorage,
  namespace: string,
  lists: readonly number[],
): Map<number, { ids: string; codes: ArrayBuffer }> {
  const packs = new Map<number, { ids: string; codes: ArrayBuffer }>();
  if (lists.length === 0) return packs;
  const rows = sql.exec<{ list: number; ids: string; codes: ArrayBuffer }>(
    `SELECT list, ids, codes FROM vector_index_packs
       WHERE namespace = ? AND list IN (SELECT value FROM json_each(?))`,
    namespace,
    JSON.stringify(lists),
  );
  for (const { list, ids, codes } of rows) packs.set(list, { ids, codes });
  return packs;
}

export function readPack(
  sql: SqlStorage,
  namespace: string,
  list: number,
): { ids: string; codes: ArrayBuffer } | undefined {
  return sql
    .exec<{ ids: string; codes: ArrayBuffer }>(
      "SELECT ids, codes FROM vector_index_packs WHERE namespace = ? AND list = ?",
      namespace,
      list,
    )
    .toArray()[0];
}

/** Stores a list's pack, made from all its current members: each of them is packed from now on. */
export function writePack(
  sql: SqlStorage,
  namespace: string,
  list: number,
  pack: { ids: string[]; blob: ArrayBuffer },
): void {
  sql.exec(
    `INSERT INTO vector_index_packs (namespace, list, ids, codes) VALUES (?, ?, ?, ?)
       ON CONFLICT (namespace, list) DO UPDATE SET ids = excluded.ids, codes = excluded.codes`,
    namespace,
    list,
    JSON.stringify(pack.ids),
    pack.blob,
  );
  // Packed, a member's code is in the pack: its own is let go, and it leaves `vector_index_tails`.
  sql.exec(
    "UPDATE vector_index SET packed = 1, code = NULL WHERE namespace = ? AND list = ? AND packed = 0",
    namespace,
    list,
  );
}

/**
 * These ids' rows, with their list and whether they are packed: one statement, the ids passed as one
 * JSON parameter and each looked up in the primary key (a statement's own cost outweighed the lookups).
 */
export function readPlacedRows(sql: SqlStorage, namespace: string, ids: string[]): PlacedRow[] {
  if (ids.length === 0) return [];
  return sql
    .exec<PlacedRow>(
      `SELECT id, vec, norm, metadata, list, packed FROM vector_index
         WHERE namespace = ? AND id IN (SELECT value FROM json_each(?))`,
      namespace,
      JSON.stringify(ids),
    )
    .toArray();
}

/** The rows no list holds yet (none once upkeep has caught up), read lazily. */
export function readUnassignedRows(sql: SqlStorage, namespace: string): Iterable<Row> {
  return sql.exec<Row>(
    "SELECT id, vec, norm, metadata FROM vector_index WHERE namespace = ? AND list IS NULL",
    namespace,
  );
}
