import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { call, fact, message, newThread, until } from "./helpers";

const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 9, minute)).toISOString();

describe("extraction on real Queues", () => {
  it("ingesting messages enqueues a job that the consumer runs to the watermark", async () => {
    const t = await newThread();
    const ingest = await t.events([
      message("The project budget is $50,000.", { id: "m1", ts: at(1) }),
      message("Let's use Redis for caching.", { id: "m2", ts: at(2) }),
    ]);
    expect(ingest.json.watermark.pending_messages).toBe(2);
    const log = await until(
      () => call("GET", `/threads/${t.thread}/extractions`),
      (res) => res.json.watermark.pending_messages === 0,
    );
    expect(log.json.watermark.extracted_through).toEqual({ ts: at(2), id: "m2" });
    expect(log.json.runs.length).toBeGreaterThan(0);
    const state = await call("GET", `/threads/${t.thread}/state`);
    expect(state.json.facts.map((f: any) => f.value)).toContain("$50,000");
  });

  it("duplicate and reordered jobs change nothing", async () => {
    const t = await newThread();
    await t.events([
      message("The project budget is $50,000.", { id: "m1", ts: at(1) }),
      message("Make that $150,000.", { id: "m2", ts: at(2) }),
    ]);
    const job: { tenant: string; thread: string; through: { ts: string; id: string } | null } = {
      tenant: "acme",
      thread: t.thread,
      through: null,
    };
    const batch = createMessageBatch("tenure-extraction", [
      { id: "j2", timestamp: new Date(), attempts: 1, body: { ...job, through: { ts: at(2), id: "m2" } } },
      { id: "j1", timestamp: new Date(), attempts: 1, body: job },
      { id: "j1", timestamp: new Date(), attempts: 2, body: job },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["j1", "j1", "j2"].sort());
    const first = await call("GET", `/threads/${t.thread}/state`);

    const again = createMessageBatch("tenure-extraction", [
      { id: "j3", timestamp: new Date(), attempts: 1, body: job },
    ]);
    const ctx2 = createExecutionContext();
    await worker.queue(again, env);
    expect((await getQueueResult(again, ctx2)).explicitAcks).toEqual(["j3"]);
    const second = await call("GET", `/threads/${t.thread}/state`);
    expect(second.json).toEqual(first.json);
  });

  it("a failing job is retried, and a dead-lettered job is recorded on its thread", async () => {
    const t = await newThread();
    const failing = {
      ...env,
      THREADS: {
        idFromName: () => ({}),
        get: () => ({
          extract: () => Promise.reject(new Error("object unavailable")),
        }),
      },
    } as unknown as typeof env;
    const batch = createMessageBatch("tenure-extraction", [
      {
        id: "f1",
        timestamp: new Date(),
        attempts: 1,
        body: { tenant: "acme", thread: t.thread, through: null },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, failing);
    expect((await getQueueResult(batch, ctx)).retryMessages).toEqual([{ msgId: "f1" }]);

    const dead = createMessageBatch("tenure-extraction-dlq", [
      {
        id: "d1",
        timestamp: new Date(),
        attempts: 4,
        body: { tenant: "acme", thread: t.thread, through: null },
      },
    ]);
    const ctx2 = createExecutionContext();
    await worker.queue(dead, env);
    expect((await getQueueResult(dead, ctx2)).explicitAcks).toEqual(["d1"]);
    const log = await call("GET", `/threads/${t.thread}/extractions`);
    expect(log.json.dead_jobs).toEqual([expect.objectContaining({ message_id: "d1", attempts: 4 })]);
  });

  it("a malformed job is acknowledged rather than retried forever", async () => {
    const batch = createMessageBatch("tenure-extraction", [
      { id: "bad", timestamp: new Date(), attempts: 1, body: { nonsense: true } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["bad"]);
  });
});

describe("read-your-writes and natural-language state", () => {
  it("compile extracts pending messages first: 'Make that $150,000' supersedes the budget", async () => {
    const t = await newThread();
    await t.events([
      message("The project budget is $50,000.", { id: "m1", ts: at(1) }),
      message("Make that $150,000.", { id: "m2", ts: at(2) }),
    ]);
    const ctx = await t.context({ query: "What is the project budget?" });
    expect(ctx.json.trace.extraction).toEqual({ status: "current", pending_messages: 0 });
    expect(ctx.json.context).toContain("$150,000");
    expect(ctx.json.context).not.toContain("$50,000");
  });

  it("state lists items as JSON and rendered, and EXPAND returns their source messages", async () => {
    const t = await newThread();
    await t.events([message("Let's use Redis for caching.", { id: "r1", ts: at(1) })]);
    await t.context({ query: "caching" });
    const state = await call("GET", `/threads/${t.thread}/state`);
    const item = state.json.items.find((i: any) => i.type_tag === "decision");
    expect(item).toMatchObject({ refs: ["r1"], status: "active" });
    expect(state.json.rendered_state).toContain(`[${item.uid}] DECISION (active)`);
    const expanded = await call("GET", `/threads/${t.thread}/state/items/${item.uid}/expand`);
    expect(expanded.status).toBe(200);
    expect(expanded.json.messages).toEqual([
      expect.objectContaining({ id: "r1", content: "Let's use Redis for caching." }),
    ]);
    expect((await call("GET", `/threads/${t.thread}/state/items/d_000000000000/expand`)).status).toBe(404);
  });

  it("an item restated in 100 turns keeps its first and newest 63 sources, everywhere it shows them", async () => {
    const t = await newThread();
    // Five sittings of twenty turns, each extracted before the next: each run's candidate cites its
    // twenty turns, and each run after the first merges them into the stored item.
    for (let sitting = 0; sitting < 5; sitting++) {
      const turns = Array.from({ length: 20 }, (_, i) => {
        const n = sitting * 20 + i;
        return message("Let's use Redis for caching.", { id: `r${n}`, ts: at(n) });
      });
      await t.events(turns);
      await t.context({ query: "caching" });
      await until(
        () => call("GET", `/threads/${t.thread}/extractions`),
        (res) => res.json.watermark.pending_messages === 0,
      );
    }
    const state = await call("GET", `/threads/${t.thread}/state`);
    const item = state.json.items.find((i: any) => i.type_tag === "decision");
    const kept = ["r0", ...Array.from({ length: 63 }, (_, i) => `r${37 + i}`)];
    expect(item).toMatchObject({ refs: kept, ref_count: 100, status: "active" });
    expect(state.json.rendered_state).toContain(`[${item.uid}] DECISION (active)`);
    expect(state.json.rendered_state).toContain("[refs:100]");
    const expanded = await call("GET", `/threads/${t.thread}/state/items/${item.uid}/expand`);
    expect(expanded.json.messages.map((m: any) => m.id)).toEqual(kept);
    const ctx = await t.context({ query: "What did we decide about caching?" });
    const compiled = ctx.json.trace.compiled.find((c: any) => c.object_id === item.uid);
    expect(compiled?.refs).toEqual(kept);
  });

  it("a hypothetical stretch of conversation never reaches the compiled context", async () => {
    const t = await newThread();
    await t.events([
      message("The committed deadline is June 30.", { id: "h1", ts: at(1) }),
      message("Let's do some contingency planning. This is just exploratory.", { id: "h2", ts: at(2) }),
      message("The deadline would be September 15.", { id: "h3", ts: at(3) }),
      message("OK, enough contingency planning, let's talk about real commitments.", { id: "h4", ts: at(4) }),
      message("Kickoff is on Monday.", { id: "h5", ts: at(5) }),
    ]);
    const ctx = await t.context({ query: "What is our committed deadline?" });
    expect(ctx.json.context).toContain("June 30");
    expect(ctx.json.context).not.toContain("September 15");
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({ object_id: "h3", kind: "message", reason: "out_of_scope" }),
    );
    // The closing turn says nothing of its own: it is the stretch's last word, not a real commitment.
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({ object_id: "h4", kind: "message", reason: "out_of_scope" }),
    );
    // What follows the close is global again.
    expect(ctx.json.trace.compiled).toContainEqual(
      expect.objectContaining({ object_id: "h5", kind: "message" }),
    );
  });

  it("values a message itself retires leave the transcript, and so does an echo of a replaced value", async () => {
    const t = await newThread();
    await t.events([
      message(
        "So the original launch date was Friday March 15th. Then we moved it to Thursday March 14th. But the final launch date is Monday March 18th.",
        { id: "r1", ts: at(1) },
      ),
      message("To recap: we originally planned Friday March 15th. Monday March 18th is the one.", {
        id: "r2",
        ts: at(2),
      }),
      message("The hourly rate is $125.", { id: "r3", ts: at(3) }),
      message("Hourly rate noted: $125.", { id: "r4", ts: at(4), role: "assistant" }),
      message("The rate is now $225.", { id: "r5", ts: at(5) }),
    ]);
    const ctx = await t.context({ query: "When is the launch, and what is the hourly rate?" });
    expect(ctx.json.context).toContain("Monday March 18th");
    expect(ctx.json.context).toContain("$225");
    expect(ctx.json.context).not.toContain("Friday March 15th");
    expect(ctx.json.context).not.toContain("Thursday March 14th");
    expect(ctx.json.context).not.toContain("$125");
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({ object_id: "r4", kind: "message", reason: "superseded" }),
    );
  });

  it("transcript turns spoken inside a draft are gated like draft facts", async () => {
    const t = await newThread();
    await t.events([
      message("Let's do a drafting proposal. This is just exploratory.", { id: "d1", ts: at(1) }),
      message("Draft: 24-month contract", { id: "d2", ts: at(2) }),
      message("OK, that's enough drafting proposal for now. Let's talk about real commitments.", {
        id: "d3",
        ts: at(3),
      }),
    ]);
    const ctx = await t.context({ query: "What contract terms have been agreed?" });
    expect(ctx.json.context).not.toContain("24-month");
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({ object_id: "d2", reason: "out_of_scope" }),
    );
  });

  it.each([
    ["from conversation only", []],
    [
      "with the slot also written explicitly",
      [fact("approved_budget", "$100,000 (Manager approved)", { id: "f1", ts: at(1) })],
    ],
  ])(
    "turns that stated a value since replaced leave the envelope, acknowledgements too (%s)",
    async (_name, explicit) => {
      const t = await newThread();
      await t.events([
        message("[Manager] Approved the $100,000 budget for the project.", { id: "b1", ts: at(1) }),
        message("Noted. Budget of $100,000 approved by Manager.", { id: "b2", ts: at(2), role: "assistant" }),
        message("[VP] I'm overriding that. The budget is $80,000.", { id: "b3", ts: at(3) }),
        ...explicit,
      ]);
      const ctx = await t.context({ query: "What's the approved budget?" });
      expect(ctx.json.context).toContain("$80,000");
      expect(ctx.json.context).not.toContain("$100,000");
    },
  );
});
