import { describe, expect, it } from "vitest";
import {
  EmbeddingOutputError,
  EmbeddingUnavailable,
  MAX_EMBEDDING_BATCH,
  WorkersAiEmbedder,
} from "../src/adapters/workers-ai-embedder";
import { EmbeddingError } from "../src/ports/embedder";

type Input = { text: string[]; pooling?: string };

/**
 * Stands in for the remote Workers AI service behind the `AI` binding: it records each request and
 * answers as bge does (`{ shape: [n, d], data }`), unless told to answer something else.
 */
function fakeAi(answer?: (model: string, input: Input) => unknown) {
  const requests: { model: string; input: Input }[] = [];
  const ai = {
    async run(model: string, input: Input) {
      requests.push({ model, input });
      if (answer) return answer(model, input);
      const dims = model.includes("small") ? 384 : 768;
      return { shape: [input.text.length, dims], data: input.text.map((t) => vectorFor(t, dims)) };
    },
  };
  return { ai: ai as unknown as Ai, requests };
}

/** A distinct, recognisable vector per text: its length in slot 0, the text's position marker in 1. */
const vectorFor = (text: string, dims: number) =>
  Array.from({ length: dims }, (_, i) =>
    i === 0 ? text.length : i === 1 ? Number(text.slice(1)) || 0 : 0.01,
  );

describe("WorkersAiEmbedder", () => {
  it("defaults to bge-base (768 dimensions, cls pooling) and names its vector space", () => {
    const embedder = new WorkersAiEmbedder(fakeAi().ai);
    expect(embedder.dimensions).toBe(768);
    expect(embedder.model).toBe("@cf/baai/bge-base-en-v1.5");
    expect(embedder.name).toBe("workers-ai:@cf/baai/bge-base-en-v1.5:cls");
    const small = new WorkersAiEmbedder(fakeAi().ai, {
      model: "@cf/baai/bge-small-en-v1.5",
      pooling: "mean",
    });
    expect(small.dimensions).toBe(384);
    expect(small.name).toBe("workers-ai:@cf/baai/bge-small-en-v1.5:mean");
  });

  it("sends the texts with the model and pooling, and returns one vector per text", async () => {
    const { ai, requests } = fakeAi();
    const vectors = await new WorkersAiEmbedder(ai).embed(["t1", "t2"]);
    expect(requests).toEqual([
      { model: "@cf/baai/bge-base-en-v1.5", input: { text: ["t1", "t2"], pooling: "cls" } },
    ]);
    expect(vectors.map((v) => [v.length, v[1]])).toEqual([
      [768, 1],
      [768, 2],
    ]);
  });

  it("batches at most 100 texts per request and keeps input order", async () => {
    const { ai, requests } = fakeAi();
    const texts = Array.from({ length: 250 }, (_, i) => `t${i}`);
    const vectors = await new WorkersAiEmbedder(ai).embed(texts);
    expect(requests.map((r) => r.input.text.length)).toEqual([100, 100, 50]);
    expect(vectors.map((v) => v[1])).toEqual(texts.map((_, i) => i));

    const small = fakeAi();
    await new WorkersAiEmbedder(small.ai, { batchSize: 7 }).embed(texts.slice(0, 20));
    expect(small.requests.map((r) => r.input.text.length)).toEqual([7, 7, 6]);
    expect(() => new WorkersAiEmbedder(small.ai, { batchSize: MAX_EMBEDDING_BATCH + 1 })).toThrow(RangeError);
  });

  it("sends nothing for an empty batch and gives blank texts the zero vector", async () => {
    const { ai, requests } = fakeAi();
    const embedder = new WorkersAiEmbedder(ai);
    expect(await embedder.embed([])).toEqual([]);
    expect(requests).toHaveLength(0);
    const vectors = await embedder.embed(["  ", "t3", ""]);
    expect(requests.map((r) => r.input.text)).toEqual([["t3"]]);
    expect(vectors.map((v) => v.length)).toEqual([768, 768, 768]);
    expect(vectors[0]?.every((x) => x === 0)).toBe(true);
    expect(vectors[1]?.[1]).toBe(3);
    expect(vectors[2]?.every((x) => x === 0)).toBe(true);
  });

  it.each([
    ["not an object", () => "oops", "with string"],
    ["an async request id", () => ({ request_id: "r1" }), "asynchronously"],
    ["no data", () => ({ shape: [1, 768] }), "without data"],
    ["too few vectors", () => ({ data: [] }), "0 vectors for 1 texts"],
    ["a wrong shape", () => ({ shape: [1, 384], data: [new Array(768).fill(0)] }), "shape [1,384]"],
    ["a short vector", () => ({ data: [new Array(384).fill(0)] }), "384-dimensional vector at 0"],
    ["a non-array row", () => ({ data: ["x"] }), "non-array vector at 0"],
    ["non-finite values", () => ({ data: [[Number.NaN, ...new Array(767).fill(0)]] }), "non-finite values"],
  ])("rejects an answer with %s", async (_case, answer, message) => {
    const error = await new WorkersAiEmbedder(fakeAi(answer).ai).embed(["t1"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingOutputError);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect((error as EmbeddingOutputError).message).toContain(message);
    expect((error as EmbeddingOutputError).embedder).toBe("workers-ai:@cf/baai/bge-base-en-v1.5:cls");
  });

  it("wraps a failing call as EmbeddingUnavailable, keeping the cause", async () => {
    const cause = new Error("3040: capacity temporarily exceeded");
    const { ai } = fakeAi(() => {
      throw cause;
    });
    const error = await new WorkersAiEmbedder(ai).embed(["t1"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingUnavailable);
    expect((error as Error).message).toContain("capacity temporarily exceeded");
    expect((error as Error).cause).toBe(cause);
  });

  it("needs the dimension of a model it does not know, and refuses a wrong one for a model it does", () => {
    const { ai } = fakeAi();
    expect(() => new WorkersAiEmbedder(ai, { model: "@cf/other/embedder" })).toThrow("pass its dimensions");
    expect(new WorkersAiEmbedder(ai, { model: "@cf/other/embedder", dimensions: 512 }).dimensions).toBe(512);
    expect(() => new WorkersAiEmbedder(ai, { dimensions: 384 })).toThrow("768-dimensional");
  });
});
