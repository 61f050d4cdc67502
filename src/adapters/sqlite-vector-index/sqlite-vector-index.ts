import {
  checkQuery,
  checkRecord,
  VectorDimensionError,
  type VectorIndex,
  type VectorMatch,
  type VectorQueryOptions,
  type VectorRecord,
} from "../../ports/vector-index";
import { DECODED_LIMIT, type Decoded, drop, laidOut, place, settled } from "./decoded-copy";
import { checkMetadata, floats, norm } from "./encoding";
import { scoreDecoded, scoreRows } from "./scoring";
import {
  bumpVersion,
  countVectors,
  createTables,
  deleteVectors,
  readFiltered,
  readNamespace,
  readVersion,
  storedDimensions,
  writeVector,
} from "./storage";

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
    createTables(this.sql);
  }

  /** The index's dimension, or undefined while it is empty and none was configured. */
  dimensions(): number | undefined {
    if (this.configured !== undefined) return this.configured;
    return storedDimensions(this.sql);
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
    const before = new Map(namespaces.map((namespace) => [namespace, readVersion(this.sql, namespace)]));
    // Versions first: should a row write fail, the copies no longer match storage and are read again.
    const after = new Map(namespaces.map((namespace) => [namespace, bumpVersion(this.sql, namespace)]));
    for (const record of records) writeVector(this.sql, record, Float32Array.from(record.values));
    for (const namespace of namespaces) {
      const held = this.decoded.get(namespace);
      if (!held || held.version !== before.get(namespace) || held.dims !== expected) {
        this.decoded.delete(namespace);
        continue;
      }
      for (const record of records) if (record.namespace === namespace) place(held, record);
      this.decoded.set(namespace, settled(held, after.get(namespace) as number));
    }
  }

  /**
   * A namespace's vectors decoded once and reused while its version stands: reading and copying every
   * BLOB was most of an unfiltered query's cost. Undefined for a namespace too large to hold.
   */
  private decodedNamespace(namespace: string, dims: number): Decoded | undefined {
    const version = readVersion(this.sql, namespace);
    const held = this.decoded.get(namespace);
    if (held && held.version === version && held.dims === dims) return held;
    this.decoded.delete(namespace);
    if (countVectors(this.sql, namespace) > DECODED_LIMIT) return undefined;
    const rows = readNamespace(this.sql, namespace);
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
    if (held) return scoreDecoded(held, vector, queryNorm, options.topK);
    return scoreRows(
      readFiltered(this.sql, options.namespace, filter),
      vector,
      expected,
      queryNorm,
      options.topK,
    );
  }

  async deleteByIds(namespace: string, ids: string[]): Promise<void> {
    const unique = [...new Set(ids)];
    if (!unique.length) return;
    const before = readVersion(this.sql, namespace);
    // Versions first, as for upsert.
    const after = bumpVersion(this.sql, namespace);
    deleteVectors(this.sql, namespace, unique);
    // The held copy drops the same ids rather than being decoded afresh on the next query.
    const held = this.decoded.get(namespace);
    if (!held || held.version !== before) {
      this.decoded.delete(namespace);
      return;
    }
    for (const id of unique) drop(held, id);
    this.decoded.set(namespace, settled(held, after));
  }
}
