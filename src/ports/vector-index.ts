/**
 * The VectorIndex port: nearest-neighbour search over embeddings, partitioned by namespace.
 *
 * Partitioning: the service uses one index per tenant (a Vectorize index per tenant, or a thread's own
 * Durable Object storage offline); within it the namespace is the thread. A query sees only its own
 * namespace, never another's, whatever the vectors' values. Ids are unique per namespace: the same id
 * in two namespaces names two records.
 *
 * Scores are cosine similarity in [-1, 1], higher is closer; matches come nearest first.
 * An index holds vectors of one dimension; a record or query of another dimension is rejected with a
 * `VectorDimensionError` rather than silently scoring 0.
 *
 * Adapters: `SqliteVectorIndex` (offline default, in Durable Object SQLite: exact search, and
 * approximate for unfiltered queries of namespaces over 20,000 vectors) and
 * `VectorizeVectorIndex` (Cloudflare Vectorize; approximate, and eventually consistent: writes become
 * visible to queries after a few seconds).
 */
export interface VectorRecord {
  id: string;
  namespace: string;
  values: number[];
  /** String fields only, so every adapter can filter on them by equality. */
  metadata: Record<string, string>;
}

export interface VectorMatch {
  id: string;
  /** Cosine similarity to the query vector; higher is closer. */
  score: number;
  metadata: Record<string, string>;
}

export interface VectorQueryOptions {
  /** How many matches at most, 1 to `MAX_TOP_K`. */
  topK: number;
  namespace: string;
  /** Equality on string metadata fields, all of which must hold (e.g. `{ type_tag: "decision" }`). */
  filter?: Record<string, string>;
  /**
   * Matches scoring below this cosine are left out: the answer is the `topK` best of the others, as the
   * `topK` best then cut at it would be. An adapter may use it to read less (the offline index does not
   * read again candidates whose code cannot reach it).
   */
  minScore?: number;
}

export interface VectorIndex {
  /** Inserts records, replacing (values and metadata in full) any with the same namespace and id. */
  upsert(records: VectorRecord[]): Promise<void>;
  /** The `topK` nearest records of the namespace that match the filter (and score `minScore` or more), nearest first. */
  query(vector: number[], options: VectorQueryOptions): Promise<VectorMatch[]>;
  /** Removes records by id from one namespace; unknown ids are ignored. */
  deleteByIds(namespace: string, ids: string[]): Promise<void>;
}

/** The largest `topK` every adapter can answer (Vectorize's own limit). */
export const MAX_TOP_K = 100;

/** A vector whose length is not the index's dimension. */
export class VectorDimensionError extends Error {
  override readonly name: string = "VectorDimensionError";

  constructor(
    readonly expected: number,
    readonly actual: number,
    what: string,
  ) {
    super(`${what} has ${actual} dimensions; this index holds ${expected}-dimensional vectors`);
  }
}

/** A request the port does not allow (bad topK, non-finite values, empty id). */
export class VectorIndexInputError extends Error {
  override readonly name: string = "VectorIndexInputError";
}

/** Checks the parts of a query every adapter must refuse alike. */
export function checkQuery(vector: number[], options: VectorQueryOptions): void {
  const { topK } = options;
  if (!Number.isInteger(topK) || topK < 1 || topK > MAX_TOP_K) {
    throw new VectorIndexInputError(`topK must be an integer from 1 to ${MAX_TOP_K}, got ${topK}`);
  }
  const { minScore } = options;
  if (minScore !== undefined && !Number.isFinite(minScore)) {
    throw new VectorIndexInputError(`minScore must be a finite number, got ${minScore}`);
  }
  checkValues(vector, "query vector");
}

/** The matches scoring `minScore` or more (all of them without one), in their order. */
export function atLeast(matches: VectorMatch[], minScore: number | undefined): VectorMatch[] {
  return minScore === undefined ? matches : matches.filter((match) => match.score >= minScore);
}

/** Checks a record's id and values; the dimension is each adapter's to check. */
export function checkRecord(record: VectorRecord): void {
  if (record.id.length === 0) throw new VectorIndexInputError("a vector record needs a non-empty id");
  checkValues(record.values, `vector '${record.id}'`);
}

function checkValues(values: number[], what: string): void {
  if (values.length === 0) throw new VectorIndexInputError(`${what} is empty`);
  if (!values.every(Number.isFinite)) throw new VectorIndexInputError(`${what} has non-finite values`);
}
