import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEFAULT_AUTHORITY_LADDER } from "../src/facts/authority";
import { FACT_RECHECK_MS, FactCache } from "../src/facts/fact-cache";
import { type FactCatchUp, FactRepository } from "../src/facts/fact-repository";
import { planFactWrites } from "../src/facts/plan-writes";
import { prepareFact } from "../src/facts/prepare-fact";
import { fact, newThread } from "./helpers";

/**
 * A thread's object keeps its project's facts in memory between compiles (src/facts/fact-cache.ts).
 * Facts are project-wide and other threads write them, so each of these compiles through thread B
 * must see what thread A wrote just before, through the same long-lived object.
 */
describe("facts cached by a thread's object", () => {
  async function pair() {
    const a = await newThread();
    const b = await newThread(undefined, { project: a.project });
    return { a, b };
  }
  const compiledEntry = (ctx: any, id: string) =>
    ctx.json.trace.compiled.find((c: any) => c.object_id === id);

  it("serve another thread's new fact, supersession and closure in the very next compile", async () => {
    const { a, b } = await pair();
    await a.events([fact("db_engine", "Postgres 15", { id: "db1" })]);
    const first = await b.context({ query: "Which database engine do we use?" });
    expect(first.json.context).toContain("Postgres 15");

    // Superseded by key through A: B's next compile drops the old value and has the new one.
    await a.events([fact("db_engine", "MySQL 8", { id: "db2" })]);
    const second = await b.context({ query: "Which database engine do we use?" });
    expect(second.json.context).toContain("MySQL 8");
    expect(second.json.context).not.toContain("Postgres 15");

    // Superseded by explicit id, to a key B has not seen yet.
    await a.events([fact("db_choice", "SQLite everywhere", { id: "db3", supersedes: "db2" })]);
    const third = await b.context({ query: "Which database engine do we use?" });
    expect(third.json.context).toContain("SQLite everywhere");
    expect(third.json.context).not.toContain("MySQL 8");
  });

  it("serve a permission change made through another thread in the very next compile", async () => {
    const { a, b } = await pair();
    await a.events([fact("salary_band", "Band B7 for the new hire", { id: "s1" })]);
    const open = await b.context({ query: "What is the salary band?", roles: ["employee"] });
    expect(open.json.context).toContain("Band B7");

    await a.events([fact("salary_band", "Band B8 for the new hire", { id: "s2", allow_roles: ["hr"] })]);
    const closed = await b.context({ query: "What is the salary band?", roles: ["employee"] });
    expect(closed.json.context).not.toContain("Band B7");
    expect(closed.json.context).not.toContain("Band B8");
  });

  it("serve a review flag that another thread's write set on an unchanged row", async () => {
    const { a, b } = await pair();
    await a.events([
      fact("available_budget", "$200,000", { id: "ab1", ts: "2023-12-01T00:00:00Z" }),
      fact("derived_purchase", "Approved $150,000 purchase", {
        id: "dp1",
        depends_on: ["available_budget"],
        ts: "2024-01-01T00:00:00Z",
      }),
    ]);
    const before = await b.context({ query: "What purchase was approved?" });
    const levelBefore = compiledEntry(before, "dp1")?.authority_level;
    expect(levelBefore).toBeDefined();

    // Superseding the budget flags dp1 needs_review: an UPDATE of a row B already holds.
    await a.events([fact("available_budget", "$120,000", { id: "ab2", ts: "2024-01-02T00:00:00Z" })]);
    const after = await b.context({ query: "What purchase was approved?" });
    expect(compiledEntry(after, "dp1")?.authority_level).toBe(3);
    expect(levelBefore).not.toBe(3);
  });

  it("never serves one user's own facts to another user's thread of the project", async () => {
    const a = await newThread({ user_id: "ada", user_name: "Ada", authority: "employee" });
    const b = await newThread(
      { user_id: "bob", user_name: "Bob", authority: "employee" },
      { project: a.project },
    );
    await b.context({ query: "warm the cache" });
    await a.events([fact("favourite_editor", "Ada prefers Helix", { id: "fe1", memory_type: "user" })]);
    const ctx = await b.context({ query: "Which editor is preferred?" });
    expect(ctx.json.context).not.toContain("Helix");
    expect(ctx.json.trace.omitted.map((o: any) => o.object_id)).not.toContain("fe1");
  });
});

describe("announced fact writes", () => {
  it("serve an unchanged project from memory, and read D1 again only after a write announces itself (on the write path)", async () => {
    const a = await newThread();
    const b = await newThread(undefined, { project: a.project });
    await a.events([fact("ci_runner", "GitHub Actions", { id: "ci1" })]);
    const readOf = async () =>
      (await b.context({ query: "Which CI runner do we use?" })).json.trace.timings.facts_read;

    // The first compile primes the thread's copy (and its fact index) on the write path it waits for.
    expect(await readOf()).toBe("held");
    expect(await readOf()).toBe("held");
    expect(await readOf()).toBe("held");

    // The announcement schedules B's upkeep, which reads the changed rows (to index them) before B's next
    // compile: that compile is served from memory, and already has the new value.
    await a.events([fact("ci_runner", "Buildkite", { id: "ci2" })]);
    const after = await b.context({ query: "Which CI runner do we use?" });
    expect(after.json.trace.timings.facts_read).toBe("held");
    expect(after.json.context).toContain("Buildkite");
    expect(after.json.context).not.toContain("GitHub Actions");
    expect(await readOf()).toBe("held");

    // A thread's own write moves its copy on too: the write's batch read what changed back, so the
    // next compile has no D1 read of its own.
    await b.events([fact("ci_runner", "Jenkins", { id: "ci3" })]);
    const own = await b.context({ query: "Which CI runner do we use?" });
    expect(own.json.trace.timings.facts_read).toBe("held");
    expect(own.json.context).toContain("Jenkins");
    expect(own.json.context).not.toContain("Buildkite");
    // And the other thread still hears of it.
    const other = await a.context({ query: "Which CI runner do we use?" });
    expect(other.json.context).toContain("Jenkins");
    expect(other.json.context).not.toContain("Buildkite");
  });
});

describe("FactCache registration (tenant D1)", () => {
  const repository = () => new FactRepository(env.TENANT_ACME_DB);
  let n = 0;
  async function write(projectId: string, key: string, value: string, catchUp?: FactCatchUp) {
    n++;
    const row = prepareFact(
      { type: "fact", id: `rf-${n}`, key, value, ts: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString() },
      {
        projectId,
        threadId: "writer",
        identity: { user_id: "u1", user_name: "Ada", authority: "employee" },
        ladder: DEFAULT_AUTHORITY_LADDER,
        receivedAt: new Date().toISOString(),
        countTokens: (text: string) => Math.ceil(text.length / 4),
      },
    );
    const existing = await repository().loadForPlanning(projectId, [row.id], [row.key]);
    const written = await repository().apply(
      projectId,
      planFactWrites(existing, [row], row.txStart),
      catchUp,
    );
    if (!written) throw new Error("nothing written");
    return written;
  }
  const reader = (projectId: string, thread: string) => ({ projectId, userId: "u1", thread });

  it("is told of a write by the writer's batch, and only under its own token", async () => {
    const project = `reg-${Math.random().toString(36).slice(2)}`;
    const cache = new FactCache();
    const first = await cache.forCompile(repository(), reader(project, "t-b"), 1_000);
    expect(first.read).toBe("full");

    const written = await write(project, "region", "eu-west-1");
    expect(written.watchers).toEqual([{ thread: "t-b", token: cache.token }]);
    // Not yet announced: the copy is served as held, which is why writers must announce.
    expect((await cache.forCompile(repository(), reader(project, "t-b"), 1_001)).read).toBe("held");

    expect(cache.announce(project, "some-older-copy", written.revision)).toBe(false);
    expect(cache.announce(`${project}-other`, cache.token, written.revision)).toBe(false);
    expect(cache.announce(project, cache.token, written.revision)).toBe(true);
    const next = await cache.forCompile(repository(), reader(project, "t-b"), 1_002);
    expect(next.read).toBe("changes");
    expect(next.rows.map((r) => r.key)).toContain("region");
    expect((await cache.forCompile(repository(), reader(project, "t-b"), 1_003)).read).toBe("held");
  });

  it("takes back what the writer's own batch read, and never lets an older answer replace a newer row", async () => {
    const project = `reg-${Math.random().toString(36).slice(2)}`;
    const cache = new FactCache();
    await cache.forCompile(repository(), reader(project, "t-w"), 0);
    expect(cache.catchUpFor(`${project}-other`, "u1")).toBeUndefined();
    expect(cache.catchUpFor(project, "someone-else")).toBeUndefined();

    // Two writes both ask from the copy's revision; their answers come back in the wrong order.
    const since = cache.catchUpFor(project, "u1");
    if (!since) throw new Error("the copy holds the project");
    const first = await write(project, "region", "eu-west-1", since);
    const second = await write(project, "region", "us-east-1", since);
    expect(first.changed?.map((r) => JSON.parse(r.valueJson))).toEqual(["eu-west-1"]);
    // The second batch reads the first version closed, with the second write's revision.
    const closed = second.changed?.find((r) => JSON.parse(r.valueJson) === "eu-west-1");
    expect(closed?.txEnd).not.toBeNull();

    cache.absorb(project, since, second.revision, second.changed ?? []);
    cache.absorb(project, since, first.revision, first.changed ?? []);
    // Announced by the writer itself (announceFacts), as every write is.
    cache.announce(project, cache.token, second.revision);
    const held = await cache.forCompile(repository(), reader(project, "t-w"), 1);
    expect(held.read).toBe("held");
    const current = held.rows.filter((r) => r.key === "region" && r.txEnd === null);
    expect(current.map((r) => JSON.parse(r.valueJson))).toEqual(["us-east-1"]);
    expect(held.rows.filter((r) => r.key === "region")).toHaveLength(2);

    // What the held copy serves is what a fresh load reads.
    const fresh = await new FactCache().forCompile(repository(), reader(project, "t-x"), 0);
    const view = (rows: typeof held.rows) => rows.map((r) => [r.id, r.txEnd, r.isValid, r.supersededBy]);
    expect(view(held.rows)).toEqual(view(fresh.rows));
  });

  it("ignores rows read back for another user's copy", async () => {
    const project = `reg-${Math.random().toString(36).slice(2)}`;
    const cache = new FactCache();
    await cache.forCompile(repository(), reader(project, "t-v"), 0);
    const written = await write(project, "region", "eu-west-1", { userId: "u2", since: 0 });
    cache.absorb(project, { userId: "u2", since: 0 }, written.revision, written.changed ?? []);
    cache.announce(project, cache.token, written.revision);
    // Not taken: the copy is behind, so it reads the change itself.
    expect((await cache.forCompile(repository(), reader(project, "t-v"), 1)).read).toBe("changes");
  });

  it("asks D1 again after FACT_RECHECK_MS even without an announcement, and renews its registration", async () => {
    const project = `reg-${Math.random().toString(36).slice(2)}`;
    const cache = new FactCache();
    await cache.forCompile(repository(), reader(project, "t-c"), 0);
    const written = await write(project, "tier", "enterprise");
    // A writer found the copy gone and dropped its registration; the announcement was lost.
    await repository().forget(project, written.watchers);
    expect((await write(project, "tier", "premium")).watchers).toEqual([]);

    expect((await cache.forCompile(repository(), reader(project, "t-c"), FACT_RECHECK_MS - 1)).read).toBe(
      "held",
    );
    const late = await cache.forCompile(repository(), reader(project, "t-c"), FACT_RECHECK_MS);
    expect(late.read).toBe("changes");
    const tier = late.rows.filter((r) => r.key === "tier" && r.txEnd === null);
    expect(tier.map((r) => JSON.parse(r.valueJson))).toEqual(["premium"]);
    expect((await write(project, "tier", "basic")).watchers).toEqual([{ thread: "t-c", token: cache.token }]);
  });

  it("keeps a newer copy's registration when an older copy of the same thread is forgotten", async () => {
    const project = `reg-${Math.random().toString(36).slice(2)}`;
    const older = new FactCache();
    await older.forCompile(repository(), reader(project, "t-d"), 0);
    const restarted = new FactCache();
    await restarted.forCompile(repository(), reader(project, "t-d"), 0);
    await repository().forget(project, [{ thread: "t-d", token: older.token }]);
    expect((await write(project, "owner", "Ada")).watchers).toEqual([
      { thread: "t-d", token: restarted.token },
    ]);
  });
});
