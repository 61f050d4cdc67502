import { describe, expect, it } from "vitest";
import { call, fact, newThread } from "./helpers";

/**
 * Seed 001's reconciliation ends in quarantine when two live claims about one slot tie on authority,
 * valid time and source trust: neither reaches the envelope, the trace lists both, and the thread
 * holds a pending confirmation instead of asking the model to choose.
 */
describe("quarantine of a true contradiction, through the API", () => {
  const at = "2025-03-01T09:00:00Z";
  const rivals = [
    fact("launch_date", "Launch on March 3", { id: "q1", ts: at, source: { type: "user" } }),
    fact("release_date", "Launch on March 10", {
      id: "q2",
      ts: at,
      source: { type: "user" },
      context: { aliases: ["launch_date"] },
    }),
  ];

  it("keeps both claims out, lists them in the trace and raises one confirmation question", async () => {
    const t = await newThread();
    const written = await t.events([...rivals, fact("venue", "Hall B", { id: "v1", ts: at })]);
    expect(written.status).toBe(200);
    // Different keys: the write path supersedes neither; the compiler sees the tie on the shared slot.
    expect(written.json.facts.map((f: { outcome: string }) => f.outcome)).toEqual([
      "created",
      "created",
      "created",
    ]);

    const ctx = await t.context({ query: "When is the launch, and where?", budget_tokens: 800 });
    expect(ctx.status).toBe(200);
    expect(ctx.json.context).toContain("Hall B");
    expect(ctx.json.context).not.toContain("March 3");
    expect(ctx.json.context).not.toContain("March 10");
    const quarantined = ctx.json.trace.quarantined.map((q: { object_id: string }) => q.object_id).sort();
    expect(quarantined).toEqual(["q1", "q2"]);
    for (const q of ctx.json.trace.quarantined) expect(q.contradiction_status).toBe("quarantined");
    const compiled = ctx.json.trace.compiled.map((c: { object_id: string }) => c.object_id);
    expect(compiled).not.toContain("q1");
    expect(compiled).not.toContain("q2");

    // The stored trace says the same.
    const stored = await call("GET", `/v1/tenants/acme/traces/${ctx.json.trace_id}`);
    expect(stored.json.trace.quarantined).toEqual(ctx.json.trace.quarantined);

    // A pending confirmation in state names the slot and both objects, never their values.
    const state = await call("GET", `/threads/${t.thread}/state`);
    const questions = state.json.items.filter((i: { type_tag: string }) => i.type_tag === "question");
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatchObject({ status: "open", conflict: true });
    expect(questions[0].text).toBe("Confirm which claim about launch_date holds: q1 vs q2");

    // Compiling again raises no second question, and the next envelope carries the open question.
    const again = await t.context({ query: "When is the launch?", budget_tokens: 800 });
    expect(again.json.context).toContain("Confirm which claim about launch_date holds");
    expect(again.json.context).not.toMatch(/March (3|10)/);
    const after = await call("GET", `/threads/${t.thread}/state`);
    expect(after.json.items.filter((i: { type_tag: string }) => i.type_tag === "question")).toHaveLength(1);
  });

  it("a claim of higher authority settles the slot instead: the other is overridden, nothing is quarantined", async () => {
    const t = await newThread();
    await t.events([rivals[0], { ...rivals[1], source: { type: "policy" } }]);
    const ctx = await t.context({ query: "When is the launch?", budget_tokens: 800 });
    expect(ctx.json.trace.quarantined).toEqual([]);
    expect(ctx.json.context).toContain("March 10");
    expect(ctx.json.context).not.toContain("March 3");
    const q1 = ctx.json.trace.omitted.find((o: { object_id: string }) => o.object_id === "q1");
    expect(q1).toMatchObject({ reason: "overridden" });
  });
});
