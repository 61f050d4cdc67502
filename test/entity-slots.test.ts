import { describe, expect, it } from "vitest";
import { call, fact, newThread } from "./helpers";

/**
 * Issue 17 item 5 through the public API: two keys about the same registered entity and attribute are
 * one slot ("project_kestrel_budget" and "kestrel_budget" both fill Project Kestrel's budget), so a write
 * to one supersedes the other, the authority ladder weighs them against each other, and both versions
 * stay in one history. Keys of another entity or another attribute are other slots.
 */

describe("one slot across keys", () => {
  it("'kestrel_budget' supersedes 'project_kestrel_budget': one entity and attribute, one history", async () => {
    const t = await newThread();
    await t.events([fact("project_kestrel_budget", "$40,000", { id: "k1" })]);
    const res = await t.events([fact("kestrel_budget", "$46,000", { id: "k2" })]);
    expect(res.json.facts[0], JSON.stringify(res.json)).toMatchObject({
      id: "k2",
      outcome: "superseded_previous",
      supersedes: "k1",
    });
    const history = await call("GET", "/facts/k2/history?as_user=u1");
    expect(history.json.chain).toEqual(["k1", "k2"]);
    expect(history.json.current.id).toBe("k2");

    const ctx = await t.context({ query: "What is the Kestrel budget?" });
    expect(ctx.json.context).toContain("$46,000");
    expect(ctx.json.context).not.toContain("$40,000");
  });

  it("another entity's budget, or the same entity's other attribute, is another slot", async () => {
    const t = await newThread();
    await t.events([
      fact("project_kestrel_budget", "$40,000", { id: "n1" }),
      fact("project_osprey_budget", "$12,000", { id: "n2" }),
    ]);
    const res = await t.events([
      fact("osprey_budget", "$15,000", { id: "n3" }),
      fact("kestrel_launch", "June 2", { id: "n4" }),
    ]);
    expect(res.json.facts.map((f: any) => [f.id, f.outcome, f.supersedes])).toEqual([
      ["n3", "superseded_previous", "n2"],
      ["n4", "created", null],
    ]);
    const kestrel = await call("GET", "/facts/n1/history?as_user=u1");
    expect(kestrel.json.current.id).toBe("n1");
  });

  it("the authority ladder holds across keys: a lower authority's write under the other key is disputed", async () => {
    const t = await newThread({ user_id: "u1", user_name: "Ada", authority: "intern" });
    await t.events([
      fact("project_kestrel_budget", "$40,000", {
        id: "a1",
        source: { type: "user", authority: "VP Finance" },
      }),
    ]);
    const res = await t.events([fact("kestrel_budget", "$90,000", { id: "a2" })]);
    expect(res.json.facts[0], JSON.stringify(res.json)).toMatchObject({ id: "a2", outcome: "disputed" });
    const history = await call("GET", "/facts/a1/history?as_user=u1");
    expect(history.json.current.id).toBe("a1");
  });
});
