/**
 * An in-memory stand-in for a remote Vectorize index, implementing the `VectorizeIndex` binding as
 * `wrangler types` declares it. It exists only to run the real `VectorizeVectorIndex` adapter in tests;
 * nothing in the service uses it.
 *
 * Modelled on the documented behaviour (developers.cloudflare.com/vectorize):
 *  - ids are unique across the whole index, whatever the namespace; upsert replaces a vector in full,
 *    insert keeps the existing one;
 *  - values are stored as float32;
 *  - a query with `namespace` sees only that namespace (without one, every vector); `filter` is
 *    applied before `topK`; implicit `$eq`, and `$eq $ne $lt $lte $gt $gte $in $nin`, with dotted keys
 *    for nesting; when `metadataIndexes` is given, only those properties are filterable (a filter on
 *    another property matches nothing, as vectors are absent from an index that does not exist);
 *  - scores follow the metric: cosine similarity and dot product (higher first), euclidean distance
 *    (lower first);
 *  - `returnMetadata`: "none" (default), "indexed" (only indexed properties), "all";
 *  - limits enforced as errors: ids and namespaces at most 64 bytes, 1,000 vectors per mutation,
 *    10 KiB of metadata per vector, metadata keys not empty and without `.` `"` or a leading `$`,
 *    `topK` at most 100, or 20 with `returnValues` or `returnMetadata: "all"`, a non-empty filter
 *    under 2 KiB, and the index's dimension.
 *
 * Not modelled: eventual consistency (mutations are visible at once here, seconds later in the real
 * service), the 64-byte truncation of indexed string values, approximate search, and `$in`/`$nin`
 * list limits. `calls` records every call, for tests that check how the adapter drives the binding.
 */
export interface InMemoryVectorizeOptions {
  dimensions: number;
  metric?: VectorizeDistanceMetric;
  /** Properties with a metadata index; every property is filterable when omitted. */
  metadataIndexes?: string[];
  name?: string;
}

type Stored = {
  id: string;
  namespace?: string;
  values: number[];
  metadata?: Record<string, VectorizeVectorMetadata>;
};

const UTF8 = new TextEncoder();
const bytes = (text: string) => UTF8.encode(text).byteLength;

export class VectorizeFakeError extends Error {
  override readonly name = "VectorizeFakeError";
}

export class InMemoryVectorize implements VectorizeIndex {
  readonly calls: { method: string; args: unknown[] }[] = [];
  private readonly vectors = new Map<string, Stored>();
  private readonly dimensions: number;
  private readonly metric: VectorizeDistanceMetric;
  private readonly indexed: Set<string> | undefined;
  private readonly name: string;

  constructor(options: InMemoryVectorizeOptions) {
    this.dimensions = options.dimensions;
    this.metric = options.metric ?? "cosine";
    this.indexed = options.metadataIndexes ? new Set(options.metadataIndexes) : undefined;
    this.name = options.name ?? "in-memory";
  }

  /** How many vectors are stored, across namespaces. */
  get size(): number {
    return this.vectors.size;
  }

  /** Every stored vector as the service holds it (ids and namespaces after any adapter mapping). */
  stored(): VectorizeVector[] {
    return [...this.vectors.values()].map(copy);
  }

  async describe(): Promise<VectorizeIndexDetails> {
    this.calls.push({ method: "describe", args: [] });
    return {
      id: `00000000-0000-4000-8000-${this.name.length.toString().padStart(12, "0")}`,
      name: this.name,
      config: { dimensions: this.dimensions, metric: this.metric },
      vectorsCount: this.vectors.size,
    };
  }

  async insert(vectors: VectorizeVector[]): Promise<VectorizeVectorMutation> {
    this.calls.push({ method: "insert", args: [vectors] });
    const fresh = this.validate(vectors).filter((v) => !this.vectors.has(v.id));
    for (const v of fresh) this.vectors.set(v.id, v);
    return { ids: fresh.map((v) => v.id), count: fresh.length };
  }

  async upsert(vectors: VectorizeVector[]): Promise<VectorizeVectorMutation> {
    this.calls.push({ method: "upsert", args: [vectors] });
    const valid = this.validate(vectors);
    for (const v of valid) this.vectors.set(v.id, v);
    return { ids: valid.map((v) => v.id), count: valid.length };
  }

  async deleteByIds(ids: string[]): Promise<VectorizeVectorMutation> {
    this.calls.push({ method: "deleteByIds", args: [ids] });
    if (ids.length > 1000) throw new VectorizeFakeError("VECTOR_DELETE_ERROR: at most 1000 ids per request");
    const deleted = ids.filter((id) => this.vectors.delete(id));
    return { ids: deleted, count: deleted.length };
  }

  async getByIds(ids: string[]): Promise<VectorizeVector[]> {
    this.calls.push({ method: "getByIds", args: [ids] });
    return ids.flatMap((id) => {
      const v = this.vectors.get(id);
      return v ? [copy(v)] : [];
    });
  }

  async query(
    vector: VectorFloatArray | number[],
    options: VectorizeQueryOptions = {},
  ): Promise<VectorizeMatches> {
    this.calls.push({ method: "query", args: [Array.from(vector), options] });
    const topK = options.topK ?? 5;
    const level = options.returnMetadata === true ? "all" : options.returnMetadata || "none";
    if (vector.length !== this.dimensions) {
      throw new VectorizeFakeError(
        `VECTOR_QUERY_ERROR: query vector has ${vector.length} dimensions, the index ${this.dimensions}`,
      );
    }
    if (!Number.isInteger(topK) || topK < 1 || topK > 100) {
      throw new VectorizeFakeError(`VECTOR_QUERY_ERROR: topK must be from 1 to 100, got ${topK}`);
    }
    if ((options.returnValues || level === "all") && topK > 20) {
      throw new VectorizeFakeError(
        "VECTOR_QUERY_ERROR: topK is limited to 20 with returnValues or all metadata",
      );
    }
    if (options.namespace !== undefined && bytes(options.namespace) > 64) {
      throw new VectorizeFakeError("VECTOR_QUERY_ERROR: namespace longer than 64 bytes");
    }
    if (options.filter !== undefined) checkFilter(options.filter);

    const query = Array.from(vector, Math.fround);
    const ascending = this.metric === "euclidean";
    const scored = [...this.vectors.values()]
      .filter((v) => options.namespace === undefined || v.namespace === options.namespace)
      .filter((v) => options.filter === undefined || this.matches(v.metadata ?? {}, options.filter))
      .map((v) => ({ v, score: score(this.metric, query, v.values) }))
      .sort((a, b) => (ascending ? a.score - b.score : b.score - a.score) || (a.v.id < b.v.id ? -1 : 1))
      .slice(0, topK);
    const matches: VectorizeMatch[] = scored.map(({ v, score }) => {
      const match: VectorizeMatch = { id: v.id, score };
      if (v.namespace !== undefined) match.namespace = v.namespace;
      if (options.returnValues) match.values = [...v.values];
      if (level === "all") match.metadata = structuredClone(v.metadata ?? {});
      if (level === "indexed") {
        match.metadata = Object.fromEntries(
          Object.entries(v.metadata ?? {}).filter(([key]) => !this.indexed || this.indexed.has(key)),
        );
      }
      return match;
    });
    return { matches, count: matches.length };
  }

  private validate(vectors: VectorizeVector[]): Stored[] {
    if (vectors.length > 1000)
      throw new VectorizeFakeError("VECTOR_UPSERT_ERROR: at most 1000 vectors per request");
    return vectors.map((v) => {
      if (typeof v.id !== "string" || v.id.length === 0 || bytes(v.id) > 64) {
        throw new VectorizeFakeError(`VECTOR_UPSERT_ERROR: id '${v.id}' must be 1 to 64 bytes`);
      }
      if (v.namespace !== undefined && bytes(v.namespace) > 64) {
        throw new VectorizeFakeError(`VECTOR_UPSERT_ERROR: namespace of '${v.id}' is longer than 64 bytes`);
      }
      if (v.values.length !== this.dimensions) {
        throw new VectorizeFakeError(
          `VECTOR_UPSERT_ERROR: vector '${v.id}' has ${v.values.length} dimensions, the index ${this.dimensions}`,
        );
      }
      const values = Array.from(v.values, Math.fround);
      if (!values.every(Number.isFinite)) {
        throw new VectorizeFakeError(`VECTOR_UPSERT_ERROR: vector '${v.id}' has non-finite values`);
      }
      if (v.metadata !== undefined) {
        for (const key of Object.keys(v.metadata)) {
          if (key === "" || key.includes(".") || key.includes('"') || key.startsWith("$")) {
            throw new VectorizeFakeError(`VECTOR_UPSERT_ERROR: invalid metadata key '${key}'`);
          }
        }
        if (bytes(JSON.stringify(v.metadata)) > 10 * 1024) {
          throw new VectorizeFakeError(`VECTOR_UPSERT_ERROR: metadata of '${v.id}' exceeds 10 KiB`);
        }
      }
      const stored: Stored = { id: v.id, values };
      if (v.namespace !== undefined) stored.namespace = v.namespace;
      if (v.metadata !== undefined) stored.metadata = structuredClone(v.metadata);
      return stored;
    });
  }

  private matches(
    metadata: Record<string, VectorizeVectorMetadata>,
    filter: VectorizeVectorMetadataFilter,
  ): boolean {
    return Object.entries(filter).every(([key, condition]) => {
      if (this.indexed && !this.indexed.has(key)) return false;
      const value = lookup(metadata, key);
      if (condition === null || typeof condition !== "object") return equal(value, condition);
      return Object.entries(condition).every(([op, operand]) => compare(op, value, operand));
    });
  }
}

function copy(v: Stored): VectorizeVector {
  const out: VectorizeVector = { id: v.id, values: [...v.values] };
  if (v.namespace !== undefined) out.namespace = v.namespace;
  if (v.metadata !== undefined) out.metadata = structuredClone(v.metadata);
  return out;
}

function score(metric: VectorizeDistanceMetric, a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  let squared = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
    squared += (x - y) ** 2;
  }
  if (metric === "euclidean") return Math.sqrt(squared);
  if (metric === "dot-product") return dot;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Dotted keys address nested objects, as in Vectorize filters. */
function lookup(metadata: Record<string, unknown>, key: string): unknown {
  let value: unknown = metadata;
  for (const part of key.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function equal(value: unknown, operand: unknown): boolean {
  return operand === null ? value === undefined || value === null : value === operand;
}

function compare(op: string, value: unknown, operand: unknown): boolean {
  switch (op) {
    case "$eq":
      return equal(value, operand);
    case "$ne":
      return !equal(value, operand);
    case "$in":
      return Array.isArray(operand) && operand.some((o) => equal(value, o));
    case "$nin":
      return Array.isArray(operand) && !operand.some((o) => equal(value, o));
    case "$lt":
    case "$lte":
    case "$gt":
    case "$gte": {
      if (typeof value !== typeof operand || (typeof value !== "number" && typeof value !== "string"))
        return false;
      const a = value as number | string;
      const b = operand as number | string;
      return op === "$lt" ? a < b : op === "$lte" ? a <= b : op === "$gt" ? a > b : a >= b;
    }
    default:
      throw new VectorizeFakeError(`VECTOR_QUERY_ERROR: unknown filter operator '${op}'`);
  }
}

function checkFilter(filter: VectorizeVectorMetadataFilter): void {
  const keys = Object.keys(filter);
  if (keys.length === 0)
    throw new VectorizeFakeError("VECTOR_QUERY_ERROR: filter must be a non-empty object");
  if (bytes(JSON.stringify(filter)) >= 2048) {
    throw new VectorizeFakeError("VECTOR_QUERY_ERROR: filter must be under 2048 bytes of JSON");
  }
  for (const key of keys) {
    if (key === "" || key.includes('"') || key.startsWith("$") || key.length > 512) {
      throw new VectorizeFakeError(`VECTOR_QUERY_ERROR: invalid filter key '${key}'`);
    }
  }
}
