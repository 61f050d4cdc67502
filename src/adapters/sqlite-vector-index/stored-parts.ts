/**
 * Large byte strings stored across rows: a Durable Object's row holds at most 2 MB, so each named stream
 * of a namespace is cut into parts of at most PART_BYTES, one row each, and joined again when read. A
 * few large rows read in order cost far less than one row per vector or per list (decoded-snapshot.ts,
 * layout-snapshot.ts). The table is the caller's: each kind of snapshot keeps its parts apart, so
 * dropping one never touches the other.
 */

/** Bytes per stored part: under the 2 MB a row may hold. */
const PART_BYTES = 1_000_000;

/** The statement that makes a table of parts. */
export function partsSchema(table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (
    namespace TEXT NOT NULL,
    stream TEXT NOT NULL,
    part INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (namespace, stream, part)
  )`;
}

/** Stores each stream's bytes in parts (an empty stream as one empty part), over none: drop first. */
export function writeParts(
  sql: SqlStorage,
  table: string,
  namespace: string,
  streams: readonly (readonly [string, Uint8Array])[],
): void {
  for (const [stream, bytes] of streams) {
    for (let part = 0, at = 0; at < bytes.byteLength || part === 0; part++, at += PART_BYTES) {
      sql.exec(
        `INSERT INTO ${table} (namespace, stream, part, data) VALUES (?, ?, ?, ?)`,
        namespace,
        stream,
        part,
        bytes.slice(at, at + PART_BYTES).buffer,
      );
    }
  }
}

/** Each stored stream of the namespace, its parts joined in order. */
export function readParts(sql: SqlStorage, table: string, namespace: string): Map<string, Uint8Array> {
  const pieces = new Map<string, Uint8Array[]>();
  for (const row of sql.exec<{ stream: string; data: ArrayBuffer }>(
    `SELECT stream, data FROM ${table} WHERE namespace = ? ORDER BY stream, part`,
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

export function dropParts(sql: SqlStorage, table: string, namespace: string): void {
  sql.exec(`DELETE FROM ${table} WHERE namespace = ?`, namespace);
}
