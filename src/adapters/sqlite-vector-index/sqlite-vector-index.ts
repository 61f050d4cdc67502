import {
  atLeast,
  checkQuery,
  checkRecord,
  VectorDimensionError,
  type VectorIndex,
  type VectorMatch,
  type VectorQueryOptions,
  type VectorRecord,
} from "../../ports/vector-index";
import {
  compacted,
  DECODED_LIMIT,
  type Decoded,
  drop,
  heldCount,
  laidOut,
  place,
  placeEntry,
  settled,
} from "./decoded-copy";
import {
  dropSnapshot,
  noteChanged,
  readSnapshot,
  snapshotDue,
  stagedSnapshots,
  stageSnapshot,
} from "./decoded-snapshot";
import { checkMetadata, floats, norm } from "./encoding";
import { DEFAULT_LIST_SETTINGS, InvertedLists, type ListSettings } from "./inverted-lists";
import { codeOf } from "./list-codes";
import type { ListLayout } from "./list-layout";
import { readPlacedRows } from "./list-storage";
import { scoreDecoded, scoreRows } from "./scoring";
import {
  bumpVersion,
  countVectors,
  createTables,
  deleteVectors,
  readFiltered,
  readNamespace,
  readVersion,
  readVersions,
  storedDimensions,
  writeVector,
} from "./storage";
import type { StagedParts } from "./stored-parts";

/**
 * The offline default VectorIndex: nearest-neighbour search over a Durable Object's own SQLite storage
 * (`ctx.storage.sql`), exact for small namespaces and filtered queries, approximate (inverted lists)
 * for large namespaces. No network, no eventual consistency: a write is visible to the next query, and
 * the writes of one `upsert` commit together with whatever else the object writes in the same
 * synchronous turn.
 *
 * Storage: one row per (namespace, id) in `vector_index`, the values as Float32 bytes in a BLOB (4
 * bytes a dimension: 1.5 KiB at 384 dimensions, 3 KiB at 768), their L2 norm precomputed, metadata as
 * a JSON object of strings, the vector's inverted list and whether it is in the list's pack; the
 * lists' centroids and packs in tables of their own (list-storage.ts): about a fifth more storage.
 *
 * Exact: a query with a metadata filter (namespace and filter applied in SQL, metadata through
 * `json_each`, exact key and string value; every remaining row scored), and every query of a namespace
 * of up to 20,000 vectors (DECODED_LIMIT). Rows are scored by cosine in TypeScript, keeping the best
 * `topK` (ties broken by id, so results are deterministic). Unfiltered queries score a decoded copy of
 * the namespace held in memory, valid while the namespace's version (`vector_index_versions`) is the
 * one the copy was made or last updated at. Every write sets a new random version in the same
 * transaction, and this instance's own upserts update its copy in place and take that version (or, for
 * a namespace it has been asked about but holds no copy of, decode one): a write by any other instance
 * over the same storage, or a rolled-back one, leaves the stored version different from the copy's, and
 * the next query decodes afresh. A 20,000 × 384 copy takes 30 MiB and a
 * query over it a few milliseconds. A namespace past 20,000 is never held decoded; searched exactly
 * (filtered, or before it has lists) a query reads every BLOB that passes the filter: about 2.6 to 4 µs
 * a row, 260 to 400 ms at 100,000.
 *
 * Approximate: an unfiltered query of a namespace of more than 20,000 vectors, once it has inverted
 * lists (inverted-lists.ts), reads only the lists whose centroids are nearest the query: 10 of them, of
 * at most 512 vectors each, as packs of byte codes, one row a list, plus the codes of the vectors
 * written since each was packed (kept in their rows, read from one index) and any vector not yet in a
 * list; the best by code are scored again from their stored values, best bound first, until none left
 * can enter the answer (with a `minScore`, only those whose code can reach it). Returned scores are
 * therefore exact;
 * what is approximate is the candidate set: a vector in a list not read, or ranked out by its code, can
 * be missed. At 100,000 hashed chat messages (`npm run bench:vectors`) a query takes about 3 ms of CPU
 * at top 10 and 4 ms at top 100 instead of 400 ms, with recall@10 against exact search about 0.99, holding nothing in memory between queries but the centroids (0.5 MiB at 340
 * lists). The lists are built and kept on the write path (training once at 4,096 vectors, assignment
 * of each written vector, splits of lists grown too long, packing) and stored in SQLite, so a
 * restarted object uses them as they are.
 *
 * Dimension: an index holds vectors of one dimension, the `dimensions` option or else that of the
 * vectors already stored; a record or query of another dimension throws `VectorDimensionError`, and a
 * rejected `upsert` writes nothing. Changing embedders therefore means deleting the old vectors first.
 */
export interface SqliteVectorIndexOptions {
  /** Fix the dimension up front; otherwise the first stored vector sets it. */
  dimensions?: number;
  /**
   * When and how large namespaces are searched through inverted lists (positive integers; tests and
   * benches lower the bounds, Number.MAX_SAFE_INTEGER switches lists off).
   */
  lists?: Partial<ListSettings>;
  /**
   * Decode every namespace on its writes too, not only on its first query: a write that finds no copy
   * held reads one (the write path pays), later writes keep it up in place. For an object whose reads
   * must not pay for its writes: the project index, whose first compile after a bulk import otherwise
   * decoded every fact's vector (132 of its 143 ms at 10,000 facts). Without it, only the namespaces
   * this instance has been asked about are decoded on their writes (see `asked`).
   */
  decodeOnWrite?: boolean;
}

export class SqliteVectorIndex implements VectorIndex {
  private readonly configured: number | undefined;
  private readonly decodeOnWrite: boolean;
  private readonly decoded = new Map<string, Decoded>();
  /**
   * The namespaces an unfiltered query has asked about since the instance started: their writes decode
   * them as `decodeOnWrite` does. A namespace first asked about while it held nothing (a thread's
   * messages, compiled before a bulk import's vectors are written) is otherwise decoded whole by the
   * first query after its writes, in that query; a namespace nobody asks about is never held.
   */
  private readonly asked = new Set<string>();
  private readonly lists: InvertedLists;
  /** Each namespace's size (counted up to the largest bound that matters) at the version it was counted. */
  private readonly sizes = new Map<string, { version: number; size: number }>();
  /** The snapshot being stored a few parts a turn (`snapshotTurn`), and the namespaces to check after it. */
  private storing: StagedParts<string> | undefined;
  private unchecked: string[] = [];
  /** The ids upserted into the held copy whose arrays a decoded snapshot is being stored from. */
  private readonly writtenWhileStaged = new Set<string>();

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
    this.decodeOnWrite = options.decodeOnWrite ?? false;
    createTables(this.sql);
    const lists = { ...DEFAULT_LIST_SETTINGS, ...options.lists };
    for (const [name, value] of Object.entries(lists)) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(`lists.${name} must be a positive safe integer, got ${value}`);
      }
    }
    this.lists = new InvertedLists(this.sql, lists);
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
    // Notes and versions first: should a row write fail, the snapshots' notes hold every row written,
    // and the copies no longer match storage and are read again.
    for (const namespace of namespaces) {
      const ids = records.filter((r) => r.namespace === namespace).map((r) => r.id);
      noteChanged(this.sql, namespace, before.get(namespace) as number, ids);
    }
    const after = new Map(namespaces.map((namespace) => [namespace, bumpVersion(this.sql, namespace)]));
    this.writeRows(records, namespaces, expected);
    for (const namespace of namespaces) {
      // An upsert never shrinks a namespace: one counted past every bound stays past them, uncounted.
      const counted = this.sizes.get(namespace);
      if (counted && counted.version === before.get(namespace) && counted.size >= this.sizeBound()) {
        this.sizes.set(namespace, { version: after.get(namespace) as number, size: counted.size });
      }
      const held = this.decoded.get(namespace);
      if (held && held.version === before.get(namespace) && held.dims === expected) {
        const staged = this.storing?.namespace === namespace;
        for (const record of records) {
          if (record.namespace !== namespace) continue;
          place(held, record);
          if (staged) this.writtenWhileStaged.add(record.id);
        }
        const current = settled(held, after.get(namespace) as number);
        // A copy that grew past the limit is let go, as the next query would, and its snapshot with it.
        if (heldCount(current) > DECODED_LIMIT) {
          this.decoded.delete(namespace);
          dropSnapshot(this.sql, namespace);
        } else this.keep(namespace, current);
        continue;
      }
      this.decoded.delete(namespace);
      const version = after.get(namespace) as number;
      // No copy to update: one is decoded with this write in it (from the snapshot and the ids noted
      // since, this write's among them, where it has one it can read).
      const decodeHere = this.decodeOnWrite || this.asked.has(namespace);
      if (decodeHere && this.searchedBy(namespace, expected, version) === "decoded") {
        this.decoded.set(namespace, this.decode(namespace, expected, version));
      }
    }
  }

  /** Writes the records' rows, each in its list where its namespace has lists, then keeps the lists up. */
  private writeRows(records: VectorRecord[], namespaces: string[], dims: number): void {
    const layouts = new Map(namespaces.map((namespace) => [namespace, this.lists.layout(namespace, dims)]));
    const touched = new Map(namespaces.map((namespace) => [namespace, new Set<number>()]));
    for (const record of records) {
      const values = Float32Array.from(record.values);
      const valuesNorm = norm(values);
      const list = this.lists.listOf(layouts.get(record.namespace), values);
      if (list !== null) touched.get(record.namespace)?.add(list);
      const placed = list === null ? null : { list, code: codeOf(values, valuesNorm, dims) };
      writeVector(this.sql, record, values, valuesNorm, placed);
    }
    for (const namespace of namespaces)
      this.lists.keepUp(namespace, dims, touched.get(namespace) as Set<number>);
  }

  /**
   * How an unfiltered query searches the namespace at `version`: through its inverted lists once it is
   * large enough to have them, from its decoded copy up to DECODED_LIMIT vectors, else by reading every
   * row (never held decoded: memory stays bounded whatever its size).
   */
  private searchedBy(namespace: string, dims: number, version: number): ListLayout | "decoded" | "scan" {
    const size = this.sizeOf(namespace, version);
    const layout =
      size > this.lists.settings.approximateAbove ? this.lists.layout(namespace, dims) : undefined;
    return layout ?? (size > DECODED_LIMIT ? "scan" : "decoded");
  }

  /**
   * A namespace's vectors decoded once and reused while its version stands: reading and copying every
   * BLOB was most of an unfiltered query's cost.
   */
  private decodedNamespace(namespace: string, dims: number, version: number): Decoded {
    const held = this.decoded.get(namespace);
    if (held && held.version === version && held.dims === dims) return held;
    const decoded = this.decode(namespace, dims, version);
    this.decoded.set(namespace, decoded);
    return decoded;
  }

  /** The namespace's copy at `version`, from its snapshot where it has one to read, else from its rows; not held. */
  private decode(namespace: string, dims: number, version: number): Decoded {
    return this.fromSnapshot(namespace, dims, version) ?? this.fromRows(namespace, dims, version);
  }

  /**
   * The namespace's copy at `version` from its snapshot, with the rows of the ids noted since applied
   * to it (an id without a row was deleted); undefined when it has no snapshot to read (decoded-snapshot.ts).
   */
  private fromSnapshot(namespace: string, dims: number, version: number): Decoded | undefined {
    const stored = readSnapshot(this.sql, namespace, dims);
    if (!stored) return undefined;
    const { copy, changed } = stored;
    if (changed.length === 0) return copy.version === version ? copy : undefined;
    const rows = new Map(readPlacedRows(this.sql, namespace, changed).map((row) => [row.id, row]));
    for (const id of changed) {
      const row = rows.get(id);
      if (!row) drop(copy, id);
      else
        placeEntry(copy, { id, values: floats(row.vec, dims, id), norm: row.norm, metadata: row.metadata });
    }
    return settled(copy, version);
  }

  /** The namespace's copy decoded from its rows, one per vector; not held. */
  private fromRows(namespace: string, dims: number, version: number): Decoded {
    const rows = readNamespace(this.sql, namespace);
    return laidOut(
      version,
      dims,
      rows.map((row) => ({
        id: row.id,
        values: floats(row.vec, dims, row.id),
        norm: row.norm,
        metadata: row.metadata,
      })),
    );
  }

  /** How far a namespace is counted: one past the larger of the two sizes that choose its search. */
  private sizeBound(): number {
    return Math.min(
      Math.max(DECODED_LIMIT, this.lists.settings.approximateAbove) + 1,
      Number.MAX_SAFE_INTEGER,
    );
  }

  /** The namespace's size at `version`, exact up to one past the larger of the two size bounds. */
  private sizeOf(namespace: string, version: number): number {
    const known = this.sizes.get(namespace);
    if (known?.version === version) return known.size;
    const size = countVectors(this.sql, namespace, this.sizeBound());
    this.sizes.set(namespace, { version, size });
    return size;
  }

  async query(vector: number[], options: VectorQueryOptions): Promise<VectorMatch[]> {
    checkQuery(vector, options);
    const filter = Object.entries(options.filter ?? {});
    checkMetadata(Object.fromEntries(filter), "filter");
    const expected = this.dimensions();
    if (expected !== undefined && vector.length !== expected) {
      throw new VectorDimensionError(expected, vector.length, "query vector");
    }
    // A query refused above asked about nothing.
    if (filter.length === 0) this.asked.add(options.namespace);
    if (expected === undefined) return [];

    const { namespace, topK, minScore } = options;
    const queryNorm = norm(vector);
    const exactScan = () =>
      scoreRows(readFiltered(this.sql, namespace, filter), vector, expected, queryNorm, topK);
    if (filter.length > 0) return atLeast(exactScan(), minScore);
    const version = readVersion(this.sql, namespace);
    const path = this.searchedBy(namespace, expected, version);
    if (path !== "decoded") {
      this.decoded.delete(namespace);
      if (path === "scan") return atLeast(exactScan(), minScore);
      const candidates = this.lists.candidates(namespace, path, vector, topK, minScore);
      return atLeast(scoreRows(candidates, vector, expected, queryNorm, topK), minScore);
    }
    return atLeast(
      scoreDecoded(this.decodedNamespace(namespace, expected, version), vector, queryNorm, topK),
      minScore,
    );
  }

  async deleteByIds(namespace: string, ids: string[]): Promise<void> {
    const unique = [...new Set(ids)];
    if (!unique.length) return;
    const before = readVersion(this.sql, namespace);
    // Notes and versions first, as for upsert.
    noteChanged(this.sql, namespace, before, unique);
    const after = bumpVersion(this.sql, namespace);
    deleteVectors(this.sql, namespace, unique);
    // The held copy drops the same ids rather than being decoded afresh on the next query.
    const held = this.decoded.get(namespace);
    if (!held || held.version !== before) {
      this.decoded.delete(namespace);
      return;
    }
    for (const id of unique) drop(held, id);
    this.keep(namespace, settled(held, after));
  }

  /**
   * Stores the decoded copy of every namespace searched from one (DECODED_LIMIT vectors or fewer) as its
   * snapshot (decoded-snapshot.ts), unless the stored one already stands for its current version; the
   * copy is the one held, or decoded now when none is (an object started afresh); and the list layout
   * of every namespace searched through its lists (layout-snapshot.ts), unless the stored one stands for
   * its current stamp. Off the write path: it writes every vector, or every centroid, of each namespace
   * it stores. All at once: `snapshotTurn` does the same a few parts at a time. Returns how many
   * snapshots it stored (with those a turn had left half done).
   */
  snapshotStale(): number {
    let stored = 0;
    for (;;) {
      const turn = this.snapshotTurn();
      stored += turn.stored;
      if (!turn.more) return stored;
    }
  }

  /**
   * One turn of `snapshotStale`: writes the snapshot being stored until `bytes` are written (parts of
   * 1 MB at most), and then the next namespace's, listing the namespaces first when none is left. Each is
   * checked and staged only when its turn comes (from then on it has no snapshot to read until its last
   * part, and its writes are noted against the one staged), so the others keep theirs meanwhile. How
   * many it stored, and whether any is left for another turn. Between turns the index answers and
   * writes as ever.
   */
  snapshotTurn(bytes = Number.POSITIVE_INFINITY): { stored: number; more: boolean } {
    if (!this.storing && this.unchecked.length === 0) this.unchecked = this.snapshotNamespaces();
    let left = bytes;
    let stored = 0;
    while (left > 0) {
      if (!this.storing) {
        const namespace = this.unchecked.shift();
        if (namespace === undefined) break;
        this.storing = this.staleSnapshot(namespace);
        continue;
      }
      left -= this.storing.write(left);
      if (!this.storing.done) break;
      if (this.storing.stored) stored++;
      this.storing = undefined;
      this.writtenWhileStaged.clear();
    }
    return { stored, more: this.storing !== undefined || this.unchecked.length > 0 };
  }

  /**
   * Whether a snapshot is being stored: by this instance, or left half done by an instance that stopped
   * (the next `snapshotTurn` stages it again).
   */
  snapshotUnderway(): boolean {
    return (
      this.storing !== undefined ||
      this.unchecked.length > 0 ||
      stagedSnapshots(this.sql).length > 0 ||
      this.lists.stagedSnapshots().length > 0
    );
  }

  /** Gives up the snapshots being stored: none is read until stored again (after a failed write). */
  abandonSnapshots(): void {
    this.storing = undefined;
    this.writtenWhileStaged.clear();
    this.unchecked = [];
    for (const namespace of stagedSnapshots(this.sql)) dropSnapshot(this.sql, namespace);
    for (const namespace of this.lists.stagedSnapshots()) this.lists.dropSnapshot(namespace);
  }

  /** Every namespace with vectors, and any whose stage an instance that stopped left half done. */
  private snapshotNamespaces(): string[] {
    const namespaces = new Set(readVersions(this.sql).map((v) => v.namespace));
    for (const namespace of [...stagedSnapshots(this.sql), ...this.lists.stagedSnapshots()]) {
      namespaces.add(namespace);
    }
    return [...namespaces];
  }

  /**
   * The namespace's stale snapshot, staged, or undefined when its stored one stands for it (see
   * `snapshotStale`); one it should not have is dropped.
   */
  private staleSnapshot(namespace: string): StagedParts<string> | undefined {
    const dims = this.dimensions();
    const version = readVersion(this.sql, namespace);
    const path = dims === undefined ? "scan" : this.searchedBy(namespace, dims, version);
    // Searched through its lists: a cold instance reads their layout whole (layout-snapshot.ts). Any
    // other namespace (one that shrank back) keeps no layout snapshot: none would be read.
    if (typeof path !== "object") this.lists.dropSnapshot(namespace);
    // Emptied of every vector (no dimension stored), or past the decoded limit: no copy to store.
    if (dims === undefined || path !== "decoded") dropSnapshot(this.sql, namespace);
    if (typeof path === "object") return this.lists.stageSnapshot(namespace, path);
    if (dims === undefined || path !== "decoded" || !snapshotDue(this.sql, namespace, version, dims)) {
      return undefined;
    }
    const held = this.decoded.get(namespace);
    const current = held?.version === version && held.dims === dims ? held : undefined;
    const copy = compacted(current ?? this.decode(namespace, dims, version));
    // A copy is kept only where one was held: storing a namespace nobody asks about holds nothing.
    if (current) this.decoded.set(namespace, copy);
    this.writtenWhileStaged.clear();
    return stageSnapshot(this.sql, namespace, copy, () => this.writtenWhileStaged);
  }

  /**
   * Holds the namespace's copy, brought to a write's version in place, and its size with it: the copy
   * holds every vector of the namespace, so the next query need not count them again.
   */
  private keep(namespace: string, copy: Decoded): void {
    this.decoded.set(namespace, copy);
    this.sizes.set(namespace, { version: copy.version, size: heldCount(copy) });
  }
}
