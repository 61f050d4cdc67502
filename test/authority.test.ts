import { describe, expect, it } from "vitest";
import { authorityRank } from "../src/facts/authority";
import { call, fact, newThread } from "./helpers";

describe("authority ladder", () => {
  it.each([
    ["board", 5],
    ["Policy", 5],
    ["CFO", 4],
    ["VP of Sales", 4],
    ["Director, Engineering", 4],
    ["Senior Sales Manager", 3],
    ["Vendor Manager", 3],
    ["employee", 2],
    ["Account Executive", 2],
    ["People Ops", 2],
    ["intern", 1],
    ["guest", 1],
    [undefined, 2],
  ])("ranks %s as %i", (title, rank) => {
    expect(authorityRank(title)).toBe(rank);
  });
});

describe("authority rule (seed 000, rule 3)", () => {
  it("keeps a lower-authority write as disputed and the higher fact current", async () => {
    const t = await newThread({ user_id: "u-emp", authority: "employee" });
    await t.events([
      fact("discount_policy", "Max discount is 15%", { id: "d1", source: { type: "policy" } }),
    ]);
    const res = await t.events([fact("discount_policy", "We can offer 25%", { id: "d2" })]);
    expect(res.json.facts[0], JSON.stringify(res.json)).toMatchObject({ id: "d2", outcome: "disputed" });
    const history = await call("GET", "/facts/d1/history?as_user=u-emp");
    expect(history.json.current.id).toBe("d1");
    const disputed = history.json.versions.find((v: any) => v.id === "d2");
    expect(disputed).toMatchObject({ contradiction_status: "disputed" });
    expect(disputed.status_reason).toMatch(/cannot supersede d1/);
  });

  it("lets an equal or higher authority supersede", async () => {
    const t = await newThread({ user_id: "u-vp", authority: "VP Finance" });
    await t.events([
      fact("travel_cap", "$2,000", { id: "t1", source: { type: "user", authority: "manager" } }),
    ]);
    const res = await t.events([fact("travel_cap", "$3,000", { id: "t2" })]);
    expect(res.json.facts[0]).toMatchObject({ outcome: "superseded_previous", supersedes: "t1" });
  });
});
