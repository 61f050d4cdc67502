import { type Embedder, EmbeddingError } from "../ports/embedder";

/**
 * The Workers AI adapter of the Embedder port: a BAAI bge model through the `AI` binding
 * (`ai.run(model, { text: [...], pooling })` answering `{ shape: [n, d], data: number[][] }`).
 *
 * Texts go in batches of at most 100 (one request each, in order). Every answer is checked: one
 * vector per text, each of the model's dimension, all finite; anything else (including an async
 * `request_id` answer) is an `EmbeddingOutputError`. A failing call is an `EmbeddingUnavailable`,
 * which callers may retry. Blank texts are not sent; they embed as the zero vector, as with the
 * hashing embedder.
 *
 * Pooling defaults to `cls`, which Cloudflare recommends for accuracy; `cls` and `mean` vectors are
 * not comparable, so the pooling is part of `name` and must not change under an existing index.
 */
export const BGE_DIMENSIONS: Readonly<Record<string, number>> = {
  "@cf/baai/bge-small-en-v1.5": 384,
  "@cf/baai/bge-base-en-v1.5": 768,
  "@cf/baai/bge-large-en-v1.5": 1024,
};

export const DEFAULT_EMBEDDING_MODEL = "@cf/baai/bge-base-en-v1.5";

/** The most texts Workers AI embeds in one request. */
export const MAX_EMBEDDING_BATCH = 100;

export interface WorkersAiEmbedderOptions {
  /** A Workers AI text-embedding model; `@cf/baai/bge-base-en-v1.5` by default. */
  model?: string;
  /** Required for a model not in `BGE_DIMENSIONS`; must match the model's output otherwise. */
  dimensions?: number;
  pooling?: "cls" | "mean";
  /** Texts per request, 1 to 100. */
  batchSize?: number;
}

/** Workers AI answered, but not with one finite vector of the right size per text. */
export class EmbeddingOutputError extends EmbeddingError {
  override readonly name = "EmbeddingOutputError";
}

/** The call to Workers AI failed (network, rate limit, model error); worth retrying later. */
export class EmbeddingUnavailable extends EmbeddingError {
  override readonly name = "EmbeddingUnavailable";
}

/** The part of the `Ai` binding this adapter calls. */
type EmbeddingRun = (model: string, input: { text: string[]; pooling: "cls" | "mean" }) => Promise<unknown>;

export class WorkersAiEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions: number;
  readonly model: string;
  private readonly pooling: "cls" | "mean";
  private readonly batchSize: number;

  constructor(
    private readonly ai: Ai,
    options: WorkersAiEmbedderOptions = {},
  ) {
    this.model = options.model ?? DEFAULT_EMBEDDING_MODEL;
    const known = BGE_DIMENSIONS[this.model];
    const dimensions = options.dimensions ?? known;
    if (dimensions === undefined) {
      throw new RangeError(`unknown embedding model '${this.model}': pass its dimensions`);
    }
    if (known !== undefined && dimensions !== known) {
      throw new RangeError(`${this.model} produces ${known}-dimensional vectors, not ${dimensions}`);
    }
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
    }
    const batchSize = options.batchSize ?? MAX_EMBEDDING_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_EMBEDDING_BATCH) {
      throw new RangeError(`batchSize must be an integer from 1 to ${MAX_EMBEDDING_BATCH}, got ${batchSize}`);
    }
    this.dimensions = dimensions;
    this.pooling = options.pooling ?? "cls";
    this.batchSize = batchSize;
    this.name = `workers-ai:${this.model}:${this.pooling}`;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = texts.map(() => []);
    const pending = texts.flatMap((text, index) => (text.trim() ? [{ text, index }] : []));
    for (const [index, text] of texts.entries()) {
      if (!text.trim()) vectors[index] = new Array<number>(this.dimensions).fill(0);
    }
    for (let start = 0; start < pending.length; start += this.batchSize) {
      const batch = pending.slice(start, start + this.batchSize);
      const embedded = await this.run(batch.map((b) => b.text));
      for (const [i, entry] of batch.entries()) vectors[entry.index] = embedded[i] as number[];
    }
    return vectors;
  }

  private async run(texts: string[]): Promise<number[][]> {
    const ai = this.ai as unknown as { run: EmbeddingRun };
    let output: unknown;
    try {
      output = await ai.run(this.model, { text: texts, pooling: this.pooling });
    } catch (error) {
      throw new EmbeddingUnavailable(`${this.model} failed: ${describe(error)}`, this.name, { cause: error });
    }
    return this.validate(output, texts.length);
  }

  private validate(output: unknown, expected: number): number[][] {
    const fail = (why: string): never => {
      throw new EmbeddingOutputError(`${this.model} answered ${why}`, this.name);
    };
    if (typeof output !== "object" || output === null) return fail(`with ${typeof output}, not an object`);
    const { data, shape } = output as { data?: unknown; shape?: unknown };
    if (!Array.isArray(data)) {
      return fail(
        "request_id" in output ? "asynchronously (a request_id), not with embeddings" : "without data",
      );
    }
    if (data.length !== expected) return fail(`${data.length} vectors for ${expected} texts`);
    if (shape !== undefined) {
      const ok =
        Array.isArray(shape) && shape.length === 2 && shape[0] === expected && shape[1] === this.dimensions;
      if (!ok) return fail(`shape ${JSON.stringify(shape)}, expected [${expected},${this.dimensions}]`);
    }
    for (const [i, row] of data.entries()) {
      if (!Array.isArray(row)) return fail(`a non-array vector at ${i}`);
      if (row.length !== this.dimensions) {
        return fail(`a ${row.length}-dimensional vector at ${i}, expected ${this.dimensions}`);
      }
      if (!row.every((v) => typeof v === "number" && Number.isFinite(v))) {
        return fail(`a vector with non-finite values at ${i}`);
      }
    }
    return data as number[][];
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
