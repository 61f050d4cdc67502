import { describe, expect, it } from "vitest";
import { call, fact, message, newThread } from "./helpers";

/**
 * Issue 3's natural-language cases, end to end through the public HTTP API with the offline rule
 * extractor (the default): events are ingested as plain messages, and compile extracts them inline
 * before it builds the context.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 9, minute)).toISOString();
const EMPLOYEE = { user_id: "u1", user_name: "Ada", authority: "employee" };
const VP = { user_id: "u2", user_name: "Vera", authority: "VP Sales" };

describe("natural-language supersession", () => {
  it("explicit change: 'Let's switch to Memcached instead' replaces Redis", async () => {
    const t = await newThread();
    await t.events([
      message("We'll use Redis for caching.", { id: "c1", ts: at(1) }),
      message("Let's switch to Memcached instead.", { id: "c2", ts: at(2) }),
    ]);
    const ctx = await t.context({ query: "What do we use for caching?" });
    expect(ctx.json.trace.extraction).toEqual({ status: "current", pending_messages: 0 });
    expect(ctx.json.context).toContain("Memcached");
    expect(ctx.json.context).not.toContain("Redis");
  });

  it("implicit change: 'Let's do the meeting Thursday at 3pm' replaces the earlier meeting time", async () => {
    const t = await newThread();
    await t.events([
      message("The meeting is Tuesday at 10am.", { id: "t1", ts: at(1) }),
      message("Let's do the meeting Thursday at 3pm.", { id: "t2", ts: at(2) }),
    ]);
    const ctx = await t.context({ query: "When is the meeting?" });
    expect(ctx.json.context).toContain("Thursday at 3pm");
    expect(ctx.json.context).not.toContain("Tuesday");
    expect(ctx.json.context).not.toContain("10am");
  });

  it("authority: a lower-authority speaker cannot displace a value a VP set", async () => {
    const t = await newThread();
    await t.events([
      message("[VP Sales] The discount cap is 15%.", { id: "a1", ts: at(1) }),
      message("[Intern] Make that 25%.", { id: "a2", ts: at(2) }),
    ]);
    const ctx = await t.context({ query: "What is the discount cap?" });
    expect(ctx.json.context).toContain("- discount_cap: 15%");
    expect(ctx.json.context).not.toContain("- discount_cap: 25%");
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({
        object_id: `xt:${t.thread}:a2:discount_cap`,
        kind: "fact",
        reason: "disputed",
      }),
    );
    const state = await call("GET", `/threads/${t.thread}/state`);
    const caps = state.json.facts.filter((f: any) => f.key === "discount_cap");
    expect(caps).toContainEqual(
      expect.objectContaining({ value: "15%", is_valid: true, superseded_by: null, authority_rank: 4 }),
    );
    expect(caps).toContainEqual(
      expect.objectContaining({ value: "25%", contradiction_status: "disputed", authority_rank: 1 }),
    );
  });
});

describe("what the client recorded itself", () => {
  it("a turn announcing a change the client also wrote as a fact keeps the client's fact, unmasked", async () => {
    const t = await newThread();
    await t.events([
      fact("launch_date", "March 1", { ts: at(0) }),
      message("Correction: the launch moved to April 15 per the executive decision.", {
        id: "l1",
        ts: at(5),
      }),
      fact("launch_date", "Launch moved to April 15 per the executive decision", { ts: at(5) }),
    ]);
    const ctx = await t.context({ query: "When is the launch?" });
    expect(ctx.json.trace.extraction).toEqual({ status: "current", pending_messages: 0 });
    expect(ctx.json.context).toContain("- launch_date: Launch moved to April 15 per the executive decision");
    expect(ctx.json.context).toContain("the launch moved to April 15 per the executive decision");
    expect(ctx.json.context).not.toContain("March 1");
    expect(ctx.json.trace.compiled.map((c: { object_id: string }) => c.object_id)).not.toContain(
      `xt:${t.thread}:l1:launch_date`,
    );
  });
});

describe("conversation scope", () => {
  it("a hypothetical question never reaches the context for a real decision", async () => {
    const t = await newThread();
    await t.events([
      message("The project budget is $500,000.", { id: "s1", ts: at(1) }),
      message("Hypothetically, what if the budget were $2M?", { id: "s2", ts: at(2) }),
    ]);
    const ctx = await t.context({ query: "What is the project budget we committed to?" });
    expect(ctx.json.context).toContain("$500,000");
    expect(ctx.json.context).not.toContain("$2M");
  });

  it("'this is just exploratory' keeps the statements it covers out of the context", async () => {
    const t = await newThread();
    await t.events([
      message("The vendor is Snowflake.", { id: "e1", ts: at(1) }),
      message("Let's brainstorm vendors. This is just exploratory.", { id: "e2", ts: at(2) }),
      message("The vendor is Databricks.", { id: "e3", ts: at(3) }),
    ]);
    const ctx = await t.context({ query: "Which vendor did we choose?" });
    expect(ctx.json.context).toContain("Snowflake");
    expect(ctx.json.context).not.toContain("Databricks");
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({ object_id: "e3", kind: "message", reason: "out_of_scope" }),
    );
  });

  it("'for this task only' content is visible only with the matching task_id", async () => {
    const t = await newThread();
    await t.events([
      message("Let's do a migration task. For this task only, the deploy target is staging-eu.", {
        id: "k1",
        ts: at(1),
      }),
    ]);
    const without = await t.context({ query: "What is the deploy target?" });
    expect(without.json.context).not.toContain("staging-eu");
    const other = await t.context({ query: "What is the deploy target?", task_id: "some-other-task" });
    expect(other.json.context).not.toContain("staging-eu");
    const matching = await t.context({ query: "What is the deploy target?", task_id: "migration-task@k1" });
    expect(matching.json.context).toContain("staging-eu");
  });

  it("after 'OK, enough contingency planning, let's talk about real commitments' real statements count", async () => {
    const t = await newThread();
    await t.events([
      message("Let's do some contingency planning. This is just exploratory.", { id: "x1", ts: at(1) }),
      message("The vendor is Oracle.", { id: "x2", ts: at(2) }),
      message("OK, enough contingency planning, let's talk about real commitments.", { id: "x3", ts: at(3) }),
      message("The vendor is Snowflake.", { id: "x4", ts: at(4) }),
    ]);
    const ctx = await t.context({ query: "Which vendor did we commit to?" });
    expect(ctx.json.context).toContain("Snowflake");
    expect(ctx.json.context).not.toContain("Oracle");
    expect(ctx.json.trace.compiled).toContainEqual(
      expect.objectContaining({ object_id: "x4", kind: "message" }),
    );
  });
});

describe("classification", () => {
  // Said in the employee's thread by someone else (a colleague's turn in a shared chat): the marking
  // protects it from the employee. The employee's own words are theirs (test/own-words.test.ts).
  const BRIEFER = { speaker: "Vera" };

  it.each([["$30,000"], ["$30k"]])(
    "[RESTRICTED: … VP+] %s is hidden from an employee, in facts and transcript, and shown to a VP",
    async (value) => {
      const text = `[RESTRICTED: pricing floor restricted to VP+] The floor is ${value}.`;
      const employee = await newThread(EMPLOYEE);
      await employee.events([message(text, { id: "r1", ts: at(1), ...BRIEFER })]);
      const low = await employee.context({ query: "What is the pricing floor?" });
      expect(low.json.context).not.toContain(value);
      expect(low.json.trace.omitted).toContainEqual(
        expect.objectContaining({ object_id: "r1", kind: "message", reason: "not_permitted" }),
      );

      const vp = await newThread(VP);
      await vp.events([message(text, { id: "r1", ts: at(1), ...BRIEFER })]);
      const high = await vp.context({ query: "What is the pricing floor?" });
      expect(high.json.context).toContain(value);
    },
  );

  it.each([
    ["confidential", "The acquisition budget is $4,000,000. This is confidential."],
    ["do not share outside", "The acquisition budget is $4,000,000. Do not share this outside leadership."],
  ])("a '%s' marking keeps the statement from an employee", async (_name, text) => {
    const t = await newThread(EMPLOYEE);
    await t.events([message(text, { id: "c1", ts: at(1), ...BRIEFER })]);
    const ctx = await t.context({ query: "What is the acquisition budget?" });
    expect(ctx.json.context).not.toContain("$4,000,000");
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({
        object_id: `xt:${t.thread}:c1:acquisition_budget`,
        kind: "fact",
        reason: "not_permitted",
      }),
    );
  });

  it.each([
    ["an API key", "The staging API key is sk-live-4f9aQz81mBxw27Lp.", "sk-live-4f9aQz81mBxw27Lp"],
    ["a password", "The admin console password: hunter2!x", "hunter2!x"],
  ])("%s never reaches an uncleared caller", async (_name, text, secret) => {
    for (const identity of [EMPLOYEE, VP]) {
      const t = await newThread(identity);
      await t.events([message(text, { id: "k1", ts: at(1) })]);
      const ctx = await t.context({ query: "What are the staging credentials?" });
      expect(ctx.json.context).not.toContain(secret);
    }
  });
});
