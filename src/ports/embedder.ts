/**
 * The Embedder port: turns texts into dense vectors whose cosine similarity approximates how alike the
 * texts are. Adapters: `HashingEmbedder` (offline default, deterministic, lexical) and
 * `WorkersAiEmbedder` (a bge model through the `AI` binding, semantic).
 *
 * Vectors from different embedders (or the same embedder under another `name`) live in different
 * spaces and must never be compared or stored in the same index; `name` identifies the space.
 */
export interface Embedder {
  /** Identifies the vector space (model, version, dimensions); changes whenever vectors would. */
  readonly name: string;
  /** Length of every vector `embed` returns. */
  readonly dimensions: number;
  /**
   * One vector per text, in input order, each of length `dimensions`. A text with nothing to embed
   * (empty or blank) yields the zero vector, whose cosine with anything is 0.
   */
  embed(texts: string[]): Promise<number[][]>;
}

/** An embedder failed: its backend was unreachable or answered with something that is not embeddings. */
export class EmbeddingError extends Error {
  override readonly name: string = "EmbeddingError";

  constructor(
    message: string,
    /** The `name` of the embedder that failed. */
    readonly embedder: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Cosine similarity in [-1, 1]; 0 when either vector is all zeros. Vectors of different lengths come
 * from different spaces, so comparing them is a bug and throws.
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) {
    throw new RangeError(`cosine of vectors of different dimensions (${a.length} and ${b.length})`);
  }
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  if (normA === 0 || normB === 0) return 0;
  const score = dot / Math.sqrt(normA * normB);
  return Math.max(-1, Math.min(1, score));
}
