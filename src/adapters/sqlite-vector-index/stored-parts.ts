/**
 * Snapshots stored as a few large rows. A Durable Object's row holds at most 2 MB, so each named stream
 * of a namespace's snapshot is cut into parts of at most PART_BYTES, one row each, and joined again when
 * read; a few large rows read in order cost far less than one row per vector or per list
 * (decoded-snapshot.ts, layout-snapshot.ts). A head row per namespace, written last, says what the parts
 * stand for (a version or a stamp, and their sizes): a write cut short leaves no head, or the earlier
 * one, which no longer matches what it is checked against. Each kind of snapshot has its own two tables,
 * so dropping one never touches the other.
 */

/** Bytes per stored part: under the 2 MB a row may hold. */
const PART_BYTES = 1_000_000;

/** A kind of snapshot's tables, and the integer columns of its head (besides the namespace). */
export interface SnapshotTables<Column extends string> {
  parts: string;
  heads: string;
  columns: readonly Column[];
}

export type SnapshotHead<Column extends string> = Record<Column, number>;

/** The statements that make a kind of snapshot's tables. */
export function snapshotSchema<Column extends string>(tables: SnapshotTables<Column>): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${tables.parts} (
    namespace TEXT NOT NULL,
    stream TEXT NOT NULL,
    part INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (namespace, stream, part)
  )`,
    `CREATE TABLE IF NOT EXISTS ${tables.heads} (
    namespace TEXT PRIMARY KEY,
    ${tables.columns.map((column) => `${column} INTEGER NOT NULL`).join(",\n    ")}
  )`,
  ];
}

/** Stores a snapshot of the namespace over any earlier one: its streams in parts, then its head. */
export function writeSnapshotParts<Column extends string>(
  sql: SqlStorage,
  tables: SnapshotTables<Column>,
  namespace: string,
  head: SnapshotHead<Column>,
  streams: readonly (readonly [string, Uint8Array])[],
): void {
  dropSnapshotParts(sql, tables, namespace);
  for (const [stream, bytes] of streams) {
    for (let part = 0, at = 0; at < bytes.byteLength || part === 0; part++, at += PART_BYTES) {
      sql.exec(
        `INSERT INTO ${tables.parts} (namespace, stream, part, data) VALUES (?, ?, ?, ?)`,
        namespace,
        stream,
        part,
        bytes.slice(at, at + PART_BYTES).buffer,
      );
    }
  }
  const { columns } = tables;
  sql.exec(
    `INSERT INTO ${tables.heads} (namespace, ${columns.join(", ")}) VALUES (?${", ?".repeat(columns.length)})`,
    namespace,
    ...columns.map((column) => head[column]),
  );
}

/** Deletes the namespace's snapshot, head first. */
export function dropSnapshotParts<Column extends string>(
  sql: SqlStorage,
  tables: SnapshotTables<Column>,
  namespace: string,
): void {
  sql.exec(`DELETE FROM ${tables.heads} WHERE namespace = ?`, namespace);
  sql.exec(`DELETE FROM ${tables.parts} WHERE namespace = ?`, namespace);
}

/** The namespace's snapshot head, or undefined when it has none. */
export function readSnapshotHead<Column extends string>(
  sql: SqlStorage,
  tables: SnapshotTables<Column>,
  namespace: string,
): SnapshotHead<Column> | undefined {
  return sql
    .exec<SnapshotHead<Column>>(
      `SELECT ${tables.columns.join(", ")} FROM ${tables.heads} WHERE namespace = ?`,
      namespace,
    )
    .toArray()[0];
}

/** Each stored stream of the namespace's snapshot, its parts joined in order (read once its head is checked). */
export function readSnapshotStreams<Column extends string>(
  sql: SqlStorage,
  tables: SnapshotTables<Column>,
  namespace: string,
): Map<string, Uint8Array> {
  const pieces = new Map<string, Uint8Array[]>();
  for (const row of sql.exec<{ stream: string; data: ArrayBuffer }>(
    `SELECT stream, data FROM ${tables.parts} WHERE namespace = ? ORDER BY stream, part`,
    namespace,
  )) {
    const stream = pieces.get(row.stream) ?? [];
    stream.push(new Uint8Array(row.data));
    pieces.set(row.stream, stream);
  }
  const joined = new Map<string, Uint8Array>();
  for (const [stream, parts] of pieces) {
    const bytes = new Uint8Array(parts.reduce((sum, p) => sum + p.byteLength, 0));
    let at = 0;
    for (const part of parts) {
      bytes.set(part, at);
      at += part.byteLength;
    }
    joined.set(stream, bytes);
  }
  return joined;
}
