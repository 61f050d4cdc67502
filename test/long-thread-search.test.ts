import { describe, expect, it } from "vitest";
import { RANKED_MATCH_BUDGET } from "../src/retrieval/query-terms";
import { message, newThread } from "./helpers";

/**
 * Full-text search over a long thread ranks only terms rare enough to rank cheaply (query-terms.ts
 * rankedTerms): a word in more messages than the budget is left out of bm25, so the cost stays bounded.
 * The rare word must still find its message.
 */
describe("searching a thread longer than the ranking budget", () => {
  it("finds an old message by its rare word when the question's other words are everywhere", async () => {
    const t = await newThread();
    const total = RANKED_MATCH_BUDGET + 200;
    const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
    await t.events([message("Status of the greenhouse: the kiln permit number is KP-7731.", { ts: at(0) })]);
    for (let start = 1; start < total; start += 500) {
      const batch = Array.from({ length: Math.min(500, total - start) }, (_, k) =>
        message(`Status report ${start + k}: the permit queue moved along today.`, { ts: at(start + k) }),
      );
      expect((await t.events(batch)).status).toBe(200);
    }
    const found = await t.context({ query: "What is the kiln permit status?", budget_tokens: 2000 });
    expect(found.json.context).toContain("KP-7731");
  }, 120_000);
});
