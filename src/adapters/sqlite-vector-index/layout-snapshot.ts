import type { ListLayout } from "./list-layout";
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
 * A namespace's list layout stored whole, already laid out by dimension, so an object that starts cold
 * reads its centroids in a few large rows instead of one row per list and a transposition (measured in
 * Node over the 6,181 lists of 1,000,000 vectors of 384 dimensions: 30–85 ms to read the rows and 20–35
 * to lay them out). It stands for the layout of the stamp it was written at and is read only while the
 * namespace's lists still have that stamp: a split or a new training since makes it stale, and the
 * layout is read from the centroids as before. Writing one is the owner's call, off the write path
 * (`SqliteVectorIndex.snapshotStale`), as for the decoded copy (decoded-snapshot.ts).
 *
 * Two streams (stored-parts.ts): the columns (Float32 bytes, exactly the layout's) and the list numbers
 * (Float64 bytes), under a head naming the stamp, the dimension and the number of lists.
 */
const TABLES: SnapshotTables<"stamp" | "dims" | "lists"> = {
  parts: "vector_layout_parts",
  heads: "vector_layout_heads",
  staged: "vector_layout_staged",
  columns: ["stamp", "dims", "lists"],
};
type Stream = "columns" | "lists";

export const LAYOUT_SNAPSHOT_SCHEMA = snapshotSchema(TABLES);

/** The stamp of the layout the namespace's stored snapshot holds, or undefined when it has none. */
export function layoutSnapshotStamp(sql: SqlStorage, namespace: string): number | undefined {
  return readSnapshotHead(sql, TABLES, namespace)?.stamp;
}

/**
 * Starts storing `layout` as the namespace's layout snapshot, over any earlier one: its parts are
 * written by the returned stage's `write`s. A layout is never changed in place (a split makes a new one),
 * so the parts written later are still this one's.
 */
export function stageLayoutSnapshot(
  sql: SqlStorage,
  namespace: string,
  layout: ListLayout,
): StagedParts<"stamp" | "dims" | "lists"> {
  const { columns } = layout;
  const lists = Float64Array.from(layout.lists);
  const head = { stamp: layout.stamp, dims: layout.dims, lists: layout.lists.length };
  return new StagedParts(sql, TABLES, namespace, head, [
    ["columns", new Uint8Array(columns.buffer, columns.byteOffset, columns.byteLength)],
    ["lists", new Uint8Array(lists.buffer)],
  ]);
}

/** The namespaces whose layout snapshot was staged and not finished. */
export function stagedLayoutSnapshots(sql: SqlStorage): string[] {
  return stagedNamespaces(sql, TABLES);
}

/** Deletes the namespace's layout snapshot, head first. */
export function dropLayoutSnapshot(sql: SqlStorage, namespace: string): void {
  dropSnapshotParts(sql, TABLES, namespace);
}

/**
 * The namespace's layout from its snapshot, when one stands for `stamp`; undefined otherwise (none,
 * stale, or not whole), and the caller reads the centroids.
 */
export function readLayoutSnapshot(
  sql: SqlStorage,
  namespace: string,
  stamp: number,
): ListLayout | undefined {
  const head = readSnapshotHead(sql, TABLES, namespace);
  if (!head || head.stamp !== stamp) return undefined;
  const parts = readSnapshotStreams(sql, TABLES, namespace);
  const joined = (stream: Stream) => parts.get(stream) ?? new Uint8Array(0);
  const columns = joined("columns");
  const lists = joined("lists");
  if (columns.byteLength !== head.lists * head.dims * 4 || lists.byteLength !== head.lists * 8)
    return undefined;
  return {
    stamp,
    dims: head.dims,
    lists: Array.from(new Float64Array(lists.buffer)),
    columns: new Float32Array(columns.buffer),
  };
}
