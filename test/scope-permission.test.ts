import { describe, expect, it } from "vitest";
import { ask, call, fact, message, newThread } from "./helpers";

describe("scope filtering", () => {
  it("never compiles hypothetical, draft, other-task or other-session facts", async () => {
    const t = await newThread();
    await t.events([
      fact("deadline", "No committed deadline", { id: "g1" }),
      fact("deadline_estimate", "maybe 3 months", { id: "h1", scope: "hypothetical" }),
      fact("deadline_draft", "draft: 6 months", { id: "dr1", scope: "draft" }),
      fact("deadline_task", "task-only 9 weeks", { id: "tk1", scope: "task", scope_id: "estimate-42" }),
      fact("deadline_other_session", "other session 2 weeks", {
        id: "s1",
        scope: "session",
        scope_id: "another-thread",
      }),
      fact("sandbox_note", "[SCOPE: what-if discussion] deadline could be 4 months", { id: "mk1" }),
    ]);
    const ctx = await t.context({ query: "What is our committed deadline?" });
    expect(ctx.json.context).toContain("No committed deadline");
    for (const leaked of ["3 months", "6 months", "9 weeks", "2 weeks", "4 months"])
      expect(ctx.json.context).not.toContain(leaked);
    const reasons = Object.fromEntries(ctx.json.trace.omitted.map((o: any) => [o.object_id, o.reason]));
    expect(reasons).toMatchObject({
      h1: "out_of_scope",
      dr1: "out_of_scope",
      tk1: "out_of_scope",
      s1: "out_of_scope",
      mk1: "out_of_scope",
    });

    const inTask = await t.context({ query: "deadline", task_id: "estimate-42" });
    expect(inTask.json.context).toContain("task-only 9 weeks");
  });

  it("a hypothetical write never supersedes the global fact of the same key", async () => {
    const t = await newThread();
    await t.events([fact("price", "$50k", { id: "p1" })]);
    const res = await t.events([fact("price", "$30k", { id: "p2", scope: "hypothetical" })]);
    expect(res.json.facts[0]).toMatchObject({ outcome: "created", supersedes: null });
    const ctx = await t.context({ query: "price" });
    expect(ctx.json.context).toContain("$50k");
    expect(ctx.json.context).not.toContain("$30k");
  });
});

describe("permission filtering", () => {
  const facts = [
    fact("pricing", "Standard enterprise pricing is $50k/year", { id: "pub" }),
    fact("floor", "[RESTRICTED: Strategic pricing restricted to VP+] Board approved floor of $30k", {
      id: "vp",
    }),
    fact("comp", "Cross-team salary bands", { id: "hr", allow_roles: ["hr"] }),
    fact("incident", "Active breach in billing", { id: "conf", classification: "confidential" }),
    fact("layoffs", "Layoffs planned", { id: "deny", deny_roles: ["sales rep"] }),
  ];

  it("hides what a sales rep may not see", async () => {
    const t = await newThread({ user_id: "mike", authority: "Sales Rep", department: "Sales" });
    await t.events(facts);
    const ctx = await t.context({ query: "lowest price pricing floor salary incident layoffs" });
    expect(ctx.json.context).toContain("$50k/year");
    for (const hidden of ["$30k", "salary bands", "breach", "Layoffs"])
      expect(ctx.json.context).not.toContain(hidden);
    const reasons = Object.fromEntries(ctx.json.trace.omitted.map((o: any) => [o.object_id, o.reason]));
    expect(reasons).toMatchObject({
      vp: "not_permitted",
      hr: "not_permitted",
      conf: "not_permitted",
      deny: "not_permitted",
    });
  });

  it("shows a VP the restricted and confidential facts, and HR the HR-only fact", async () => {
    const vp = await newThread({ user_id: "vera", authority: "VP Sales", roles: ["sales"] });
    await vp.events(facts);
    const vpCtx = await vp.context({ query: "pricing floor incident" });
    expect(vpCtx.json.context).toContain("$30k");
    expect(vpCtx.json.context).toContain("breach");
    expect(vpCtx.json.context).not.toContain("salary bands");

    const hr = await newThread({ user_id: "hana", authority: "HR Partner", roles: ["hr"] });
    await hr.events(facts);
    expect((await hr.context({ query: "salary" })).json.context).toContain("salary bands");
  });

  it("request roles narrow visibility but never widen it", async () => {
    const t = await newThread({ user_id: "vic", authority: "VP Sales", roles: ["sales", "hr"] });
    await t.events(facts);
    expect((await t.context({ query: "salary" })).json.context).toContain("salary bands");
    const narrowed = await t.context({ query: "salary floor", roles: ["sales"] });
    expect(narrowed.json.context).not.toContain("salary bands");

    const rep = await newThread({ user_id: "rita", authority: "Sales Rep", roles: ["sales"] });
    await rep.events(facts);
    const widened = await rep.context({ query: "salary floor", roles: ["sales", "hr", "vp"] });
    expect(widened.json.context).not.toContain("salary bands");
    expect(widened.json.context).not.toContain("$30k");
  });
});

describe("suppositions and earlier words", () => {
  it("a supposition hides its own words, never an earlier real turn that said them first", async () => {
    const t = await newThread();
    const at = (minute: number) => new Date(Date.UTC(2025, 5, 2, 9, minute)).toISOString();
    await t.events([
      message(
        "Last spring we stayed at the Harbour Hotel in Lisbon and the team loved the rooftop sessions.",
        {
          id: "real",
          ts: at(1),
        },
      ),
      message("Good to know, noted.", { id: "ack", role: "assistant", ts: at(2) }),
      message("Suppose the offsite venue is the Harbour Hotel in Lisbon. What would it cost?", {
        id: "suppose",
        ts: at(3),
      }),
      ...Array.from({ length: 14 }, (_, i) =>
        message(`Budget sheet row ${i + 1} is filled in.`, { id: `row${i}`, ts: at(10 + i) }),
      ),
    ]);
    const { context, reasonFor } = await ask(t, "Where did we stay last spring, and what did the team love?");
    expect(context).toContain("rooftop sessions");
    expect(reasonFor("real")).toBeUndefined();
    // The supposition itself stays out of the facts: its value is nobody's plan.
    const state = await call("GET", `/threads/${t.thread}/state`);
    const supposed = state.json.facts.filter((f: any) => f.value === "the Harbour Hotel in Lisbon");
    expect(supposed.every((f: any) => f.scope === "hypothetical")).toBe(true);
  });
});
