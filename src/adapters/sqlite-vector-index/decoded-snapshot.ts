import { type Decoded, laidOutColumns } from "./decoded-copy";
import { dropParts, partsSchema, readParts, writeParts } from "./stored-parts";

/** The snapshots' parts: their own table, apart from the lists' layouts (layout-snapshot.ts). */
const PARTS = "vector_snapshot_parts";
type Stream = "columns" | "norms" | "labels";

/**
 * A namespace's decoded copy stored whole, so an object that starts cold reads it in a few large rows
 * instead of one row per vector, and already laid out by dimension (measured in Node over 10,000
 * vectors of 384 dimensions: some 60–110 ms to read the rows and 30–40 to lay them out, against 12–15
 * to read the same values in parts). It stands for the namespace at the version it was written at
 * and is read only while the namespace is still at that version: any write since makes it stale, and
 * the copy is decoded from the rows as before. Writing one is the owner's call, off the write path
 * (`SqliteVectorIndex.snapshotStale`): the project index writes it once its writes have gone quiet.
 *
 * Three streams, each cut into parts (stored-parts.ts): the columns (Float32 bytes), the norms (Float64
 * bytes) and the labels (UTF-8 JSON of the ids and the metadata strings). The head row, written last, names the version, the dimension and the count; a
 * write cut short leaves no head, or the earlier one, whose version no longer matches.
 */
export const SNAPSHOT_SCHEMA = [
  partsSchema(PARTS),
  `CREATE TABLE IF NOT EXISTS vector_snapshot_heads (
    namespace TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    dims INTEGER NOT NULL,
    count INTEGER NOT NULL
  )`,
];

/** The stored snapshot's version, or undefined when the namespace has none. */
export function snapshotVersion(sql: SqlStorage, namespace: string): number | undefined {
  return sql
    .exec<{ version: number }>("SELECT version FROM vector_snapshot_heads WHERE namespace = ?", namespace)
    .toArray()[0]?.version;
}

/** Stores `copy` (laid out: nothing added or dropped) as the namespace's snapshot, over any earlier one. */
export function writeSnapshot(sql: SqlStorage, namespace: string, copy: Decoded): void {
  dropSnapshot(sql, namespace);
  writeParts(sql, PARTS, namespace, [
    ["columns", new Uint8Array(copy.columns.buffer, copy.columns.byteOffset, copy.columns.byteLength)],
    ["norms", new Uint8Array(copy.norms.buffer, copy.norms.byteOffset, copy.norms.byteLength)],
    ["labels", new TextEncoder().encode(JSON.stringify([copy.ids, copy.metadata]))],
  ]);
  sql.exec(
    "INSERT INTO vector_snapshot_heads (namespace, version, dims, count) VALUES (?, ?, ?, ?)",
    namespace,
    copy.version,
    copy.dims,
    copy.ids.length,
  );
}

/** Deletes the namespace's snapshot, head first. */
export function dropSnapshot(sql: SqlStorage, namespace: string): void {
  sql.exec("DELETE FROM vector_snapshot_heads WHERE namespace = ?", namespace);
  dropParts(sql, PARTS, namespace);
}

/**
 * The namespace's copy from its snapshot, when one stands for `version` at `dims`; undefined otherwise
 * (none, stale, or not whole), and the caller decodes the rows.
 */
export function readSnapshot(
  sql: SqlStorage,
  namespace: string,
  version: number,
  dims: number,
): Decoded | undefined {
  const head = sql
    .exec<{ version: number; dims: number; count: number }>(
      "SELECT version, dims, count FROM vector_snapshot_heads WHERE namespace = ?",
      namespace,
    )
    .toArray()[0];
  if (!head || head.version !== version || head.dims !== dims) return undefined;
  const parts = readParts(sql, PARTS, namespace);
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
  return laidOutColumns(version, dims, {
    ids,
    metadata,
    norms: new Float64Array(norms.buffer),
    columns: new Float32Array(columns.buffer),
  });
}
