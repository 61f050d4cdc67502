import { describe, expect, inject, it } from "vitest";
import { ChatCompletionsTransport, ExtractorUnavailable, LlmExtractor } from "../src/adapters/llm-extractor";
import type { ExtractionInput } from "../src/items/types";

const url = inject("chatCompletionsUrl");

const input: ExtractionInput = {
  messages: [
    {
      id: "m1",
      ts: "2025-01-01T00:00:00.000Z",
      role: "user",
      speaker: null,
      content: "Let's use Redis for caching",
    },
    { id: "m2", ts: "2025-01-01T00:01:00.000Z", role: "assistant", speaker: null, content: "OK" },
  ],
  existing: [],
  existingFacts: [],
  openScope: null,
};

const extractor = (model: string, timeoutMs = 1_000) =>
  new LlmExtractor(new ChatCompletionsTransport(url, model, "test-key"), timeoutMs);

describe("LLM extractor against a local chat-completions server", () => {
  it("keeps valid items, drops invalid ones and counts them", async () => {
    const out = await extractor("valid").extract(input);
    expect(out.items.map((i) => [i.type_tag, i.text, i.refs])).toEqual([
      ["decision", "Use Redis for caching", ["m1", "m2"]],
      ["action", "Run migration 025", ["m1", "m2"]],
    ]);
    expect(out.dropped).toBe(1);
    expect(out.facts).toEqual([]);
  });

  it("reads an array wrapped in prose and fences", async () => {
    const out = await extractor("fenced").extract(input);
    expect(out.items).toEqual([expect.objectContaining({ type_tag: "risk", text: "No rate limiting" })]);
  });

  it("treats malformed JSON as one dropped answer, not an error", async () => {
    const out = await extractor("malformed").extract(input);
    expect(out).toMatchObject({ items: [], dropped: 1 });
  });

  it("drops items whose refs were invented", async () => {
    const out = await extractor("invented-refs").extract(input);
    expect(out).toMatchObject({ items: [], dropped: 1 });
  });

  it.each([
    ["rate-limited", 429],
    ["broken", 500],
  ])("raises a retryable error on %s", async (model, status) => {
    const error = await extractor(model)
      .extract(input)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtractorUnavailable);
    expect((error as ExtractorUnavailable).status).toBe(status);
  });

  it("times out a slow model", async () => {
    const error = await extractor("slow", 200)
      .extract(input)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtractorUnavailable);
    expect((error as ExtractorUnavailable).status).toBeNull();
  });
});
