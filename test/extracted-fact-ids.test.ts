import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { EventInput } from "../src/api/schemas";
import { extractedFactId } from "../src/extraction/fact-events";
import type { ThreadObject } from "../src/thread/thread-object";
import { call, message, newThread, until } from "./helpers";
import { bareThread } from "./support/bare-thread";

/**
 * Facts extraction reads from a message are project-wide, but message ids are unique only within a
 * thread: two threads of one project may both send a message `m1`. Each thread's fact must be stored
 * under an id of its own, and the same message extracted again must still give the same id.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 4, 6, 9, minute)).toISOString();
const suffix = () => Math.random().toString(36).slice(2, 8);

async function threadIn(project: string, thread: string) {
  return newThread({ user_id: "u1", user_name: "Ada", authority: "employee" }, { project, thread });
}

/** Every stored version of the project's facts under `key`, oldest id first. */
async function versionsOf(project: string, key: string) {
  const res = await call("GET", `/facts?project_id=${project}&key=${key}&include_history=true&as_user=u1`);
  expect(res.status).toBe(200);
  return res.json.facts
    .map((f: any) => ({ id: f.id, thread: f.thread_id, value: f.value, current: f.is_valid && !f.tx_end }))
    .sort((a: any, b: any) => a.id.localeCompare(b.id));
}

async function extracted(thread: string) {
  return until(
    () => call("GET", `/threads/${thread}/state`),
    (res) => res.json.watermark.pending_messages === 0,
  );
}

describe("extracted fact ids", () => {
  it("two threads of a project that send the same message id each keep their own fact", async () => {
    const run = suffix();
    const project = `pcol-${run}`;
    const col1 = await threadIn(project, `col1-${run}`);
    const col2 = await threadIn(project, `col2-${run}`);
    const first = await col1.events([message("The catering budget is $900.", { id: "m1", ts: at(1) })]);
    expect(first.status).toBe(200);
    await extracted(col1.thread);
    const second = await col2.events([message("The catering budget is $1,400.", { id: "m1", ts: at(2) })]);
    expect(second.status).toBe(200);
    await extracted(col2.thread);

    // Both statements are stored, each under its thread; the later one is the slot's current value.
    expect(await versionsOf(project, "catering_budget")).toEqual([
      { id: `xt:${col1.thread}:m1:catering_budget`, thread: col1.thread, value: "$900", current: false },
      { id: `xt:${col2.thread}:m1:catering_budget`, thread: col2.thread, value: "$1,400", current: true },
    ]);
    const history = await call("GET", `/facts/xt:${col2.thread}:m1:catering_budget/history?as_user=u1`);
    expect(history.status).toBe(200);
    expect(history.json.chain).toEqual([
      `xt:${col1.thread}:m1:catering_budget`,
      `xt:${col2.thread}:m1:catering_budget`,
    ]);

    // col2's context no longer contradicts what its user just said.
    const ctx = await col2.context({ query: "What is the catering budget?" });
    expect(ctx.status).toBe(200);
    expect(ctx.json.context).toContain("$1,400");
    expect(ctx.json.context).not.toContain("$900");
  });

  it("redelivered events, in another order, leave the same facts under the same ids", async () => {
    const run = suffix();
    const project = `predo-${run}`;
    const a = await threadIn(project, `a-${run}`);
    const b = await threadIn(project, `b-${run}`);
    const turnsA = [
      message("The venue deposit is $2,500.", { id: "m1", ts: at(1) }),
      message("The guest count is 140.", { id: "m2", ts: at(2) }),
    ];
    const turnsB = [message("The shuttle fare is $35.", { id: "m1", ts: at(3) })];
    await a.events(turnsA);
    await b.events(turnsB);
    await extracted(a.thread);
    await extracted(b.thread);
    const facts = async () =>
      (await call("GET", `/facts?project_id=${project}&include_history=true&as_user=u1`)).json.facts
        .map((f: any) => [f.id, f.value, f.is_valid])
        .sort((x: any, y: any) => x[0].localeCompare(y[0]));
    const before = await facts();
    expect(before).toEqual([
      [`xt:${a.thread}:m1:venue_deposit`, "$2,500", true],
      [`xt:${a.thread}:m2:guest_count`, "140", true],
      [`xt:${b.thread}:m1:shuttle_fare`, "$35", true],
    ]);

    // At-least-once delivery: the same batches again, reversed, and to the other thread first.
    const againB = await b.events([...turnsB].reverse());
    const againA = await a.events([...turnsA].reverse());
    expect([againA.json.accepted, againA.json.duplicates]).toEqual([0, 2]);
    expect([againB.json.accepted, againB.json.duplicates]).toEqual([0, 1]);
    await extracted(a.thread);
    await extracted(b.thread);
    expect(await facts()).toEqual(before);
  });

  it("a run redone after it died between writing its facts and its commit writes the same ids once", async () => {
    const run = suffix();
    const project = `pcrash-${run}`;
    const other = await threadIn(project, `other-${run}`);
    await other.events([message("The catering budget is $900.", { id: "m1", ts: at(1) })]);
    await extracted(other.thread);
    const t = await threadIn(project, `crash-${run}`);
    const turns = [message("The printing budget is $650.", { id: "m1", ts: at(2) })] as EventInput[];
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    // Stored but not extracted yet: written through the thread's capabilities, without the object's upkeep.
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      await bareThread(state, t.thread).ingest(turns);
    });
    // The facts reach D1, then the object dies before its own commit (as an eviction would).
    const crashed = runInDurableObject(env.THREADS.get(id), async (instance: ThreadObject, state) => {
      state.storage.transactionSync = () => {
        throw new Error("evicted");
      };
      await instance.extract("acme", t.thread, {});
    });
    await expect(crashed).rejects.toThrow("evicted");
    expect(await versionsOf(project, "printing_budget")).toEqual([
      { id: `xt:${t.thread}:m1:printing_budget`, thread: t.thread, value: "$650", current: true },
    ]);
    // Redelivered twice, to fresh instances of the object.
    for (let i = 0; i < 2; i++)
      await runInDurableObject(env.THREADS.get(id), async (instance: ThreadObject) => {
        await instance.extract("acme", t.thread, {});
      });
    await extracted(t.thread);
    expect(await versionsOf(project, "printing_budget")).toEqual([
      { id: `xt:${t.thread}:m1:printing_budget`, thread: t.thread, value: "$650", current: true },
    ]);
    expect(await versionsOf(project, "catering_budget")).toEqual([
      { id: `xt:${other.thread}:m1:catering_budget`, thread: other.thread, value: "$900", current: true },
    ]);
  });
});

describe("facts stored under the ids extraction gave before threads were part of them", () => {
  it("are read, superseded and listed in history as they are; their message extracted again adds nothing", async () => {
    const run = suffix();
    const project = `pold-${run}`;
    const t = await threadIn(project, `old-${run}`);
    // What extraction stored for this thread's message m1 before: `x:<message>:<key>`.
    const legacy = await t.events([
      {
        type: "fact",
        id: "x:m1:catering_budget",
        key: "catering_budget",
        value: "$900",
        source: { type: "conversation" },
        ts: at(1),
      },
    ]);
    expect(legacy.json.facts).toEqual([
      expect.objectContaining({ id: "x:m1:catering_budget", outcome: "created" }),
    ]);
    // The message itself, extracted again (a run redone after the change): a restatement, not written twice.
    await t.events([message("The catering budget is $900.", { id: "m1", ts: at(1) })]);
    await extracted(t.thread);
    expect(await versionsOf(project, "catering_budget")).toEqual([
      { id: "x:m1:catering_budget", thread: t.thread, value: "$900", current: true },
    ]);

    await t.events([message("The catering budget is now $1,400.", { id: "m2", ts: at(2) })]);
    await extracted(t.thread);
    const history = await call("GET", "/facts/x:m1:catering_budget/history?as_user=u1");
    expect(history.status).toBe(200);
    expect(history.json.chain).toEqual(["x:m1:catering_budget", `xt:${t.thread}:m2:catering_budget`]);
    expect(history.json.versions.map((v: any) => [v.value, v.is_valid])).toEqual([
      ["$900", false],
      ["$1,400", true],
    ]);
  });
});

describe("extractedFactId", () => {
  it("is readable when the parts allow it", () => {
    expect(extractedFactId("col2", "m1", "catering_budget")).toBe("xt:col2:m1:catering_budget");
  });

  it("keeps triples apart that the readable form would join, and never takes the old `x:` form", () => {
    const ids = [
      extractedFactId("a:b", "c", "k"),
      extractedFactId("a", "b:c", "k"),
      extractedFactId("a", "b", "c:k"),
      extractedFactId("a", "b", "c_k"),
      extractedFactId("a", "b", "c k"),
      extractedFactId("a", "b", "c?k"),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      expect(id.startsWith("x:")).toBe(false);
    }
    expect(extractedFactId("a", "b", "c k")).toMatch(/^xh:a:b:c_k:[0-9a-f]{24}$/);
  });

  it("stays within 128 characters for the longest thread, message and key, and tells them apart", () => {
    const thread = "t".repeat(128);
    const message = "m".repeat(128);
    const long = extractedFactId(thread, message, "budget");
    expect(long.length).toBeLessThanOrEqual(128);
    expect(long).toMatch(/^xh:t+:[0-9a-f]{24}$/);
    expect(extractedFactId(thread, `${"m".repeat(127)}n`, "budget")).not.toBe(long);
    expect(extractedFactId(thread, message, "budget")).toBe(long);
  });
});
