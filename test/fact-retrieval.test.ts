import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { embedderFor } from "../src/extraction/select-adapters";
import type { ThreadObject } from "../src/thread/thread-object";
import { fact, newThread, revisionOf, until } from "./helpers";

/**
 * Facts are retrieved like episodes: BM25 over their texts fused by reciprocal rank with the thread's
 * vector index (the offline hashing embedder here), then seed 004's composite. A misspelled query
 * shares no word with the fact it asks about, so only the vector half can find it.
 */
describe("hybrid retrieval of facts, through the API", () => {
  const at = "2025-04-01T09:00:00Z";
  // Background facts of the same time: without relevance, they sort ahead of the keynote fact by id.
  const filler = Array.from({ length: 40 }, (_, i) =>
    fact(
      `detail_${String(i).padStart(2, "0")}`,
      `Logistics note ${i}: shuttle bus run ${i} to the offsite hotel`,
      {
        id: `d${String(i).padStart(2, "0")}`,
        ts: at,
      },
    ),
  );

  it("finds a fact only the vector index matches, and packs it ahead of the background", async () => {
    const t = await newThread();
    await t.events([...filler, fact("keynote_speaker", "Dr. Okafor", { id: "ks1", ts: at })]);
    const ctx = await t.context({ query: "who is the keynot speakr?", budget_tokens: 150 });
    expect(ctx.status).toBe(200);
    expect(ctx.json.context).toContain("Dr. Okafor");
    const keynote = ctx.json.trace.compiled.find((c: { object_id: string }) => c.object_id === "ks1");
    expect(keynote).toMatchObject({ priority_tier: "important" });
    // The budget holds a few of the forty notes at most: the rest wait, as background.
    const budgetCut = ctx.json.trace.omitted.filter((o: { object_id: string }) =>
      o.object_id.startsWith("d"),
    );
    expect(budgetCut.length).toBeGreaterThan(30);
    expect(ctx.json.tokens).toBeLessThanOrEqual(150);
  });

  it("indexes the current facts only: a superseded version leaves the thread's index", async () => {
    const t = await newThread();
    await t.events([...filler.slice(0, 5), fact("keynote_speaker", "Dr. Okafor", { id: "ks1", ts: at })]);
    await t.context({ query: "who is the keynot speakr?" });
    await t.events([fact("keynote_speaker", "Prof. Adeyemi", { id: "ks2", ts: "2025-04-02T09:00:00Z" })]);
    const ctx = await t.context({ query: "who is the keynot speakr?", budget_tokens: 150 });
    expect(ctx.json.context).toContain("Prof. Adeyemi");
    expect(ctx.json.context).not.toContain("Okafor");
    expect(ctx.json.trace.compiled.find((c: { object_id: string }) => c.object_id === "ks2")).toMatchObject({
      priority_tier: "important",
    });
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    const indexed = await runInDurableObject(env.THREADS.get(id), (_instance, state) => ({
      marked: state.storage.sql
        .exec<{ id: string }>("SELECT id FROM fact_embedded ORDER BY id")
        .toArray()
        .map((r) => r.id),
      stored: state.storage.sql
        .exec<{ id: string }>("SELECT id FROM vector_index WHERE namespace LIKE '%/facts/%' ORDER BY id")
        .toArray()
        .map((r) => r.id),
    }));
    const expected = ["d00", "d01", "d02", "d03", "d04", "ks2"];
    expect(indexed.marked).toEqual(expected);
    expect(indexed.stored).toEqual(expected);
  });

  /**
   * A thread's own fact index holds the whole project once its upkeep synced it with a read whose newest
   * versions were not cut: the project's own index can then find nothing it does not, and a compile
   * does not wait for it. Said per revision: a write elsewhere in the project unsays it until the next
   * pass, and a project past the newest versions never has it said.
   */
  it("knows when it holds the whole project, revision by revision", async () => {
    const whole = async (thread: string, project: string) => {
      const id = env.THREADS.idFromName(`tenant:acme/thread:${thread}`);
      const revision = await revisionOf(project);
      return runInDurableObject(env.THREADS.get(id), async (instance: ThreadObject) => {
        const inside = instance as unknown as {
          upkeep: { settled(ms: number): Promise<boolean> };
          retrieval: { holdsProjectFacts(embedder: unknown, revision: number): boolean };
        };
        await inside.upkeep.settled(10_000);
        return { revision, holds: inside.retrieval.holdsProjectFacts(embedderFor(env), revision) };
      });
    };
    const t = await newThread();
    await t.events(filler.slice(0, 6));
    await t.context({ query: "which shuttle goes to the hotel?" });
    const first = await until(
      () => whole(t.thread, t.project),
      (w) => w.holds,
    );
    expect(first.holds).toBe(true);
    // Another thread of the project writes: this one holds the new revision once its pass has run.
    const other = await newThread(undefined, { project: t.project });
    await other.events([fact("shuttle_driver", "Marta drives the late shuttle", { id: "sd1", ts: at })]);
    const second = await until(
      () => whole(t.thread, t.project),
      (w) => w.revision > first.revision && w.holds,
    );
    expect(second.revision).toBeGreaterThan(first.revision);
    expect(second.holds).toBe(true);

    // Past the newest versions a compile reads, the project is in the thread's index only in part.
    const busy = await newThread();
    for (let start = 0; start < 520; start += 260) {
      const batch = Array.from({ length: 260 }, (_, i) =>
        fact(`stop_${start + i}`, `Shuttle stop ${start + i} is at gate ${start + i}`, { ts: at }),
      );
      expect((await busy.events(batch)).status).toBe(200);
    }
    await busy.context({ query: "which gate is stop 7 at?" });
    await busy.context({ query: "which gate is stop 8 at?" });
    expect((await whole(busy.thread, busy.project)).holds).toBe(false);
  }, 60_000);
});
