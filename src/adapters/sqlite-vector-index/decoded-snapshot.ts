import { type Decoded, laidOutColumns } from "./decoded-copy";
import {
  dropSnapshotParts,
  readSnapshotHead,
  readSnapshotStreams,
  type SnapshotTables,
  snapshotSchema,
  writeSnapshotParts,
} from "./stored-parts";

/**
 * A namespace's decoded copy stored whole, so an object that starts cold reads it in a few large rows
 * instead of one row per vector, and already laid out by dimension (measured in Node over 10,000
 * vectors of 384 dimensions: some 60–110 ms to read the rows and 30–40 to lay them out, against 12–15
 * to read the same values in parts). It stands for the namespace at the version it was written at
 * and is read only while the namespace is still at that version: any write since makes it stale, and
 * the copy is decoded from the rows as before. Writing one is the owner's call, off the write path
 * (`SqliteVectorIndex.snapshotStale`): the project index writes it once its writes have gone quiet.
 *
 * Three streams (stored-parts.ts): the columns (Float32 bytes), the norms (Float64 bytes) and the labels
 * (UTF-8 JSON of the ids and the metadata strings), under a head naming the version, the dimension and
 * the count.
 */
const TABLES: SnapshotTables<"version" | "dims" | "count"> = {
  parts: "vector_snapshot_parts",
  heads: "vector_snapshot_heads",
  columns: ["version", "dims", "count"],
};
type Stream = "columns" | "norms" | "labels";

export const SNAPSHOT_SCHEMA = snapshotSchema(TABLES);

/** The stored snapshot's version, or undefined when the namespace has none. */
export function snapshotVersion(sql: SqlStorage, namespace: string): number | undefined {
  return readSnapshotHead(sql, TABLES, namespace)?.version;
}

/** Stores `copy` (laid out: nothing added or dropped) as the namespace's snapshot, over any earlier one. */
export function writeSnapshot(sql: SqlStorage, namespace: string, copy: Decoded): void {
  const head = { version: copy.version, dims: copy.dims, count: copy.ids.length };
  writeSnapshotParts(sql, TABLES, namespace, head, [
    ["columns", new Uint8Array(copy.columns.buffer, copy.columns.byteOffset, copy.columns.byteLength)],
    ["norms", new Uint8Array(copy.norms.buffer, copy.norms.byteOffset, copy.norms.byteLength)],
    ["labels", new TextEncoder().encode(JSON.stringify([copy.ids, copy.metadata]))],
  ]);
}

/** Deletes the namespace's snapshot, head first. */
export function dropSnapshot(sql: SqlStorage, namespace: string): void {
  dropSnapshotParts(sql, TABLES, namespace);
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
  const head = readSnapshotHead(sql, TABLES, namespace);
  if (!head || head.version !== version || head.dims !== dims) return undefined;
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
  return laidOutColumns(version, dims, {
    ids,
    metadata,
    norms: new Float64Array(norms.buffer),
    columns: new Float32Array(columns.buffer),
  });
}
