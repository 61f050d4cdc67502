import {
  atLeast,
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
 * The Cloudflare Vectorize adapter of the VectorIndex port, over a tenant's own index binding.
 *
 * Provisioning: the index must use the `cosine` metric (scores are then cosine similarity), have the
 * embedder's dimension, and have a string metadata index for every field queries filter on
 * (`wrangler vectorize create-metadata-index <index> --property-name=type_tag --type=string`, and
 * `status`); Vectorize only filters on indexed fields, and only on their first 64 bytes.
 *
 * Ids: Vectorize ids are unique across the whole index, namespaces notwithstanding, and at most 64
 * bytes; so are namespace names. The port's (namespace, id) pair is therefore stored under a derived
 * id: `${namespace}:${id}` when that is unambiguous (namespace without ':' or a leading '~') and fits,
 * otherwise '~' and the base64url SHA-256 of the pair (44 bytes). Namespaces longer than 64 bytes (or
 * starting with '~') are likewise replaced by '~' and their hash. The readable and hashed forms can
 * never coincide. The port's id travels in a reserved metadata field, `ORIGINAL_ID_KEY`, and is given
 * back on the way out.
 *
 * Limits handled here: upserts and deletes go in batches of 1,000; a query with `topK` up to 20
 * fetches metadata with the matches (`returnMetadata: "all"`, limited to 20 by Vectorize); above 20
 * it queries without metadata (allowed up to 100) and reads the metadata with `getByIds`.
 *
 * Consistency: Vectorize applies mutations asynchronously; an upsert or delete becomes visible to
 * queries a few seconds later. Callers must not rely on reading their own writes.
 */
export interface VectorizeVectorIndexOptions {
  /** The index's dimension; read once with `describe()` when not given. */
  dimensions?: number;
}

/** The binding as `wrangler types` declares it (`VectorizeIndex`), or the newer `Vectorize` class. */
export type VectorizeBinding = VectorizeIndex | Vectorize;

/** Reserved metadata field carrying the port's id; user metadata may not use it. */
export const ORIGINAL_ID_KEY = "_tenure_id";

/** Vectorize's limits (developers.cloudflare.com/vectorize/platform/limits). */
export const VECTORIZE_LIMITS = {
  idBytes: 64,
  namespaceBytes: 64,
  batch: 1000,
  topKWithMetadata: 20,
  getByIds: 20,
} as const;

export class VectorizeVectorIndex implements VectorIndex {
  private dims: Promise<number> | undefined;

  constructor(
    private readonly index: VectorizeBinding,
    options: VectorizeVectorIndexOptions = {},
  ) {
    if (options.dimensions !== undefined) this.dims = Promise.resolve(options.dimensions);
  }

  async upsert(records: VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    const dimensions = await this.dimensions();
    for (const record of records) {
      checkRecord(record);
      if (record.values.length !== dimensions) {
        throw new VectorDimensionError(dimensions, record.values.length, `vector '${record.id}'`);
      }
      checkMetadata(record.metadata, `metadata of vector '${record.id}'`);
    }
    const vectors: VectorizeVector[] = await Promise.all(
      records.map(async (record) => ({
        id: await vectorId(record.namespace, record.id),
        namespace: await vectorizeNamespace(record.namespace),
        values: record.values,
        metadata: { ...record.metadata, [ORIGINAL_ID_KEY]: record.id },
      })),
    );
    for (let start = 0; start < vectors.length; start += VECTORIZE_LIMITS.batch) {
      await this.index.upsert(vectors.slice(start, start + VECTORIZE_LIMITS.batch));
    }
  }

  async query(vector: number[], options: VectorQueryOptions): Promise<VectorMatch[]> {
    checkQuery(vector, options);
    const filter = options.filter ?? {};
    checkMetadata(filter, "filter");
    const dimensions = await this.dimensions();
    if (vector.length !== dimensions)
      throw new VectorDimensionError(dimensions, vector.length, "query vector");

    const withMetadata = options.topK <= VECTORIZE_LIMITS.topKWithMetadata;
    const result = await this.index.query(vector, {
      topK: options.topK,
      namespace: await vectorizeNamespace(options.namespace),
      ...(Object.keys(filter).length ? { filter } : {}),
      returnMetadata: withMetadata ? "all" : "none",
    });
    let matches = result.matches;
    if (!withMetadata && matches.length > 0) {
      const metadata = new Map<string, VectorizeVector["metadata"]>();
      for (let start = 0; start < matches.length; start += VECTORIZE_LIMITS.getByIds) {
        const ids = matches.slice(start, start + VECTORIZE_LIMITS.getByIds).map((m) => m.id);
        for (const v of await this.index.getByIds(ids)) metadata.set(v.id, v.metadata);
      }
      matches = matches.map((m) => ({ ...m, metadata: metadata.get(m.id) }));
    }
    return atLeast(
      matches
        .map((m) => toMatch(m, options.namespace))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, options.topK),
      options.minScore,
    );
  }

  async deleteByIds(namespace: string, ids: string[]): Promise<void> {
    const vectorIds = await Promise.all([...new Set(ids)].map((id) => vectorId(namespace, id)));
    for (let start = 0; start < vectorIds.length; start += VECTORIZE_LIMITS.batch) {
      await this.index.deleteByIds(vectorIds.slice(start, start + VECTORIZE_LIMITS.batch));
    }
  }

  private dimensions(): Promise<number> {
    if (!this.dims) {
      const pending = this.index.describe().then(dimensionsOf);
      // A failed describe() is not remembered; the next call asks again.
      pending.catch(() => {
        if (this.dims === pending) this.dims = undefined;
      });
      this.dims = pending;
    }
    return this.dims;
  }
}

function dimensionsOf(info: VectorizeIndexInfo | VectorizeIndexDetails): number {
  if ("dimensions" in info && typeof info.dimensions === "number") return info.dimensions;
  if ("config" in info) {
    const config = info.config;
    if ("metric" in config && config.metric !== "cosine") {
      throw new VectorIndexInputError(
        `the Vectorize index uses the ${config.metric} metric; cosine is required`,
      );
    }
    if ("dimensions" in config) return config.dimensions;
  }
  throw new VectorIndexInputError("describe() of the Vectorize index did not give its dimensions");
}

function toMatch(match: VectorizeMatch, namespace: string): VectorMatch {
  const metadata: Record<string, string> = {};
  let id: string | undefined;
  for (const [key, value] of Object.entries(match.metadata ?? {})) {
    if (key === ORIGINAL_ID_KEY) id = String(value);
    else if (typeof value === "string") metadata[key] = value;
  }
  id ??= match.id.startsWith(`${namespace}:`) ? match.id.slice(namespace.length + 1) : match.id;
  return { id, score: match.score, metadata };
}

function checkMetadata(metadata: Record<string, unknown>, what: string): void {
  for (const [key, value] of Object.entries(metadata)) {
    if (key === ORIGINAL_ID_KEY) throw new VectorIndexInputError(`${what}: '${key}' is reserved`);
    if (key === "" || key.includes(".") || key.includes('"') || key.startsWith("$")) {
      throw new VectorIndexInputError(`${what}: Vectorize does not accept the key '${key}'`);
    }
    if (typeof value !== "string") throw new VectorIndexInputError(`${what}: '${key}' must be a string`);
  }
}

const UTF8 = new TextEncoder();
const HASHED = "~";

/** The Vectorize id of a (namespace, id) pair; see the comment at the top. */
export async function vectorId(namespace: string, id: string): Promise<string> {
  const readable = `${namespace}:${id}`;
  if (
    !namespace.includes(":") &&
    !namespace.startsWith(HASHED) &&
    UTF8.encode(readable).byteLength <= VECTORIZE_LIMITS.idBytes
  ) {
    return readable;
  }
  // The length prefix makes the hashed pair unambiguous whatever either part contains.
  return HASHED + (await sha256(`${namespace.length}:${namespace}:${id}`));
}

/** The Vectorize namespace of a port namespace; see the comment at the top. */
export async function vectorizeNamespace(namespace: string): Promise<string> {
  if (!namespace.startsWith(HASHED) && UTF8.encode(namespace).byteLength <= VECTORIZE_LIMITS.namespaceBytes) {
    return namespace;
  }
  return HASHED + (await sha256(namespace));
}

async function sha256(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", UTF8.encode(text)));
  let binary = "";
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
