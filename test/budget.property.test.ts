import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { fact, message, newThread } from "./helpers";

/**
 * For arbitrary histories of writes, supersessions and messages, and arbitrary budgets, the compiled
 * context never exceeds the budget (counted independently here) and never holds a superseded value.
 */
const word = fc.stringMatching(/^[a-z]{3,9}$/);
const history = fc.record({
  keys: fc.uniqueArray(word, { minLength: 1, maxLength: 6 }),
  writes: fc.array(
    fc.record({ keyIndex: fc.nat(), filler: fc.array(word, { maxLength: 40 }), bySupersedes: fc.boolean() }),
    {
      minLength: 1,
      maxLength: 25,
    },
  ),
  messages: fc.array(fc.array(word, { minLength: 1, maxLength: 60 }), { maxLength: 15 }),
  budget: fc.integer({ min: 64, max: 1500 }),
  share: fc.double({ min: 0.05, max: 1, noNaN: true }),
  query: fc.array(word, { minLength: 1, maxLength: 5 }),
});

describe("compile budget and supersession property", () => {
  it("never exceeds budget_tokens and never contains a superseded value", async () => {
    await fc.assert(
      fc.asyncProperty(history, async (h) => {
        const t = await newThread();
        const values: { id: string; key: string; value: string }[] = [];
        const events = h.writes.map((w, i) => {
          const key = h.keys[w.keyIndex % h.keys.length] as string;
          const previous = [...values].reverse().find((v) => v.key === key);
          // Values carry a unique marker so a substring check cannot confuse two versions.
          const value = `VAL${String(i).padStart(3, "0")}Z ${w.filler.join(" ")}`;
          values.push({ id: `f${i}`, key, value });
          const ts = new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString();
          return fact(key, value, {
            id: `f${i}`,
            ts,
            ...(w.bySupersedes && previous ? { supersedes: previous.id } : {}),
          });
        });
        const chat = h.messages.map((words, i) =>
          message(words.join(" "), { id: `m${i}`, ts: new Date(Date.UTC(2025, 0, 2, 0, i)).toISOString() }),
        );
        expect((await t.events([...events, ...chat])).status).toBe(200);

        const res = await t.context({
          query: h.query.join(" "),
          budget_tokens: h.budget,
          facts_share: h.share,
        });
        expect(res.status).toBe(200);
        expect(countTokens(res.json.context)).toBeLessThanOrEqual(h.budget);
        expect(res.json.tokens).toBeLessThanOrEqual(h.budget);

        const current = new Map(values.map((v) => [v.key, v.id]));
        for (const v of values) {
          if (current.get(v.key) === v.id) continue;
          expect(res.json.context).not.toContain(v.value.slice(0, 8));
        }
      }),
      { numRuns: 40 },
    );
    // Forty HTTP round trips: the harness limit, not a speed expectation, is what this raises.
  }, 120_000);
});
