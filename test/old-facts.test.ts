import { describe, expect, it } from "vitest";
import { call, fact, newThread } from "./helpers";

/**
 * A compile asks D1's indexes for the facts that can matter to its query (src/facts/fact-candidates.ts),
 * not for the project's newest versions: a current fact is found whatever its age. Before, a thread
 * loaded the newest 5,000 versions and a fact older than those vanished from every context.
 */
describe("an old current fact behind thousands of newer ones", () => {
  it("is compiled when asked about, with its superseded value left out", async () => {
    const t = await newThread();
    const old = { ts: "2024-01-01T00:00:00Z" };
    await t.events([fact("warehouse_location", "Our warehouse is in Spokane", { id: "wh-1", ...old })]);
    // A rule of the organisation, as old, sharing no word with the question: it applies all the same.
    await t.events([
      fact("export_rule", "Customer records never leave the EU region", {
        source: { type: "policy" },
        ts: "2024-01-01T12:00:00Z",
      }),
    ]);
    await t.events([
      fact("warehouse_location", "Our warehouse is in Tacoma", { id: "wh-2", ts: "2024-01-02T00:00:00Z" }),
    ]);
    // 5,100 newer facts of other subjects, in batches of 300.
    for (let batch = 0; batch < 17; batch++) {
      const events = Array.from({ length: 300 }, (_, i) => {
        const n = batch * 300 + i;
        return fact(`sensor_${n}_reading`, `Sensor ${n} on line ${n % 7} reads ${n * 3} units`, {
          ts: new Date(Date.UTC(2024, 1, 1, 0, 0, n)).toISOString(),
        });
      });
      const res = await t.events(events);
      expect(res.status).toBe(200);
    }

    const ctx = await t.context({ query: "Where is our warehouse?", budget_tokens: 1000 });
    expect(ctx.status).toBe(200);
    expect(ctx.json.context).toContain("Tacoma");
    expect(ctx.json.context).not.toContain("Spokane");
    expect(ctx.json.context).toContain("never leave the EU region");
    expect(ctx.json.trace.candidates.facts.standing).toBeGreaterThanOrEqual(1);
    const candidates = ctx.json.trace.candidates;
    expect(candidates.facts.matched).toBeGreaterThanOrEqual(1);
    expect(candidates.facts.history).toBeGreaterThanOrEqual(1);
    // The newest versions were cut to their bound, and the trace says so.
    expect(candidates.truncated).toBe(true);
    expect(candidates.facts.truncated).toContain("recent");
    expect(candidates.total).toBeLessThan(2_000);

    // A question about none of it still sees the newest facts.
    const recent = await t.context({ query: "What does sensor 5099 read?", budget_tokens: 1000 });
    expect(recent.json.context).toContain("15297 units");

    // The state view lists the newest 1,000 current facts and says it left the rest out.
    const state = await call("GET", `/threads/${t.thread}/state`);
    expect(state.json.facts).toHaveLength(1_000);
    expect(state.json.facts_truncated).toBe(true);
    expect(state.json.facts.some((f: { key: string }) => f.key === "sensor_5099_reading")).toBe(true);
  }, 120_000);
});
