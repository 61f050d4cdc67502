import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ThreadObject } from "../src/thread/thread-object";
import { ask, call, message, newThread, until } from "./helpers";

const at = (minute: number) => new Date(Date.UTC(2025, 2, 3, 9, minute)).toISOString();
const STORES = ["Postgres", "Redis", "ClickHouse", "SQLite", "DynamoDB"];
const TEAMS = ["billing", "search", "payments", "growth", "support", "mobile", "security", "data"];

/** An import's worth of turns that extraction files as state: decisions, preferences and plans. */
const imported = Array.from({ length: 240 }, (_, i) => {
  const team = TEAMS[i % TEAMS.length];
  const store = STORES[i % STORES.length];
  const text = [
    `We decided to use ${store} for the ${team} service ${i}.`,
    `I prefer weekly reports for the ${team} dashboard ${i}.`,
    `The plan is to migrate the ${team} queue ${i} to ${store} next month.`,
    `Let's keep the ${team} cache ${i} on ${store}.`,
  ][i % 4] as string;
  return message(text, { id: `imp-${i}`, ts: new Date(Date.UTC(2025, 2, 3, 10, 0, i)).toISOString() });
});

/**
 * How many objects the thread object's compile caches hold (src/compiler/cache/compile-cache.ts), once
 * its upkeep pass is through.
 */
async function cached(thread: string): Promise<number> {
  const id = env.THREADS.idFromName(`tenant:acme/thread:${thread}`);
  return runInDurableObject(env.THREADS.get(id), async (instance: ThreadObject) => {
    const inside = instance as unknown as {
      compilation: { cache: { size: number } };
      upkeep: { settled(ms: number): Promise<boolean> };
    };
    await inside.upkeep.settled(10_000);
    return inside.compilation.cache.size;
  });
}

async function drained(thread: string): Promise<void> {
  await until(
    () => call("GET", `/threads/${thread}/state`),
    (state) => state.json.watermark.pending_messages === 0,
  );
}

async function traces(thread: string): Promise<number> {
  const row = await env.TENANT_ACME_DB.prepare("SELECT count(*) AS n FROM traces WHERE thread = ?")
    .bind(thread)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/**
 * After extraction works through a backlog (an import) of a thread that is read, the write path runs the
 * compile passes over what it added once, for their caches alone (Compilation.warm): the next compile
 * finds the new items' objects made instead of making them itself. Nothing of that run is stored or
 * answered, and the next compile says what a compile on a cold object says.
 */
describe("the compile caches after an import", () => {
  it("hold the new state before the next compile, which answers as a cold compile does", async () => {
    const opening = message("We are planning the Q2 infrastructure work.", { id: "open", ts: at(1) });
    const warmed = await newThread(undefined, { project: "warm-warmed" });
    const cold = await newThread(undefined, { project: "warm-cold" });
    for (const t of [warmed, cold]) expect((await t.events([opening])).status).toBe(200);
    await drained(warmed.thread);
    const question = { now: "2025-03-03T12:00:00.000Z" };
    await ask(warmed, "What did we decide for the billing service?", question);
    const afterFirst = await cached(warmed.thread);
    expect(await traces(warmed.thread)).toBe(1);

    for (const t of [warmed, cold]) expect((await t.events(imported)).status).toBe(200);
    await drained(warmed.thread);
    await drained(cold.thread);
    // The import's items are in the caches before anyone compiles again.
    const warmedUp = await until(
      () => cached(warmed.thread),
      (n) => n > afterFirst,
      10_000,
    );
    expect(warmedUp).toBeGreaterThan(afterFirst);
    expect(await traces(warmed.thread)).toBe(1);
    expect(await cached(cold.thread)).toBe(0);

    for (const query of [
      "What did we decide for the billing service?",
      "Which store holds the data cache?",
    ]) {
      const fromWarm = await ask(warmed, query, question);
      const fromCold = await ask(cold, query, question);
      expect(fromWarm.context).toBe(fromCold.context);
      // Item ids name their thread; the rest of each id is the same.
      const compiled = (found: typeof fromWarm, thread: string) =>
        found.trace.compiled.map((c: { object_id: string }) => c.object_id.replace(thread, "THREAD"));
      expect(compiled(fromWarm, warmed.thread)).toEqual(compiled(fromCold, cold.thread));
      // The import's state is what both compiled.
      expect(fromWarm.context).toContain("DECISION (active) caching");
    }

    // The caller's last turn is no backlog: the compile that waits for it makes its objects itself.
    const before = await cached(warmed.thread);
    await warmed.events([
      message("Let's keep the billing cache 999 on Redis.", { id: "last", ts: "2025-03-03T11:00:00.000Z" }),
    ]);
    await drained(warmed.thread);
    expect(await cached(warmed.thread)).toBe(before);
  }, 120_000);
});
