import { describe, expect, it } from "vitest";
import { call, fact, message, newThread, until } from "./helpers";

describe("supersession chains", () => {
  it("one batch updating hundreds of slots finds each slot's current version and links every chain", async () => {
    // More ids, keys and lineages than one statement binds parameters for: the planning read takes them
    // all, so every update supersedes its slot's version instead of adding a second current one.
    const t = await newThread();
    const slots = Array.from({ length: 240 }, (_, i) => `shelf_${i}_bin`);
    await t.events(
      slots.map((key, i) => fact(key, `bin A${i}`, { id: `shelf-a${i}`, ts: "2025-02-01T00:00:00Z" })),
    );
    const updated = await t.events(
      slots.map((key, i) => fact(key, `bin B${i}`, { id: `shelf-b${i}`, ts: "2025-02-02T00:00:00Z" })),
    );
    expect(updated.status).toBe(200);
    expect(updated.json.facts.map((f: { outcome: string }) => f.outcome)).toEqual(
      slots.map(() => "superseded_previous"),
    );
    for (const i of [0, 97, 239]) {
      const history = await call("GET", `/facts/shelf-a${i}/history?as_user=u1`);
      expect(history.json.chain).toEqual([`shelf-a${i}`, `shelf-b${i}`]);
      expect(history.json.current.id).toBe(`shelf-b${i}`);
    }
    const current = await call("GET", `/facts?key=shelf_97_bin&as_user=u1`);
    expect(current.json.facts.map((f: { value: string }) => f.value)).toEqual(["bin B97"]);
  });

  it("follows a chain of four versions by key, by id and by implicit same-key update", async () => {
    const t = await newThread();
    await t.events([fact("budget", "$50,000", { id: "b1", ts: "2025-01-01T00:00:00Z" })]);
    await t.events([fact("budget", "$75,000", { id: "b2", ts: "2025-01-02T00:00:00Z" })]);
    await t.events([
      fact("budget_revised", "$90,000", { id: "b3", ts: "2025-01-03T00:00:00Z", supersedes: "b2" }),
    ]);
    const last = await t.events([
      fact("budget_final", "$150,000", {
        id: "b4",
        ts: "2025-01-04T00:00:00Z",
        supersedes: "budget_revised",
      }),
    ]);
    expect(last.json.facts[0]).toMatchObject({ outcome: "superseded_previous", supersedes: "b3" });

    const history = await call("GET", "/facts/b1/history?as_user=u1");
    expect(history.status).toBe(200);
    expect(history.json.chain).toEqual(["b1", "b2", "b3", "b4"]);
    expect(history.json.current.id).toBe("b4");
    expect(history.json.versions.filter((v: any) => v.tx_end === null).map((v: any) => v.id)).toEqual(["b4"]);

    const ctx = await t.context({ query: "What is the budget?" });
    expect(ctx.json.context).toContain("$150,000");
    for (const dead of ["$50,000", "$75,000", "$90,000"]) expect(ctx.json.context).not.toContain(dead);
  });

  it("a turn that stated a replaced figure in other words leaves the context; later turns stay", async () => {
    const t = await newThread();
    await t.events([
      message("I'm working on the Umbrella deal. They want a 25% discount. I got VP approval.", {
        id: "m1",
        ts: "2025-12-02T15:02:00Z",
      }),
      fact("umbrella_discount", "25% discount approved for Umbrella", {
        id: "ud1",
        ts: "2025-12-02T15:03:00Z",
      }),
      fact("discount_policy", "Max 10% discount without VP approval", {
        id: "up1",
        ts: "2025-06-01T00:00:00Z",
      }),
    ]);
    await t.events([
      fact("umbrella_discount_v2", "discount for Umbrella revoked; credit issue", {
        id: "ud2",
        ts: "2025-12-02T15:36:00Z",
        supersedes: "umbrella_discount",
      }),
      message("Bad news - credit issue. We're back to standard policy for Umbrella.", {
        id: "m2",
        ts: "2025-12-02T15:37:00Z",
      }),
      message("Umbrella expects 25% growth next year, nice.", { id: "m3", ts: "2025-12-02T15:38:00Z" }),
    ]);
    const ctx = await t.context({ query: "Can I offer Umbrella the discount we discussed?" });
    expect(ctx.json.context).toContain("revoked");
    expect(ctx.json.context).toContain("Max 10% discount");
    // m1 believed the replaced 25% when it was said: elided whole, not masked.
    expect(ctx.json.context).not.toContain("They want a");
    const omitted = ctx.json.trace.omitted.find((o: { object_id: string }) => o.object_id === "m1");
    expect(omitted).toMatchObject({ reason: "superseded", detail: "restates ud1" });
    // Turns after the replacement speak from the new state or of other things: they stay.
    expect(ctx.json.context).toContain("back to standard policy");
    expect(ctx.json.context).toContain("expects 25% growth");
  });

  it("a turn that restated a replaced claim in other words leaves even when a live policy states its figure", async () => {
    const t = await newThread();
    await t.events([
      fact("discount_policy", "Max 25% discount without VP approval", {
        id: "pp1",
        ts: "2025-06-01T00:00:00Z",
      }),
      message("Reminder from finance: max 25% discount unless a VP signs off.", {
        id: "p0",
        ts: "2025-12-02T15:00:00Z",
      }),
      message("I'm working on the Umbrella deal. They want a 25% discount. I got VP approval.", {
        id: "p1",
        ts: "2025-12-02T15:02:00Z",
      }),
      fact("umbrella_discount", "25% discount approved for Umbrella", {
        id: "pd1",
        ts: "2025-12-02T15:03:00Z",
      }),
    ]);
    await t.events([
      fact("umbrella_discount_v2", "discount for Umbrella revoked; margin requirements", {
        id: "pd2",
        ts: "2025-12-02T15:36:00Z",
        supersedes: "umbrella_discount",
      }),
    ]);
    const ctx = await t.context({ query: "Can I offer Umbrella the discount we discussed?" });
    expect(ctx.json.context).toContain("revoked");
    // The policy is live, so its 25% is not dead; the turn still said the replaced claim's every term.
    expect(ctx.json.context).toContain("Max 25% discount without VP approval");
    expect(ctx.json.context).not.toContain("They want a");
    const omitted = ctx.json.trace.omitted.find((o: { object_id: string }) => o.object_id === "p1");
    expect(omitted).toMatchObject({ reason: "superseded", detail: "restates pd1" });
    // A turn with the same figure about the policy, not the deal, is not that claim.
    expect(ctx.json.context).toContain("Reminder from finance");
  });

  it("superseding an id that is already superseded displaces the chain's current head", async () => {
    const t = await newThread();
    await t.events([
      fact("city", "Paris", { id: "c1", ts: "2024-01-01T00:00:00Z" }),
      fact("city", "Berlin", { id: "c2", ts: "2024-02-01T00:00:00Z" }),
    ]);
    const res = await t.events([
      fact("city", "Rome", { id: "c3", ts: "2024-03-01T00:00:00Z", supersedes: "c1" }),
    ]);
    expect(res.json.facts[0]).toMatchObject({ supersedes: "c2" });
    const ctx = await t.context({ query: "city" });
    expect(ctx.json.context).toContain("Rome");
    expect(ctx.json.context).not.toMatch(/Paris|Berlin/);
  });

  it("applies one call's events in (ts, id) order, whatever order they arrive in", async () => {
    const t = await newThread();
    await t.events([
      fact("plan", "third", { id: "x3", ts: "2025-01-03T00:00:00Z" }),
      fact("plan", "first", { id: "x1", ts: "2025-01-01T00:00:00Z" }),
      fact("plan", "second", { id: "x2", ts: "2025-01-02T00:00:00Z" }),
    ]);
    const history = await call("GET", "/facts/x1/history?as_user=u1");
    expect(history.json.chain).toEqual(["x1", "x2", "x3"]);
  });

  it("marks derived facts needs_review when what they depend on is superseded", async () => {
    const t = await newThread();
    await t.events([
      fact("available_budget", "$200,000", { id: "a1", ts: "2023-12-01T00:00:00Z" }),
      fact("derived_decision", "Approved $150,000 purchase", {
        id: "d1",
        depends_on: ["available_budget"],
        ts: "2024-01-01T00:00:00Z",
      }),
    ]);
    await t.events([fact("available_budget", "$120,000", { id: "a2", ts: "2024-01-02T00:00:00Z" })]);
    const history = await call("GET", "/facts/d1/history?as_user=u1");
    expect(history.json.current, JSON.stringify(history.json)).toMatchObject({
      id: "d1",
      needs_review: true,
      depends_on: ["a1"],
    });
  });

  it("re-ingesting the same events is counted as duplicates and changes nothing", async () => {
    const t = await newThread();
    const batch = [
      {
        type: "message",
        id: "m1",
        role: "user",
        content: "The budget is $50,000",
        ts: "2025-01-01T00:00:00Z",
      },
      fact("budget", "$50,000", { id: "f1", ts: "2025-01-01T00:00:00Z" }),
      fact("scratch", "draft numbers", { id: "w1", layer: "working", ts: "2025-01-01T00:00:00Z" }),
    ];
    const first = await t.events(batch);
    expect(first.json).toMatchObject({ accepted: 3, duplicates: 0 });
    const before = await call("GET", `/threads/${t.thread}/state`);
    const again = await t.events(batch);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ accepted: 0, duplicates: 3 });
    const after = await call("GET", `/threads/${t.thread}/state`);
    expect(after.json).toEqual(before.json);

    const inOneCall = await t.events([fact("other", "x", { id: "f9" }), fact("other", "x", { id: "f9" })]);
    expect(inOneCall.json).toMatchObject({ accepted: 1, duplicates: 1 });
  });
});

describe("a correction that names no slot, in a project other threads write to", () => {
  it("is about the conversation's own slot, not another thread's fact that mentions its figure", async () => {
    const mine = await newThread();
    const other = await newThread(undefined, { project: mine.project });
    const renewal = "Contract 10320 with Acme Tools renews on 2027-09-13 at $40,000 a year";
    expect((await other.events([fact("contract_10320_renewal", renewal)])).status).toBe(200);
    const sent = await mine.events([
      message("The project budget is $100,000.", { ts: "2025-12-01T09:02:00Z" }),
      message("Make that $40,000.", { ts: "2025-12-01T09:06:00Z" }),
    ]);
    expect(sent.status).toBe(200);
    await until(
      () => call("GET", `/threads/${mine.thread}/state`),
      (res) => res.json.watermark.pending_messages === 0,
    );
    const current = async (key: string) => {
      const res = await call("GET", `/facts?project_id=${mine.project}&key=${key}&as_user=u1`);
      return res.json.facts.map((f: { value: string }) => f.value);
    };
    expect(await current("project_budget")).toEqual(["$40,000"]);
    expect(await current("contract_10320_renewal")).toEqual([renewal]);
  });
});
