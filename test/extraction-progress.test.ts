import { describe, expect, it } from "vitest";
import { call, message, newThread, until } from "./helpers";

/**
 * Extraction follows arrival, drains by itself, and never holds a compile back for a backlog
 * (issue 14, items 3 to 5), all through the public API.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 9, minute)).toISOString();

describe("extraction follows arrival, not message time", () => {
  it("extracts a message that arrives after the watermark with an older ts", async () => {
    const t = await newThread();
    await t.events([message("The project budget is $50,000.", { id: "m1", ts: at(30) })]);
    const first = await t.context({ query: "budget" });
    expect(first.json.trace.extraction.status).toBe("current");
    // Said earlier, delivered later.
    await t.events([message("Let's use Redis for caching.", { id: "m0", ts: at(10) })]);
    const second = await t.context({ query: "caching" });
    expect(second.json.trace.extraction).toEqual({ status: "current", pending_messages: 0 });
    expect(second.json.trace.extraction_pending).toBe(0);
    const log = (await call("GET", `/threads/${t.thread}/extractions`)).json;
    expect(log.runs.map((r: any) => r.id)).toContain("m0..m0");
    expect(log.watermark.pending_messages).toBe(0);
  });

  it("refuses a timestamp far in the future, naming the field, and stores nothing of the batch", async () => {
    const t = await newThread();
    const nextYear = new Date(Date.now() + 366 * 86_400_000).toISOString();
    const res = await t.events([
      message("On time.", { id: "ok1" }),
      message("From the future.", { id: "late1", ts: nextYear }),
    ]);
    expect(res.status).toBe(400);
    expect(res.contentType).toContain("application/problem+json");
    expect(res.json.errors.map((e: any) => e.field)).toEqual(["events.1.ts"]);
    const state = (await call("GET", `/threads/${t.thread}/state`)).json;
    expect(state.message_count).toBe(0);
    // Within the allowance (24 hours by default) is fine: clocks drift.
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    expect((await t.events([message("Slightly ahead.", { id: "soon1", ts: soon })])).status).toBe(200);
  });
});

describe("a backlog", () => {
  const bulk = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) =>
      message(`Update ${from + i}: the vendor for item ${from + i} is Vendor ${from + i}.`, {
        id: `b${from + i}`,
        ts: new Date(Date.UTC(2025, 0, 2) + (from + i) * 1000).toISOString(),
      }),
    );

  it("is compiled from what is extracted so far, without waiting, and says how much is pending", async () => {
    const t = await newThread();
    await t.events(bulk(0, 450));
    const ctx = await t.context({ query: "Which vendor supplies item 3?", budget_tokens: 1500 });
    expect(ctx.status).toBe(200);
    expect(ctx.json.trace.extraction_pending).toBeGreaterThan(200);
    expect(ctx.json.trace.extraction.status).toBe("partial");
    // The raw turns are retrieved meanwhile.
    expect(ctx.json.context).toContain("Vendor 3.");
  });

  // A slice's work is mostly synchronous: unless the pass gives the runtime a turn between slices, no
  // request reaches the object (nor does an answer leave it) until the whole backlog is extracted.
  it("is worked between requests: the thread answers while it drains", async () => {
    const t = await newThread();
    for (let from = 0; from < 2_000; from += 500) await t.events(bulk(from, 500));
    // The first compile makes the thread interactive: its backlog drains on the write path from here.
    const first = await t.context({ query: "Which vendor supplies item 3?", budget_tokens: 1500 });
    const pending = first.json.trace.extraction_pending;
    expect(pending).toBeGreaterThan(1_000);
    const midway = await until(
      async () => (await call("GET", `/threads/${t.thread}/state`)).json.watermark.pending_messages,
      (left: number) => left < pending,
    );
    expect(midway).toBeGreaterThan(0);
    const during = await t.context({ query: "Which vendor supplies item 7?", budget_tokens: 1500 });
    expect(during.json.trace.extraction_pending).toBeGreaterThan(0);
    expect(during.json.trace.extraction_pending).toBeLessThan(pending);
  }, 60_000);

  it("has its message vectors written once the thread is read, and the state counts those still missing", async () => {
    const t = await newThread();
    await t.events(bulk(0, 450));
    // Nobody has read the thread: its messages are stored and searchable by their words, not embedded.
    const before = (await call("GET", `/threads/${t.thread}/state`)).json;
    expect(before.message_count).toBe(450);
    expect(before.unindexed_messages).toBe(450);
    await t.context({ query: "Which vendor supplies item 3?", budget_tokens: 1500 });
    const seen: number[] = [];
    const after = await until(
      async () => (await call("GET", `/threads/${t.thread}/state`)).json,
      (s) => {
        seen.push(s.unindexed_messages);
        return s.watermark.pending_messages === 0 && s.unindexed_messages === 0;
      },
    );
    expect(after.watermark.pending_messages).toBe(0);
    expect(after.unindexed_messages).toBe(0);
    expect(after.message_count).toBe(450);
    // It only ever goes down.
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
  }, 60_000);

  // A thread nobody reads is drained by its extraction job coming back after each slice.
  it("drains by itself, with no compile to drive it", async () => {
    const t = await newThread();
    await t.events(bulk(0, 500));
    await t.events(bulk(500, 300));
    const state = await until(
      async () => (await call("GET", `/threads/${t.thread}/state`)).json,
      (s) => s.watermark.pending_messages === 0,
    );
    expect(state.watermark.pending_messages).toBe(0);
    expect(state.watermark.extracted_through).toEqual({
      ts: new Date(Date.UTC(2025, 0, 2) + 799_000).toISOString(),
      id: "b799",
    });
  }, 60_000);
});
