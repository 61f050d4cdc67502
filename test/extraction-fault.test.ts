import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { EventInput } from "../src/api/schemas";
import type { ThreadObject } from "../src/thread/thread-object";
import { call, message, newThread } from "./helpers";
import { bareThread } from "./support/bare-thread";

const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 9, minute)).toISOString();

const conversation = [
  message("The project budget is $50,000.", { id: "c1", ts: at(1) }),
  message("Let's use Redis for caching.", { id: "c2", ts: at(2) }),
  message("Make that $150,000.", { id: "c3", ts: at(3) }),
  message("Let's switch to Memcached instead of Redis.", { id: "c4", ts: at(4) }),
];

/** State that must not depend on how extraction was interrupted (ids of facts, items, watermark). */
async function snapshot(thread: string) {
  const state = (await call("GET", `/threads/${thread}/state`)).json;
  return {
    facts: state.facts
      .map((f: any) => ({ id: f.id, key: f.key, value: f.value, valid: f.is_valid }))
      .sort((a: any, b: any) => a.id.localeCompare(b.id)),
    items: state.items.map((i: any) => ({ uid: i.uid, status: i.status, refs: i.refs })),
    watermark: state.watermark.extracted_through,
  };
}

describe("extraction fault tolerance", () => {
  it("an object evicted mid-extraction, then redelivered, ends in the same state as a clean run", async () => {
    const clean = await newThread(undefined, { project: "fault-clean" });
    await clean.events(conversation);
    await clean.context({ query: "budget" });

    const faulty = await newThread(undefined, { project: "fault-crash" });
    const id = env.THREADS.idFromName(`tenant:acme/thread:${faulty.thread}`);
    // The messages are stored but not extracted yet (the object's background upkeep would extract them
    // at once): written through the thread's capabilities directly.
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      await bareThread(state, faulty.thread).ingest(conversation as EventInput[]);
    });
    // The first half of a run reaches D1 (facts), then the object dies before its own commit: an error
    // inside blockConcurrencyWhile resets the object, as an eviction would.
    const crashed = runInDurableObject(env.THREADS.get(id), async (instance: ThreadObject, state) => {
      state.storage.transactionSync = () => {
        throw new Error("evicted");
      };
      await instance.extract("acme", faulty.thread, {});
    });
    await expect(crashed).rejects.toThrow("evicted");
    const afterCrash = await call("GET", `/threads/${faulty.thread}/extractions`);
    expect(afterCrash.json.runs).toEqual([]);
    expect(afterCrash.json.watermark.extracted_through).toBeNull();
    // Redelivery, to a fresh instance of the object.
    await runInDurableObject(env.THREADS.get(id), async (instance: ThreadObject) => {
      await instance.extract("acme", faulty.thread, {});
    });

    const a = await snapshot(clean.thread);
    const b = await snapshot(faulty.thread);
    expect(b.items).toEqual(a.items);
    expect(b.watermark).toEqual(a.watermark);
    expect(b.facts.map(({ key, value, valid }: any) => ({ key, value, valid }))).toEqual(
      a.facts.map(({ key, value, valid }: any) => ({ key, value, valid })),
    );
  });
});
