import { type Decoded, laidOutColumns } from "./decoded-copy";
import {
  dropSnapshotParts,
  readSnapshotHead,
  readSnapshotStreams,
  type SnapshotTables,
  StagedParts,
  snapshotSchema,
  stagedNamespaces,
} from "./stored-parts";

/**
 * A namespace's decoded copy stored whole, so an object that starts cold reads it in a few large rows
 * instead of one row per vector, and already laid out by dimension (measured in Node over 10,000
 * vectors of 384 dimensions: some 60–110 ms to read the rows and 30–40 to lay them out, against 12–15
 * to read the same values in parts). Writing one is the owner's call, off the write path
 * (`SqliteVectorIndex.snapshotStale`): the project index writes it once a burst of writes has ended.
 *
 * Three streams (stored-parts.ts): the columns (Float32 bytes), the norms (Float64 bytes) and the labels
 * (UTF-8 JSON of the ids and the metadata strings), under a head naming the version, the dimension and
 * the count.
 *
 * Writes do not make it stale. While a namespace has a snapshot, or one is being staged (stored a few
 * parts a turn, stored-parts.ts), every write notes the ids it upserts or deletes in
 * `vector_snapshot_changes`, in the same transaction and before its rows (`noteChanged`), so the
 * snapshot and the rows of the ids noted since stand for the namespace at any later version: a cold
 * object reads the snapshot, then those rows (an id with no row was deleted). Staging a snapshot, or
 * dropping one, clears its notes. Notes past a quarter of the snapshot's vectors make it due again
 * (`snapshotDue`), and past all of them it is not read (decoding every row costs about as much).
 */
const TABLES: SnapshotTables<"version" | "dims" | "count"> = {
  parts: "vector_snapshot_parts",
  heads: "vector_snapshot_heads",
  staged: "vector_snapshot_staged",
  columns: ["version", "dims", "count"],
};
type Stream = "columns" | "norms" | "labels";

const CHANGES = "vector_snapshot_changes";

export const SNAPSHOT_SCHEMA = [
  ...snapshotSchema(TABLES),
  `CREATE TABLE IF NOT EXISTS ${CHANGES} (
    namespace TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (namespace, id)
  ) WITHOUT ROWID`,
];

/** Notes past this share of a snapshot's vectors make it due to be stored again. */
const DUE_SHARE = 1 / 4;

/**
 * Notes that a write will upsert or delete these ids, when the namespace has a snapshot the notes keep
 * exact: one at `before`, the namespace's version before this write, with nothing noted yet, one with
 * notes already (each write since it was stored noted its ids), or one being staged (each write since
 * its copy was taken notes its ids). A snapshot at another version with no notes (stored before notes
 * existed, then written over) is left stale, and its next store replaces it.
 * Call in the write's transaction before any of its rows is written, so a write that fails part way has
 * noted every row it wrote (a noted id is read again whatever it holds). One statement, the ids as one
 * JSON parameter.
 */
export function noteChanged(
  sql: SqlStorage,
  namespace: string,
  before: number,
  ids: readonly string[],
): void {
  if (ids.length === 0) return;
  sql.exec(
    `INSERT INTO ${CHANGES} (namespace, id)
       SELECT ?1, value FROM json_each(?2)
       WHERE EXISTS (
         SELECT 1 FROM ${TABLES.heads} WHERE namespace = ?1
           AND (version = ?3 OR EXISTS (SELECT 1 FROM ${CHANGES} WHERE namespace = ?1))
       ) OR EXISTS (SELECT 1 FROM ${TABLES.staged} WHERE namespace = ?1)
       ON CONFLICT DO NOTHING`,
    namespace,
    JSON.stringify(ids),
    before,
  );
}

/** Notes these ids whatever the namespace's snapshot: as written since it (see `stageSnapshot`). */
function noteAll(sql: SqlStorage, namespace: string, ids: readonly string[]): void {
  if (ids.length === 0) return;
  sql.exec(
    // WHERE true: without it SQLite reads the upsert's ON as a join's.
    `INSERT INTO ${CHANGES} (namespace, id) SELECT ?1, value FROM json_each(?2) WHERE true ON CONFLICT DO NOTHING`,
    namespace,
    JSON.stringify(ids),
  );
}

/** How many ids were noted since the namespace's snapshot, counting no further than `limit`. */
function notedCount(sql: SqlStorage, namespace: string, limit: number): number {
  return sql
    .exec<{ n: number }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM ${CHANGES} WHERE namespace = ? LIMIT ?)`,
      namespace,
      limit,
    )
    .one().n;
}

/**
 * Whether the namespace at `version`, of vectors of `dims` dimensions, should have its snapshot stored:
 * it has none, or one of other dimensions, its notes passed a quarter of its vectors, or it stands for
 * another version with nothing noted since (stale, see `noteChanged`).
 */
export function snapshotDue(sql: SqlStorage, namespace: string, version: number, dims: number): boolean {
  const head = readSnapshotHead(sql, TABLES, namespace);
  if (!head || head.dims !== dims) return true;
  const noted = notedCount(sql, namespace, Math.floor(head.count * DUE_SHARE) + 1);
  return noted === 0 ? head.version !== version : noted > head.count * DUE_SHARE;
}

/**
 * Starts storing `copy` (laid out: nothing added or dropped) as the namespace's snapshot, over any
 * earlier one, whose notes it clears: the writes from here on are noted against it. Its parts are
 * written by the returned stage's `write`s, from the copy's own arrays; the namespace has no snapshot to
 * read until the last. The index writes those arrays in place (an upserted row), and a write rolled
 * back after that leaves its values in them and no note, so `written` names every id written into them
 * since, committed or not, and the last turn notes them all: each is read again from its row.
 */
export function stageSnapshot(
  sql: SqlStorage,
  namespace: string,
  copy: Decoded,
  written: () => Iterable<string>,
): StagedParts<"version" | "dims" | "count"> {
  sql.exec(`DELETE FROM ${CHANGES} WHERE namespace = ?`, namespace);
  const head = { version: copy.version, dims: copy.dims, count: copy.ids.length };
  return new StagedParts(
    sql,
    TABLES,
    namespace,
    head,
    [
      ["columns", new Uint8Array(copy.columns.buffer, copy.columns.byteOffset, copy.columns.byteLength)],
      ["norms", new Uint8Array(copy.norms.buffer, copy.norms.byteOffset, copy.norms.byteLength)],
      ["labels", new TextEncoder().encode(JSON.stringify([copy.ids, copy.metadata]))],
    ],
    () => noteAll(sql, namespace, [...written()]),
  );
}

/** The namespaces whose decoded snapshot was staged and not finished. */
export function stagedSnapshots(sql: SqlStorage): string[] {
  return stagedNamespaces(sql, TABLES);
}

/** Deletes the namespace's snapshot, head first, and its notes. */
export function dropSnapshot(sql: SqlStorage, namespace: string): void {
  dropSnapshotParts(sql, TABLES, namespace);
  sql.exec(`DELETE FROM ${CHANGES} WHERE namespace = ?`, namespace);
}

/**
 * The namespace's snapshot at `dims`, as stored (its copy at the version it was stored at), with the
 * ids noted since; undefined when there is none, it is not whole, or more ids were noted since than it
 * holds vectors (the caller decodes the rows).
 */
export function readSnapshot(
  sql: SqlStorage,
  namespace: string,
  dims: number,
): { copy: Decoded; changed: string[] } | undefined {
  const head = readSnapshotHead(sql, TABLES, namespace);
  if (!head || head.dims !== dims) return undefined;
  const changed = sql
    .exec<{ id: string }>(`SELECT id FROM ${CHANGES} WHERE namespace = ? LIMIT ?`, namespace, head.count + 1)
    .toArray()
    .map((row) => row.id);
  if (changed.length > head.count) return undefined;
  const parts = readSnapshotStreams(sql, TABLES, namespace);
  const joined = (stream: Stream) => parts.get(stream) ?? new Uint8Array(0);
  const columns = joined("columns");
  const norms = joined("norms");
  if (columns.byteLength !== head.count * dims * 4 || norms.byteLength !== head.count * 8) return undefined;
  let labels: [string[], string[]];
  try {
    labels = JSON.parse(new TextDecoder().decode(joined("labels"))) as [string[], string[]];
  } catch {
    return undefined;
  }
  const [ids, metadata] = labels;
  if (ids?.length !== head.count || metadata?.length !== head.count) return undefined;
  const copy = laidOutColumns(head.version, dims, {
    ids,
    metadata,
    norms: new Float64Array(norms.buffer),
    columns: new Float32Array(columns.buffer),
  });
  return { copy, changed };
}
