import { type Decoded, laidOutColumns } from "./decoded-copy";

/**
 * A namespace's decoded copy stored whole, so an object that starts cold reads it in a few large rows
 * instead of one row per vector, and already laid out by dimension (measured in Node over 10,000
 * vectors of 384 dimensions: some 60–110 ms to read the rows and 30–40 to lay them out, against 12–15
 * to read the same values in parts). It stands for the namespace at the version it was written at
 * and is read only while the namespace is still at that version: any write since makes it stale, and
 * the copy is decoded from the rows as before. Writing one is the owner's call, off the write path
 * (`SqliteVectorIndex.snapshotStale`): the project index writes it once its writes have gone quiet.
 *
 * Three streams, each cut into parts of at most PART_BYTES (a Durable Object's row holds at most 2 MB):
 * the columns (Float32 bytes), the norms (Float64 bytes) and the labels (UTF-8 JSON of the ids and the
 * metadata strings). The head row, written last, names the version, the dimension and the count; a
 * write cut short leaves no head, or the earlier one, whose version no longer matches.
 */
export const SNAPSHOT_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS vector_snapshot_parts (
    namespace TEXT NOT NULL,
    stream TEXT NOT NULL,
    part INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (namespace, stream, part)
  )`,
  `CREATE TABLE IF NOT EXISTS vector_snapshot_heads (
    namespace TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    dims INTEGER NOT NULL,
    count INTEGER NOT NULL
  )`,
];

/** Bytes per stored part: under the 2 MB a row may hold. */
const PART_BYTES = 1_000_000;

type Stream = "columns" | "norms" | "labels";

/** The stored snapshot's version, or undefined when the namespace has none. */
export function snapshotVersion(sql: SqlStorage, namespace: string): number | undefined {
  return sql
    .exec<{ version: number }>("SELECT version FROM vector_snapshot_heads WHERE namespace = ?", namespace)
    .toArray()[0]?.version;
}

/** Stores `copy` (laid out: nothing added or dropped) as the namespace's snapshot, over any earlier one. */
export function writeSnapshot(sql: SqlStorage, namespace: string, copy: Decoded): void {
  dropSnapshot(sql, namespace);
  const streams: [Stream, Uint8Array][] = [
    ["columns", new Uint8Array(copy.columns.buffer, copy.columns.byteOffset, copy.columns.byteLength)],
    ["norms", new Uint8Array(copy.norms.buffer, copy.norms.byteOffset, copy.norms.byteLength)],
    ["labels", new TextEncoder().encode(JSON.stringify([copy.ids, copy.metadata]))],
  ];
  for (const [stream, bytes] of streams) {
    for (let part = 0, at = 0; at < bytes.byteLength || part === 0; part++, at += PART_BYTES) {
      sql.exec(
        "INSERT INTO vector_snapshot_parts (namespace, stream, part, data) VALUES (?, ?, ?, ?)",
        namespace,
        stream,
        part,
        bytes.slice(at, at + PART_BYTES).buffer,
      );
    }
  }
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
  sql.exec("DELETE FROM vector_snapshot_parts WHERE namespace = ?", namespace);
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
  const parts = new Map<Stream, Uint8Array[]>();
  for (const row of sql.exec<{ stream: Stream; data: ArrayBuffer }>(
    "SELECT stream, data FROM vector_snapshot_parts WHERE namespace = ? ORDER BY stream, part",
    namespace,
  )) {
    const stream = parts.get(row.stream) ?? [];
    stream.push(new Uint8Array(row.data));
    parts.set(row.stream, stream);
  }
  const joined = (stream: Stream) => {
    const pieces = parts.get(stream) ?? [];
    const bytes = new Uint8Array(pieces.reduce((sum, p) => sum + p.byteLength, 0));
    let at = 0;
    for (const piece of pieces) {
      bytes.set(piece, at);
      at += piece.byteLength;
    }
    return bytes;
  };
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
