import {
  checkQuery,
  checkRecord,
  VectorDimensionError,
  type VectorIndex,
  VectorIndexInputError,
  type VectorMatch,
  type VectorQueryOptions,
  type VectorRecord,
} from "../ports/vector-index";

/**
 * The offline default VectorIndex: exact nearest-neighbour search over a Durable Object's own SQLite
 * storage (`ctx.storage.sql`). No network, no eventual consistency: a write is visible to the next
 * query, and the writes of one `upsert` commit together with whatever else the object writes in the
 * same synchronous turn.
 *
 * Storage: one row per (namespace, id) in `vector_index`, the values as Float32 bytes in a BLOB (4
 * bytes a dimension: 1.5 KiB at 384 dimensions, 3 KiB at 768), their L2 norm precomputed, metadata as
 * a JSON object of strings.
 *
 * Query: the namespace and the metadata equality filter are applied in SQL (metadata through
 * `json_each`, exact key and string value), then every remaining row is scored by cosine in
 * TypeScript, keeping the best `topK` (ties broken by id, so results are deterministic). Unfiltered
 * queries score a decoded copy of the namespace held in memory, valid while the namespace's version
 * (`vector_index_versions`) is the one the copy was made or last updated at. Every write sets a new
 * random version in the same transaction, and this instance's own upserts update its copy in place
 * and take that version: a write by any other instance over the same storage, or a rolled-back one,
 * leaves the stored version different from the copy's, and the next query decodes afresh.
 *
 * Scale: exact search reads every row of the namespace that passes the filter. It is meant for one
 * thread's items: up to a few thousand vectors, where a query costs about a millisecond (1,000 × 384
 * multiply-adds plus row decoding). Past some tens of thousands of vectors per namespace, use the
 * Vectorize adapter.
 *
 * Dimension: an index holds vectors of one dimension, the `dimensions` option or else that of the
 * vectors already stored; a record or query of another dimension throws `VectorDimensionError`, and a
 * rejected `upsert` writes nothing. Changing embedders therefore means deleting the old vectors first.
 */
export interface SqliteVectorIndexOptions {
  /** Fix the dimension up front; otherwise the first stored vector sets it. */
  dimensions?: number;
}

export const VECTOR_INDEX_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS vector_index (
    namespace TEXT NOT NULL,
    id TEXT NOT NULL,
    dims INTEGER NOT NULL,
    vec BLOB NOT NULL,
    norm REAL NOT NULL,
    metadata TEXT NOT NULL,
    PRIMARY KEY (namespace, id)
  )`,
  // Bumped by every write to a namespace, in the same transaction, so a decoded copy can be trusted.
  `CREATE TABLE IF NOT EXISTS vector_index_versions (namespace TEXT PRIMARY KEY, version INTEGER NOT NULL)`,
];

/** Namespaces up to this many vectors are kept decoded in memory between unfiltered queries (6 MiB at 4,000 × 384). */
const DECODED_LIMIT = 20_000;

interface Decoded {
  version: number;
  dims: number;
  ids: string[];
  norms: Float64Array;
  metadata: string[];
  /**
   * Dimension-major: dimension d of row r at `d * ids.length + r`. A sparse query then reads one
   * contiguous run of rows per non-zero dimension instead of a scattered slot in every vector.
   */
  columns: Float32Array;
  /** Vectors this instance added since the columns were laid out, scored row by row. */
  added: { id: string; values: Float32Array; norm: number; metadata: string }[];
  /** Where each id is: a row of the columns (n ≥ 0), or entry -n - 1 of `added`. */
  rowOf: Map<string, number>;
  /** Rows of the columns deleted since they were laid out (1), skipped by queries until the next fold. */
  dropped: Uint8Array;
  droppedCount: number;
}

/** Added vectors are folded into the columns once there are this many, or an eighth of the rows. */
const ADDED_FOLD = 256;

/** Ids per DELETE statement, well under SQLite's bound-parameter limit. */
const DELETE_CHUNK = 50;

type Row = { id: string; vec: ArrayBuffer; norm: number; metadata: string };

export class SqliteVectorIndex implements VectorIndex {
  private readonly configured: number | undefined;
  private readonly decoded = new Map<string, Decoded>();

  constructor(
    private readonly sql: SqlStorage,
    options: SqliteVectorIndexOptions = {},
  ) {
    if (
      options.dimensions !== undefined &&
      (!Number.isInteger(options.dimensions) || options.dimensions < 1)
    ) {
      throw new RangeError(`dimensions must be a positive integer, got ${options.dimensions}`);
    }
    this.configured = options.dimensions;
    for (const statement of VECTOR_INDEX_SCHEMA) this.sql.exec(statement);
  }

  /** The index's dimension, or undefined while it is empty and none was configured. */
  dimensions(): number | undefined {
    if (this.configured !== undefined) return this.configured;
    return this.sql.exec<{ dims: number }>("SELECT dims FROM vector_index LIMIT 1").toArray()[0]?.dims;
  }

  async upsert(records: VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    const expected = this.dimensions() ?? records[0]?.values.length ?? 0;
    // Everything is checked before anything is written, so a rejected batch leaves no trace.
    for (const record of records) {
      checkRecord(record);
      if (record.values.length !== expected) {
        throw new VectorDimensionError(expected, record.values.length, `vector '${record.id}'`);
      }
      checkMetadata(record.metadata, `metadata of vector '${record.id}'`);
    }
    const namespaces = [...new Set(records.map((r) => r.namespace))];
    const before = new Map(namespaces.map((namespace) => [namespace, this.version(namespace)]));
    // Versions first: should a row write fail, the copies no longer match storage and are read again.
    const after = new Map(namespaces.map((namespace) => [namespace, this.bump(namespace)]));
    for (const record of records) {
      const values = Float32Array.from(record.values);
      this.sql.exec(
        `INSERT INTO vector_index (namespace, id, dims, vec, norm, metadata) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (namespace, id) DO UPDATE SET
           dims = excluded.dims, vec = excluded.vec, norm = excluded.norm, metadata = excluded.metadata`,
        record.namespace,
        record.id,
        values.length,
        values.buffer,
        norm(values),
        JSON.stringify(record.metadata),
      );
    }
    for (const namespace of namespaces) {
      const held = this.decoded.get(namespace);
      if (!held || held.version !== before.get(namespace) || held.dims !== expected) {
        this.decoded.delete(namespace);
        continue;
      }
      for (const record of records) if (record.namespace === namespace) place(held, record);
      this.settle(namespace, held, after.get(namespace) as number);
    }
  }

  /** The copy brought to a write's version, folded once its additions or deletions pile up. */
  private settle(namespace: string, held: Decoded, version: number): void {
    held.version = version;
    const pile = Math.max(ADDED_FOLD, held.ids.length / 8);
    if (held.added.length >= pile || held.droppedCount >= pile) this.decoded.set(namespace, folded(held));
  }

  /**
   * A new random version for the namespace, not a counter: a copy updated to version n by a write that
   * was then rolled back must not match a later, different write that also reaches n.
   */
  private bump(namespace: string): number {
    const [high, low] = crypto.getRandomValues(new Uint32Array(2)) as unknown as [number, number];
    const version = (high & 0x1fffff) * 2 ** 32 + low;
    this.sql.exec(
      `INSERT INTO vector_index_versions (namespace, version) VALUES (?, ?)
       ON CONFLICT (namespace) DO UPDATE SET version = excluded.version`,
      namespace,
      version,
    );
    return version;
  }

  private version(namespace: string): number {
    return (
      this.sql
        .exec<{ version: number }>("SELECT version FROM vector_index_versions WHERE namespace = ?", namespace)
        .toArray()[0]?.version ?? 0
    );
  }

  /**
   * A namespace's vectors decoded once and reused while its version stands: reading and copying every
   * BLOB was most of an unfiltered query's cost. Undefined for a namespace too large to hold.
   */
  private decodedNamespace(namespace: string, dims: number): Decoded | undefined {
    const version = this.version(namespace);
    const held = this.decoded.get(namespace);
    if (held && held.version === version && held.dims === dims) return held;
    this.decoded.delete(namespace);
    const stored = this.sql
      .exec<{ n: number }>("SELECT count(*) AS n FROM vector_index WHERE namespace = ?", namespace)
      .one().n;
    if (stored > DECODED_LIMIT) return undefined;
    const rows = this.sql
      .exec<Row>("SELECT id, vec, norm, metadata FROM vector_index WHERE namespace = ?", namespace)
      .toArray();
    const decoded = laidOut(
      version,
      dims,
      rows.map((row) => ({
        id: row.id,
        values: floats(row.vec, dims, row.id),
        norm: row.norm,
        metadata: row.metadata,
      })),
    );
    this.decoded.set(namespace, decoded);
    return decoded;
  }

  async query(vector: number[], options: VectorQueryOptions): Promise<VectorMatch[]> {
    checkQuery(vector, options);
    const filter = Object.entries(options.filter ?? {});
    checkMetadata(Object.fromEntries(filter), "filter");
    const expected = this.dimensions();
    if (expected === undefined) return [];
    if (vector.length !== expected) throw new VectorDimensionError(expected, vector.length, "query vector");

    const queryNorm = norm(vector);
    const held = filter.length === 0 ? this.decodedNamespace(options.namespace, expected) : undefined;
    if (held) {
      // Scores equal the storage path's bit for bit: see columnDots.
      const { columns, ids, norms } = held;
      const count = ids.length;
      const dots = columnDots(vector, columns, count);
      const best = new TopK(options.topK);
      const { dropped } = held;
      for (let row = 0; row < count; row++) {
        if (dropped[row]) continue;
        best.offer(ids[row] as string, cosine(dots[row] as number, queryNorm, norms[row] as number), row);
      }
      if (held.added.length) {
        const nonZero = vector.flatMap((weight, d) => (weight === 0 ? [] : [d]));
        for (const [i, entry] of held.added.entries()) {
          // The same products added in the same (dimension) order as the columns' loop.
          let dot = 0;
          for (const d of nonZero) dot += (vector[d] as number) * (entry.values[d] as number);
          best.offer(entry.id, cosine(dot, queryNorm, entry.norm), -i - 1);
        }
      }
      return best.entries().map(({ id, score, at }) => ({
        id,
        score,
        metadata: JSON.parse(
          at >= 0 ? (held.metadata[at] as string) : (held.added[-at - 1] as Entry).metadata,
        ),
      }));
    }

    const clauses = filter.map(
      () => "EXISTS (SELECT 1 FROM json_each(vector_index.metadata) AS m WHERE m.key = ? AND m.value = ?)",
    );
    const cursor = this.sql.exec<Row>(
      `SELECT id, vec, norm, metadata FROM vector_index WHERE namespace = ?${clauses.map((c) => ` AND ${c}`).join("")}`,
      options.namespace,
      ...filter.flat(),
    );

    const best = new TopK(options.topK);
    const metadata: string[] = [];
    for (const row of cursor) {
      const values = floats(row.vec, expected, row.id);
      let dot = 0;
      for (let i = 0; i < expected; i++) dot += (vector[i] as number) * (values[i] as number);
      best.offer(row.id, cosine(dot, queryNorm, row.norm), metadata.push(row.metadata) - 1);
    }
    return best
      .entries()
      .map(({ id, score, at }) => ({ id, score, metadata: JSON.parse(metadata[at] as string) }));
  }

  async deleteByIds(namespace: string, ids: string[]): Promise<void> {
    const unique = [...new Set(ids)];
    if (!unique.length) return;
    const before = this.version(namespace);
    // Versions first, as for upsert.
    const after = this.bump(namespace);
    for (let start = 0; start < unique.length; start += DELETE_CHUNK) {
      const chunk = unique.slice(start, start + DELETE_CHUNK);
      this.sql.exec(
        `DELETE FROM vector_index WHERE namespace = ? AND id IN (${chunk.map(() => "?").join(", ")})`,
        namespace,
        ...chunk,
      );
    }
    // The held copy drops the same ids rather than being decoded afresh on the next query.
    const held = this.decoded.get(namespace);
    if (!held || held.version !== before) {
      this.decoded.delete(namespace);
      return;
    }
    for (const id of unique) drop(held, id);
    this.settle(namespace, held, after);
  }
}

interface Entry {
  id: string;
  values: Float32Array;
  norm: number;
  metadata: string;
}

function laidOut(version: number, dims: number, entries: Entry[]): Decoded {
  const count = entries.length;
  const decoded: Decoded = {
    version,
    dims,
    ids: entries.map((e) => e.id),
    norms: Float64Array.from(entries, (e) => e.norm),
    metadata: entries.map((e) => e.metadata),
    columns: new Float32Array(count * dims),
    added: [],
    rowOf: new Map(entries.map((e, i) => [e.id, i])),
    dropped: new Uint8Array(count),
    droppedCount: 0,
  };
  entries.forEach((entry, i) => {
    for (let d = 0; d < dims; d++) decoded.columns[d * count + i] = entry.values[d] as number;
  });
  return decoded;
}

/** The copy with its added vectors laid into the columns and its dropped rows left out. */
function folded(held: Decoded): Decoded {
  const count = held.ids.length;
  const entries: Entry[] = held.ids.flatMap((id, row) =>
    held.dropped[row]
      ? []
      : [
          {
            id,
            values: Float32Array.from(
              { length: held.dims },
              (_, d) => held.columns[d * count + row] as number,
            ),
            norm: held.norms[row] as number,
            metadata: held.metadata[row] as string,
          },
        ],
  );
  return laidOut(held.version, held.dims, [...entries, ...held.added]);
}

/** Removes one deleted id from the copy: its row is marked dropped, or its added entry taken out. */
function drop(held: Decoded, id: string): void {
  const at = held.rowOf.get(id);
  if (at === undefined) return;
  held.rowOf.delete(id);
  if (at >= 0) {
    held.dropped[at] = 1;
    held.droppedCount++;
    return;
  }
  const index = -at - 1;
  held.added.splice(index, 1);
  // Added entries after it moved up by one.
  for (let i = index; i < held.added.length; i++) held.rowOf.set((held.added[i] as Entry).id, -i - 1);
}

/** Writes one upserted record into the copy: over its row when held, else as an added vector. */
function place(held: Decoded, record: VectorRecord): void {
  const entry: Entry = {
    id: record.id,
    values: Float32Array.from(record.values),
    norm: 0,
    metadata: JSON.stringify(record.metadata),
  };
  entry.norm = norm(entry.values);
  const at = held.rowOf.get(record.id);
  if (at === undefined) {
    held.rowOf.set(record.id, -held.added.length - 1);
    held.added.push(entry);
  } else if (at < 0) {
    held.added[-at - 1] = entry;
  } else {
    const count = held.ids.length;
    for (let d = 0; d < held.dims; d++) held.columns[d * count + at] = entry.values[d] as number;
    held.norms[at] = entry.norm;
    held.metadata[at] = entry.metadata;
  }
}

function norm(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += (values[i] as number) ** 2;
  return Math.sqrt(sum);
}

function floats(blob: ArrayBuffer | ArrayBufferView, dims: number, id: string): Float32Array {
  const bytes =
    blob instanceof ArrayBuffer
      ? new Uint8Array(blob)
      : new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength);
  if (bytes.byteLength !== dims * 4) {
    throw new Error(`stored vector '${id}' has ${bytes.byteLength} bytes, expected ${dims * 4}`);
  }
  // Copy when the bytes are not 4-aligned, as a Float32Array view requires.
  return bytes.byteOffset % 4 === 0
    ? new Float32Array(bytes.buffer, bytes.byteOffset, dims)
    : new Float32Array(bytes.slice().buffer);
}

/** Cosine from a dot product and both norms, clamped to [-1, 1]; 0 against a zero vector. */
function cosine(dot: number, queryNorm: number, rowNorm: number): number {
  const denominator = queryNorm * rowNorm;
  return denominator > 0 ? Math.max(-1, Math.min(1, dot / denominator)) : 0;
}

/**
 * Each row's dot product with the query over dimension-major columns. Only the query's non-zero
 * dimensions contribute: hashed text vectors are sparse (a short query touches a fraction of the slots).
 * Each row adds the same products in the same (dimension) order as the row-by-row loop, so each dot
 * is the same number; four dimensions are added per pass over the rows (in order, into one running sum)
 * so the sums are read and written a quarter as often.
 */
function columnDots(vector: readonly number[], columns: Float32Array, count: number): Float64Array {
  const dots = new Float64Array(count);
  const nonZero = vector.flatMap((weight, d) => (weight === 0 ? [] : [d]));
  let k = 0;
  for (; k + 4 <= nonZero.length; k += 4) {
    const [d0, d1, d2, d3] = nonZero.slice(k, k + 4) as [number, number, number, number];
    const w0 = vector[d0] as number;
    const w1 = vector[d1] as number;
    const w2 = vector[d2] as number;
    const w3 = vector[d3] as number;
    const c0 = columns.subarray(d0 * count, d0 * count + count);
    const c1 = columns.subarray(d1 * count, d1 * count + count);
    const c2 = columns.subarray(d2 * count, d2 * count + count);
    const c3 = columns.subarray(d3 * count, d3 * count + count);
    for (let row = 0; row < count; row++) {
      let dot = dots[row] as number;
      dot += w0 * (c0[row] as number);
      dot += w1 * (c1[row] as number);
      dot += w2 * (c2[row] as number);
      dot += w3 * (c3[row] as number);
      dots[row] = dot;
    }
  }
  for (; k < nonZero.length; k++) {
    const d = nonZero[k] as number;
    const w = vector[d] as number;
    const c = columns.subarray(d * count, d * count + count);
    for (let row = 0; row < count; row++) dots[row] = (dots[row] as number) + w * (c[row] as number);
  }
  return dots;
}

/**
 * The best `limit` offers by score descending, then id, each with a caller's tag. An offer that cannot
 * enter is refused by two comparisons, with nothing allocated: most rows of a query are refused.
 */
class TopK {
  private readonly kept: { id: string; score: number; at: number }[] = [];

  constructor(private readonly limit: number) {}

  offer(id: string, score: number, at: number): void {
    const kept = this.kept;
    if (kept.length >= this.limit) {
      const last = kept[kept.length - 1] as { id: string; score: number };
      if (score < last.score || (score === last.score && id >= last.id)) return;
    }
    // Binary search for the first kept entry this one goes before.
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = kept[mid] as { id: string; score: number };
      if (score > other.score || (score === other.score && id < other.id)) high = mid;
      else low = mid + 1;
    }
    kept.splice(low, 0, { id, score, at });
    if (kept.length > this.limit) kept.pop();
  }

  entries(): readonly { id: string; score: number; at: number }[] {
    return this.kept;
  }
}

function checkMetadata(metadata: Record<string, unknown>, what: string): void {
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value !== "string") throw new VectorIndexInputError(`${what}: '${key}' must be a string`);
  }
}
