import { describe, expect, it } from "vitest";
import { SqliteVectorIndex } from "../src/adapters/sqlite-vector-index/sqlite-vector-index";
import { SNAPSHOT_BYTES_PER_TURN } from "../src/adapters/sqlite-vector-index/stored-parts";
import { WHOLE_PROJECT_VERSIONS } from "../src/facts/fact-candidates";
import type { ProjectIndexObject } from "../src/project-index/project-index-object";
import { fact, newThread, until } from "./helpers";
import { readsEveryVector, recordedSql } from "./support/recorded-sql";

/**
 * The project's facts are embedded once, in the project's own index (src/project-index), by the thread
 * that writes them; a compile of any thread of the project asks it for the facts nearest its question, so
 * a fact found by no word of the question, and older than the newest versions, still reaches the context.
 */
describe("facts found through the project's vector index", () => {
  it("brings an old fact the question misspells into another thread's context", async () => {
    const writer = await newThread();
    const shared = { source: { type: "policy" } };
    await writer.events([fact("city_power", "Reykjavik runs on geothermal power", shared)]);
    const newer = WHOLE_PROJECT_VERSIONS + 100;
    for (let start = 0; start < newer; start += 300) {
      const batch = Array.from({ length: Math.min(300, newer - start) }, (_, k) =>
        fact(`greenhouse_bed_${start + k}`, `Bed ${start + k} grows basil and thyme`),
      );
      expect((await writer.events(batch)).status).toBe(200);
    }
    const reader = await newThread(undefined, { project: writer.project });
    // The writer indexes in the background of its write: the reader asks until it has.
    const ctx = await until(
      () => reader.context({ query: "Tell me about Reykjavic.", budget_tokens: 1000 }),
      (res) => res.json.trace.candidates.facts.similar > 0,
    );
    expect(ctx.json.trace.candidates.facts.similar).toBeGreaterThanOrEqual(1);
    expect(ctx.json.trace.candidates.facts.matched).toBe(0);
    expect(ctx.json.context).toContain("geothermal");
  }, 120_000);

  it("never answers one user's own fact to another user's question", async () => {
    const ada = await newThread({ user_id: "ada", user_name: "Ada", authority: "employee" });
    const bob = await newThread(
      { user_id: "bob", user_name: "Bob", authority: "employee" },
      { project: ada.project },
    );
    await ada.events([fact("ada_locker", "Ada keeps her spare keys in Reykjavik", { memory_type: "user" })]);
    const own = await until(
      () => ada.context({ query: "Tell me about Reykjavic." }),
      (res) => res.json.context.includes("spare keys"),
    );
    expect(own.json.context).toContain("spare keys");
    const other = await bob.context({ query: "Tell me about Reykjavic." });
    expect(other.json.context).not.toContain("spare keys");
    expect(other.json.trace.candidates.facts.similar).toBe(0);
  }, 60_000);
});

describe("the project index object's nearest facts", () => {
  it("fills its answer with facts the user may see when other users' own facts are nearer", async () => {
    const { env, runInDurableObject } = await import("cloudflare:test");
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`nearest-${crypto.randomUUID()}`));
    // The query is the first axis; Bob's 30 facts lie nearer it than any fact Ada may see.
    const at = (angle: number) => [Math.cos(angle), Math.sin(angle), 0, 0];
    const query = at(0);
    const bobs = Array.from({ length: 30 }, (_, i) => ({
      id: `bob-${i}`,
      values: at(0.01 * (i + 1)),
      user: "bob",
    }));
    const adas = Array.from({ length: 4 }, (_, i) => ({
      id: `ada-${i}`,
      values: at(0.5 + 0.1 * i),
      user: "ada",
    }));
    const shared = { id: "shared-0", values: at(0.9), user: "" };
    await runInDurableObject(stub, async (index: ProjectIndexObject) => {
      await index.upsert("acme", "atlas", "ns", [...bobs, ...adas, shared]);
      const ids = async (user: string, limit: number) =>
        (await index.nearest("acme", "atlas", "ns", query, user, limit)).map((n) => n.id);
      expect(await ids("ada", 5)).toEqual(["ada-0", "ada-1", "ada-2", "ada-3", "shared-0"]);
      expect(await ids("ada", 2)).toEqual(["ada-0", "ada-1"]);
      expect(await ids("bob", 3)).toEqual(["bob-0", "bob-1", "bob-2"]);
      // Fewer visible facts than asked for: all of them, nearest first.
      expect(await ids("cy", 5)).toEqual(["shared-0"]);
    });
  });
});

describe("the project index object's vector snapshot", () => {
  it("is due once its vectors go unwritten for a while, and its alarm then stores the decoded copy", async () => {
    const { env, runInDurableObject, runDurableObjectAlarm } = await import("cloudflare:test");
    const { SNAPSHOT_QUIET_MS } = await import("../src/project-index/project-index-object");
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`snapshot-${crypto.randomUUID()}`));
    const vector = (i: number) => Array.from({ length: 8 }, (_, d) => Math.sin(i + d));
    const heads = (state: DurableObjectState) =>
      state.storage.sql.exec("SELECT namespace FROM vector_snapshot_heads").toArray();
    await runInDurableObject(stub, async (index: ProjectIndexObject, state) => {
      const before = Date.now();
      await index.upsert(
        "acme",
        "atlas",
        "ns",
        [0, 1, 2].map((i) => ({ id: `f${i}`, values: vector(i), user: "" })),
      );
      const alarm = await state.storage.getAlarm();
      expect(alarm).not.toBeNull();
      expect(alarm as number).toBeGreaterThanOrEqual(before + SNAPSHOT_QUIET_MS);
      expect(heads(state)).toEqual([]);
    });
    // The alarm before it is due stores nothing, and comes back when it is.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await runInDurableObject(stub, async (_index: ProjectIndexObject, state) => {
      expect(heads(state)).toEqual([]);
      expect(await state.storage.getAlarm()).not.toBeNull();
      // The write as if made SNAPSHOT_QUIET_MS ago (it is stored, for an object woken afresh).
      state.storage.sql.exec("UPDATE project_index_vector_writes SET at = at - ?", SNAPSHOT_QUIET_MS);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await runInDurableObject(stub, async (_index: ProjectIndexObject, state) => {
      expect(heads(state)).toEqual([{ namespace: "ns" }]);
      expect(state.storage.sql.exec("SELECT at FROM project_index_vector_writes").toArray()).toEqual([]);
    });
  });
});

describe("the project index object's snapshot larger than one alarm's share", () => {
  it("is stored over several alarms, each setting the next for now, the object answering between them", async () => {
    const { env, runInDurableObject, runDurableObjectAlarm } = await import("cloudflare:test");
    const { SNAPSHOT_QUIET_MS } = await import("../src/project-index/project-index-object");
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`large-${crypto.randomUUID()}`));
    const dims = 384;
    // 2,000 vectors of 384 dimensions: 3 MB of columns, more than one alarm writes.
    const count = 2_000;
    expect(count * dims * 4).toBeGreaterThan(SNAPSHOT_BYTES_PER_TURN);
    const vector = (i: number) => Array.from({ length: dims }, (_, d) => Math.sin(i * 0.61 + d * 0.17));
    const heads = (state: DurableObjectState) =>
      state.storage.sql.exec("SELECT namespace FROM vector_snapshot_heads").toArray();
    await runInDurableObject(stub, async (index: ProjectIndexObject, state) => {
      for (let i = 0; i < count; i += 500) {
        await index.upsert(
          "acme",
          "atlas",
          "ns",
          Array.from({ length: 500 }, (_, k) => ({ id: `f${i + k}`, values: vector(i + k), user: "" })),
        );
      }
      state.storage.sql.exec("UPDATE project_index_vector_writes SET at = at - ?", SNAPSHOT_QUIET_MS);
    });
    const alarmsBefore = Date.now();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await runInDurableObject(stub, async (index: ProjectIndexObject, state) => {
      // Half stored: no head yet, and the next alarm is due now.
      expect(heads(state)).toEqual([]);
      expect(state.storage.sql.exec("SELECT namespace FROM vector_snapshot_staged").toArray()).toEqual([
        { namespace: "ns" },
      ]);
      const alarm = await state.storage.getAlarm();
      expect(alarm).not.toBeNull();
      expect(alarm as number).toBeLessThan(alarmsBefore + SNAPSHOT_QUIET_MS);
      // The object answers between the alarms: the nearest fact to one of its vectors is that fact.
      const near = await index.nearest("acme", "atlas", "ns", vector(7), "", 1);
      expect(near.map((n) => n.id)).toEqual(["f7"]);
    });
    let alarms = 1;
    while (await runDurableObjectAlarm(stub)) alarms++;
    expect(alarms).toBe(2);
    await runInDurableObject(stub, async (_index: ProjectIndexObject, state) => {
      expect(heads(state)).toEqual([{ namespace: "ns" }]);
      expect(state.storage.sql.exec("SELECT namespace FROM vector_snapshot_staged").toArray()).toEqual([]);
      expect(await state.storage.getAlarm()).toBeNull();
      // What was stored is read: a cold index answers from it, reading no vector's row.
      const { sql: watched, statements } = recordedSql(state.storage.sql);
      const near = await new SqliteVectorIndex(watched).query(vector(11), { topK: 1, namespace: "ns" });
      expect(near.map((n) => n.id)).toEqual(["f11"]);
      expect(statements.some(readsEveryVector)).toBe(false);
    });
  });
});

describe("the project index object's snapshot under writes that never go quiet", () => {
  it("is checked at the latest SNAPSHOT_LONGEST_WAIT_MS after the first write since the last check", async () => {
    const { env, runInDurableObject, runDurableObjectAlarm } = await import("cloudflare:test");
    const { SNAPSHOT_LONGEST_WAIT_MS, SNAPSHOT_QUIET_MS } = await import(
      "../src/project-index/project-index-object"
    );
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`busy-${crypto.randomUUID()}`));
    const vector = (i: number) => Array.from({ length: 8 }, (_, d) => Math.sin(i + d));
    const write = (index: ProjectIndexObject, i: number) =>
      index.upsert("acme", "atlas", "ns", [{ id: `f${i}`, values: vector(i), user: "" }]);
    const heads = (state: DurableObjectState) =>
      state.storage.sql.exec("SELECT namespace FROM vector_snapshot_heads").toArray();
    await runInDurableObject(stub, async (index: ProjectIndexObject, state) => {
      await write(index, 0);
      // The first write of this spell as if made almost the longest wait ago, writes ever since.
      const first = Date.now() - SNAPSHOT_LONGEST_WAIT_MS + SNAPSHOT_QUIET_MS / 2;
      state.storage.sql.exec("UPDATE project_index_vector_writes SET since = ?", first);
      await state.storage.deleteAlarm();
      await write(index, 1);
      // Due before the quiet spell this write would otherwise wait for.
      expect(await state.storage.getAlarm()).toBe(first + SNAPSHOT_LONGEST_WAIT_MS);
      state.storage.sql.exec("UPDATE project_index_vector_writes SET since = since - ?", SNAPSHOT_QUIET_MS);
    });
    // The last write is not a quiet spell old, yet the check runs: the snapshot is stored.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await runInDurableObject(stub, async (index: ProjectIndexObject, state) => {
      expect(heads(state)).toEqual([{ namespace: "ns" }]);
      expect(state.storage.sql.exec("SELECT * FROM project_index_vector_writes").toArray()).toEqual([]);
      // The next write starts a new spell.
      const before = Date.now();
      await write(index, 2);
      const alarm = (await state.storage.getAlarm()) as number;
      expect(alarm).toBeGreaterThanOrEqual(before + SNAPSHOT_QUIET_MS);
      expect(alarm).toBeLessThan(before + SNAPSHOT_LONGEST_WAIT_MS);
    });
  });
});

describe("the project index object's binding", () => {
  it("answers the tenant and project it was first called for, and refuses any other, then and later", async () => {
    const { env, runInDurableObject } = await import("cloudflare:test");
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`binding-${crypto.randomUUID()}`));
    const vector = Array.from({ length: 8 }, (_, i) => (i === 0 ? 1 : 0));
    await runInDurableObject(stub, async (index: ProjectIndexObject) => {
      await index.upsert("acme", "atlas", "ns", [{ id: "f1", values: vector, user: "" }]);
      const ids = async () => (await index.nearest("acme", "atlas", "ns", vector, "u1", 5)).map((n) => n.id);
      expect(await ids()).toEqual(["f1"]);
      await expect(index.nearest("other", "atlas", "ns", vector, "u1", 5)).rejects.toThrow(/another tenant/);
      await expect(index.nearest("acme", "hermes", "ns", vector, "u1", 5)).rejects.toThrow(/another tenant/);
      // The binding kept in memory is the stored one: the right caller is still answered after a refusal.
      expect(await ids()).toEqual(["f1"]);
    });
  });
});
