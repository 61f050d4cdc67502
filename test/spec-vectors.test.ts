import { describe, expect, it } from "vitest";
import { fact, message, newThread } from "./helpers";

describe("seed 000 test vectors, through HTTP", () => {
  it("Test 1: basic supersession compiles the new value and never the old", async () => {
    const t = await newThread();
    await t.events([fact("status_v1", "approved", { id: "s1", ts: "2025-01-01T00:00:00Z" })]);
    const write = await t.events([
      fact("status_v2", "cancelled", { id: "s2", ts: "2025-01-02T00:00:00Z", supersedes: "status_v1" }),
    ]);
    expect(write.json.facts[0]).toMatchObject({ id: "s2", outcome: "superseded_previous", supersedes: "s1" });
    const ctx = await t.context({ query: "What is the current status?" });
    expect(ctx.status).toBe(200);
    expect(ctx.json.context).toContain("cancelled");
    expect(ctx.json.context).not.toContain("approved");
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({ object_id: "s1", reason: "superseded" }),
    );
  });

  it("Test 2: emphatic repetition does not outvote supersession", async () => {
    const t = await newThread();
    await t.events([
      message("The order is approved.", { id: "m1", ts: "2025-01-01T00:00:00Z" }),
      message("Yes, approved, approved!", { id: "m2", ts: "2025-01-01T00:01:00Z" }),
      fact("order_v1", "approved", { id: "o1", ts: "2025-01-01T00:02:00Z" }),
      fact("order_v1", "approved", { id: "o1b", ts: "2025-01-01T00:03:00Z" }),
      fact("order_v1", "approved", { id: "o1c", ts: "2025-01-01T00:04:00Z" }),
      fact("order_v2", "cancelled", { id: "o2", ts: "2025-01-02T00:00:00Z", supersedes: "order_v1" }),
    ]);
    const ctx = await t.context({ query: "Should we proceed with the order?" });
    const factsSection = ctx.json.context.split("## Current facts")[1]?.split("\n\n")[0] ?? "";
    expect(factsSection).toContain("cancelled");
    expect(factsSection).not.toContain("approved");
    for (const id of ["o1", "o1b", "o1c"]) {
      expect(ctx.json.trace.omitted).toContainEqual(
        expect.objectContaining({ object_id: id, reason: "superseded" }),
      );
    }
  });

  it("Test 3: an intern cannot supersede the CFO's policy", async () => {
    const t = await newThread({ user_id: "intern-1", authority: "intern" });
    await t.events([
      fact("policy", "max 15%", {
        id: "p1",
        source: { type: "user", authority: "CFO" },
        is_constraint: true,
        constraint_type: "policy",
      }),
    ]);
    const attempt = await t.events([
      message("Let's offer 25%", { id: "m1" }),
      fact("policy", "offer 25%", { id: "p2", supersedes: "policy" }),
    ]);
    expect(attempt.json.facts).toContainEqual(expect.objectContaining({ id: "p2", outcome: "disputed" }));
    expect(attempt.json.facts.find((f: { id: string }) => f.id === "p2").reason).toMatch(
      /cannot supersede p1/,
    );
    const ctx = await t.context({ query: "Can we offer 25%?" });
    expect(ctx.json.context).toContain("max 15%");
    expect(ctx.json.trace.compiled).toContainEqual(
      expect.objectContaining({ object_id: "p1", section: "rules", compiled_as: "hard_constraint" }),
    );
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({ object_id: "p2", reason: "disputed" }),
    );
  });
});

describe("dead claims in the transcript", () => {
  it("masks or elides recent messages that restate a superseded value", async () => {
    const t = await newThread();
    await t.events([
      message("3 days in office.", { id: "m1", ts: "2025-01-01T00:00:00Z" }),
      message("The team decided on 3 days in office after a long debate.", {
        id: "m0",
        ts: "2025-01-01T00:00:00Z",
      }),
      fact("policy_decision", "3 days in office", { id: "p1", ts: "2025-01-01T00:00:01Z" }),
      message("Per the CEO, we'll be doing monthly reviews.", { id: "m2", ts: "2025-01-02T00:00:00Z" }),
      fact("policy_decision", "monthly reviews", { id: "p2", ts: "2025-01-02T00:00:01Z" }),
    ]);
    const ctx = await t.context({ query: "What policy are we following?" });
    expect(ctx.json.context).toContain("monthly reviews");
    expect(ctx.json.context).not.toContain("3 days in office");
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({
        object_id: "m1",
        kind: "message",
        reason: "superseded",
        detail: "restates p1",
      }),
    );
    expect(ctx.json.trace.compiled).toContainEqual(
      expect.objectContaining({ object_id: "m2", refs: ["m2"] }),
    );
  });
});

describe("environment freshness", () => {
  it("a newer environment value replaces the old one everywhere in the envelope", async () => {
    const t = await newThread(undefined, {
      environment: { deadline: "Quarter end is December 31st (2 weeks away)" },
    });
    await t.events([
      message("Note: Quarter end is December 31st (2 weeks away)", { id: "m1", ts: "2025-12-01T09:00:00Z" }),
      fact("deadline", "Quarter ends tomorrow (Dec 31). Final day for Q4 deals.", {
        id: "env2",
        layer: "environment",
        ts: "2025-12-30T09:00:00Z",
      }),
      fact("deadline", "stale late write", { id: "env0", layer: "environment", ts: "2025-11-01T09:00:00Z" }),
      message("Update: Quarter ends tomorrow (Dec 31). Final day for Q4 deals.", {
        id: "m2",
        ts: "2025-12-30T09:00:00Z",
      }),
    ]);
    const ctx = await t.context({ query: "How urgent is closing the deal?", now: "2025-12-30T10:00:00Z" });
    expect(ctx.json.context).toContain("Final day for Q4 deals");
    expect(ctx.json.context).not.toContain("2 weeks");
    expect(ctx.json.context).not.toContain("stale late write");
    expect(ctx.json.trace.omitted).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ object_id: "environment:deadline", reason: "superseded" }),
        expect.objectContaining({ object_id: "env0", reason: "superseded" }),
        expect.objectContaining({ object_id: "m1", reason: "superseded" }),
      ]),
    );
  });
});
