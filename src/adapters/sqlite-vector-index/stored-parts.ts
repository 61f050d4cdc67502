/**
 * Snapshots stored as a few large rows. A Durable Object's row holds at most 2 MB, so each named stream
 * of a namespace's snapshot is cut into parts of at most PART_BYTES, one row each, and joined again when
 * read; a few large rows read in order cost far less than one row per vector or per list
 * (decoded-snapshot.ts, layout-snapshot.ts). A head row per namespace, written last, says what the parts
 * stand for (a version or a stamp, and their sizes): a write cut short leaves no head, which is never
 * read. Each kind of snapshot has its own tables, so dropping one never touches the other.
 *
 * A snapshot is stored a few parts at a time (`StagedParts`), so the object's owner can write a large
 * one over several turns and answer requests between them (storing 10,000 vectors whole took 177 ms in
 * one alarm, while a question arriving then waited). Its staging starts by deleting the head, so the
 * parts being written over are never read as the earlier snapshot, and records the namespace in the
 * kind's `staged` table until its head is written, so its writes are noted meanwhile (decoded-snapshot.ts)
 * and an instance started afresh knows a store was left half done.
 */

/** Bytes per stored part: under the 2 MB a row may hold. */
const PART_BYTES = 1_000_000;
/**
 * Bytes of a snapshot its owner writes a turn (`SqliteVectorIndex.snapshotTurn`), in parts, before it
 * lets requests in: 10,000 vectors of 384 dimensions are some 16 MB, which stored in one alarm held
 * the project index for 177 ms on a slow day, a question arriving then waiting for all of it.
 */
export const SNAPSHOT_BYTES_PER_TURN = 2_000_000;

/** A kind of snapshot's tables, and the integer columns of its head (besides the namespace). */
export interface SnapshotTables<Column extends string> {
  parts: string;
  heads: string;
  /** The namespaces whose snapshot is being staged: its parts partly written, its head not yet. */
  staged: string;
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
    `CREATE TABLE IF NOT EXISTS ${tables.staged} (namespace TEXT PRIMARY KEY)`,
  ];
}

/**
 * A snapshot of one namespace being stored over any earlier one, `write` by `write`: each writes its
 * streams' parts in order until it has written some number of bytes, and the one that writes the last
 * part deletes the earlier snapshot's surplus parts, then writes the head. A write that throws leaves
 * the parts it did not write to the next, and a stage whose namespace's snapshot was dropped meanwhile
 * (its `staged` mark gone: the namespace grew past what is stored so) ends without a head.
 */
export class StagedParts<Column extends string> {
  /** The parts still to write, the next last: each stream has at least one, empty when it is. */
  private readonly pending: { stream: string; part: number; bytes: Uint8Array; at: number }[] = [];
  private readonly partsOf = new Map<string, number>();
  /** Whether it has ended: `stored` says how. */
  done = false;
  /** Whether it ended with its head written. */
  stored = false;

  /**
   * Deletes the head and marks the namespace staged: from here until the head, nothing of it is read.
   * `streams` are read as each part is written; `beforeHead` runs in the turn that writes the head,
   * before it.
   */
  constructor(
    private readonly sql: SqlStorage,
    private readonly tables: SnapshotTables<Column>,
    readonly namespace: string,
    private readonly head: SnapshotHead<Column>,
    streams: readonly (readonly [string, Uint8Array])[],
    private readonly beforeHead: () => void = () => {},
  ) {
    sql.exec(`DELETE FROM ${tables.heads} WHERE namespace = ?`, namespace);
    sql.exec(`INSERT INTO ${tables.staged} (namespace) VALUES (?) ON CONFLICT DO NOTHING`, namespace);
    for (const [stream, bytes] of streams) {
      let part = 0;
      for (let at = 0; at < bytes.byteLength || part === 0; part++, at += PART_BYTES) {
        this.pending.push({ stream, part, bytes, at });
      }
      this.partsOf.set(stream, part);
    }
    this.pending.reverse();
  }

  /**
   * Writes parts while fewer than `budget` bytes are written (every part left when not given), and the
   * head after the last; the bytes written.
   */
  write(budget = Number.POSITIVE_INFINITY): number {
    const { sql, tables, namespace } = this;
    if (this.done) return 0;
    const staged = sql.exec(`SELECT 1 FROM ${tables.staged} WHERE namespace = ?`, namespace).toArray();
    if (staged.length === 0) {
      this.done = true;
      return 0;
    }
    let written = 0;
    while (written < budget && this.pending.length) {
      // Taken off the list only once written: a write that throws is tried again by the next call.
      const { stream, part, bytes, at } = this.pending.at(-1) as StagedParts<Column>["pending"][number];
      const data = bytes.slice(at, at + PART_BYTES);
      sql.exec(
        `INSERT INTO ${tables.parts} (namespace, stream, part, data) VALUES (?, ?, ?, ?)
           ON CONFLICT (namespace, stream, part) DO UPDATE SET data = excluded.data`,
        namespace,
        stream,
        part,
        data.buffer,
      );
      this.pending.pop();
      written += data.byteLength;
    }
    if (this.pending.length > 0) return written;
    // The earlier snapshot's parts past this one's, and its streams this one has not.
    sql.exec(
      `DELETE FROM ${tables.parts} WHERE namespace = ?1 AND part >= coalesce(
         (SELECT value ->> 1 FROM json_each(?2) WHERE value ->> 0 = stream), 0)`,
      namespace,
      JSON.stringify([...this.partsOf]),
    );
    this.beforeHead();
    const { columns } = tables;
    sql.exec(
      `INSERT INTO ${tables.heads} (namespace, ${columns.join(", ")}) VALUES (?${", ?".repeat(columns.length)})
         ON CONFLICT (namespace) DO UPDATE SET ${columns.map((column) => `${column} = excluded.${column}`).join(", ")}`,
      namespace,
      ...columns.map((column) => this.head[column]),
    );
    sql.exec(`DELETE FROM ${tables.staged} WHERE namespace = ?`, namespace);
    this.done = true;
    this.stored = true;
    return written;
  }
}

/** The namespaces whose snapshot of this kind was staged and not finished (by any instance). */
export function stagedNamespaces<Column extends string>(
  sql: SqlStorage,
  tables: SnapshotTables<Column>,
): string[] {
  return sql
    .exec<{ namespace: string }>(`SELECT namespace FROM ${tables.staged}`)
    .toArray()
    .map((row) => row.namespace);
}

/** Deletes the namespace's snapshot, head first, and any staging of one. */
export function dropSnapshotParts<Column extends string>(
  sql: SqlStorage,
  tables: SnapshotTables<Column>,
  namespace: string,
): void {
  sql.exec(`DELETE FROM ${tables.heads} WHERE namespace = ?`, namespace);
  sql.exec(`DELETE FROM ${tables.parts} WHERE namespace = ?`, namespace);
  sql.exec(`DELETE FROM ${tables.staged} WHERE namespace = ?`, namespace);
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
