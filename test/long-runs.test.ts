import { countTokens as exact } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { detailForms, truncateToTokens } from "../src/detail-forms/detail-forms";
import { countInSlices, LONG_RUN, LONG_RUN_SLICE, loadTokenCounter } from "../src/tokens/count-tokens";
import { call, fact, message, newThread } from "./helpers";

/**
 * Text with no space or punctuation for a long stretch (a run of one letter, unpunctuated CJK, a
 * minified value) is one piece for the tokenizer, whose time on a piece grows with its square: such a
 * run is counted in slices (count-tokens.ts), and a detail form of text whose first word is longer
 * than the form keeps that word's head instead of nothing.
 */

const plain = (text: string) => exact(text, { allowedSpecial: new Set(), disallowedSpecial: new Set() });

describe("counting long runs", () => {
  it("counts ordinary text exactly, and a long run within a token per slice of the exact count", async () => {
    const count = await loadTokenCounter();
    const prose = "The orchard ledger lists 14 ladders, 3 sheds and one very old tractor. ".repeat(400);
    expect(count(prose)).toBe(plain(prose));
    const run = `Header ${"ü".repeat(LONG_RUN * 3 + 17)} footer line`;
    const sliced = countInSlices(plain, run);
    const slices = Math.ceil((LONG_RUN * 3 + 17) / LONG_RUN_SLICE);
    expect(Math.abs(sliced - plain(run))).toBeLessThanOrEqual(slices + 2);
    expect(count(run)).toBe(sliced);
  });

  it("stores a 1 MiB message that is one unbroken run, and compiles beside it", async () => {
    const t = await newThread();
    const events = await t.events([
      message("ж".repeat(1_048_576), { id: "r1" }),
      message("The greenhouse key is in the blue box.", { id: "r2" }),
    ]);
    expect(events.status).toBe(200);
    const ctx = await t.context({ query: "Where is the greenhouse key?", budget_tokens: 2000 });
    expect(ctx.status).toBe(200);
    expect(ctx.json.context).toContain("blue box");
  }, 60_000);
});

describe("detail forms of text whose first word is longer than the form", () => {
  it("keep the head of that word", async () => {
    const count = await loadTokenCounter();
    const value = JSON.stringify(
      Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`opt${i}`, `val${i}`])),
    );
    const cut = truncateToTokens(value, 40, count);
    expect(cut.length).toBeGreaterThan(20);
    expect(value.startsWith(cut.slice(0, -1))).toBe(true);
    expect(count(cut)).toBeLessThanOrEqual(40);
    expect(detailForms(value, count).summary).not.toBe("");
  });

  it("shows a fact whose value has no spaces in its summary form", async () => {
    const t = await newThread();
    const value = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`opt${i}`, `val${i}`]));
    expect((await t.events([fact("big_config", value)])).status).toBe(200);
    const ctx = await t.context({ query: "What is in big_config?", budget_tokens: 300 });
    const entry = ctx.json.trace.compiled.find((c: { kind: string }) => c.kind === "fact");
    expect(entry?.detail).not.toBe("full");
    expect(ctx.json.context).toMatch(/big_config: \{"opt0":"val0"/);
    const state = await call("GET", `/threads/${t.thread}/state`);
    expect(state.status).toBe(200);
  });
});
