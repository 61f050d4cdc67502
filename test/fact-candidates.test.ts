import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEFAULT_AUTHORITY_LADDER } from "../src/facts/authority";
import { FACT_RECHECK_MS, FactCandidateCache, HELD_SEARCHES } from "../src/facts/fact-candidate-cache";
import {
  BASE_CHANGES_LIMIT,
  FACT_CANDIDATE_LIMITS,
  searchTerms,
  WHOLE_PROJECT_VERSIONS,
} from "../src/facts/fact-candidates";
import { FactRepository } from "../src/facts/fact-repository";
import { planFactWrites } from "../src/facts/plan-writes";
import { prepareFact } from "../src/facts/prepare-fact";
import { RANKED_MATCH_BUDGET, rankedTerms, rankedTermsWithin } from "../src/retrieval/query-terms";
import { countingDatabase, fact, newThread } from "./helpers";

/**
 * A thread's object reads the candidate facts of each compile through D1's indexes and holds its last
 * few searches (src/facts/fact-candidate-cache.ts). Facts are project-wide and other threads write
 * them, so each of these compiles through thread B must see what thread A wrote just before, through
 * the same long-lived object.
 */
describe("facts read by a thread's object", () => {
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
  it("serve a repeated question from memory, and search D1 again only after a write announces itself", async () => {
    const a = await newThread();
    const b = await newThread(undefined, { project: a.project });
    await a.events([fact("ci_runner", "GitHub Actions", { id: "ci1" })]);
    const readOf = async () =>
      (await b.context({ query: "Which CI runner do we use?" })).json.trace.timings.facts_read;

    expect(await readOf()).toBe("searched");
    expect(await readOf()).toBe("held");
    expect(await readOf()).toBe("held");

    // Another thread's write is announced to B before it is acknowledged: B's next compile searches.
    await a.events([fact("ci_runner", "Buildkite", { id: "ci2" })]);
    const after = await b.context({ query: "Which CI runner do we use?" });
    expect(after.json.trace.timings.facts_read).toBe("searched");
    expect(after.json.context).toContain("Buildkite");
    expect(after.json.context).not.toContain("GitHub Actions");
    expect(await readOf()).toBe("held");

    // So does a thread's own write.
    await b.events([fact("ci_runner", "Jenkins", { id: "ci3" })]);
    const own = await b.context({ query: "Which CI runner do we use?" });
    expect(own.json.trace.timings.facts_read).toBe("searched");
    expect(own.json.context).toContain("Jenkins");
    expect(own.json.context).not.toContain("Buildkite");
    const other = await a.context({ query: "Which CI runner do we use?" });
    expect(other.json.context).toContain("Jenkins");
    expect(other.json.context).not.toContain("Buildkite");
  });
});

describe("FactCandidateCache (tenant D1)", () => {
  const repository = () => new FactRepository(env.TENANT_ACME_DB);
  let n = 0;
  async function write(
    projectId: string,
    key: string,
    value: string,
    extra: { userId?: string; policy?: boolean } = {},
  ) {
    n++;
    const row = prepareFact(
      {
        type: "fact",
        id: `rf-${n}`,
        key,
        value,
        ts: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString(),
        ...(extra.userId ? { memory_type: "user" as const } : {}),
        ...(extra.policy ? { source: { type: "policy" as const } } : {}),
      },
      {
        projectId,
        threadId: "writer",
        identity: { user_id: extra.userId ?? "u1", user_name: "Ada", authority: "employee" },
        ladder: DEFAULT_AUTHORITY_LADDER,
        receivedAt: new Date().toISOString(),
        countTokens: (text: string) => Math.ceil(text.length / 4),
      },
    );
    const existing = await repository().loadForPlanning(projectId, [row.id], [row.key]);
    const written = await repository().apply(projectId, planFactWrites(existing, [row], row.txStart));
    if (!written) throw new Error("nothing written");
    return written;
  }
  const reader = (projectId: string, thread: string) => ({ projectId, userId: "u1", thread });
  const newProject = () => `reg-${Math.random().toString(36).slice(2)}`;

  it("is told of a write by the writer's batch, and only under its own token", async () => {
    const project = newProject();
    const cache = new FactCandidateCache();
    expect((await cache.read(repository(), reader(project, "t-b"), [], 1_000)).read).toBe("searched");

    const written = await write(project, "region", "eu-west-1");
    expect(written.watchers).toEqual([{ thread: "t-b", token: cache.token }]);
    // Not yet announced: the held answer is served, which is why writers must announce.
    expect((await cache.read(repository(), reader(project, "t-b"), [], 1_001)).read).toBe("held");

    expect(cache.announce(project, "some-older-reader", written.revision)).toBe(false);
    expect(cache.announce(`${project}-other`, cache.token, written.revision)).toBe(false);
    expect(cache.announce(project, cache.token, written.revision)).toBe(true);
    expect(cache.behind()).toBe(true);
    const next = await cache.read(repository(), reader(project, "t-b"), [], 1_002);
    expect(next.read).toBe("searched");
    expect(next.candidates.rows.map((r) => r.key)).toContain("region");
    expect(cache.behind()).toBe(false);
    expect((await cache.read(repository(), reader(project, "t-b"), [], 1_003)).read).toBe("held");
  });

  it("holds the last few searches, and drops them all when the project moves on", async () => {
    const project = newProject();
    await write(project, "region", "eu-west-1");
    const cache = new FactCandidateCache();
    const match = (q: string) => searchTerms(q);
    const questions = Array.from({ length: HELD_SEARCHES + 1 }, (_, i) => match(`region number ${i}`));
    for (const q of questions) await cache.read(repository(), reader(project, "t-h"), q, 0);
    // The oldest was let go; the newest are held.
    expect((await cache.read(repository(), reader(project, "t-h"), questions[0] ?? [], 1)).read).toBe(
      "searched",
    );
    expect((await cache.read(repository(), reader(project, "t-h"), questions.at(-1) ?? [], 1)).read).toBe(
      "held",
    );
    const written = await write(project, "region", "us-east-1");
    cache.announce(project, cache.token, written.revision);
    const after = await cache.read(repository(), reader(project, "t-h"), questions.at(-1) ?? [], 2);
    expect(after.read).toBe("searched");
    const current = after.candidates.rows.filter((r) => r.key === "region" && r.txEnd === null);
    expect(current.map((r) => JSON.parse(r.valueJson))).toEqual(["us-east-1"]);
  });

  it("answers a new question from the newest versions it holds until a write is announced", async () => {
    const project = newProject();
    await write(project, "region", "eu-west-1");
    const cache = new FactCandidateCache();
    const ask = async (question: string, at: number) =>
      (await cache.read(repository(), reader(project, "t-n"), searchTerms(question), at)).candidates;
    expect((await ask("Which region?", 0)).rows.map((r) => r.key)).toEqual(["region"]);
    // Written behind the reader's back: a new question is answered from the held newest versions.
    const written = await write(project, "tier", "enterprise");
    expect((await ask("Which tier?", 1)).rows.map((r) => r.key)).toEqual(["region"]);
    // Announced, as every write is: the next question reads them again.
    cache.announce(project, cache.token, written.revision);
    expect((await ask("What tier are we on?", 2)).rows.map((r) => r.key).sort()).toEqual(["region", "tier"]);
  });

  it("asks D1 again after FACT_RECHECK_MS even without an announcement, and renews its registration", async () => {
    const project = newProject();
    const cache = new FactCandidateCache();
    await cache.read(repository(), reader(project, "t-c"), [], 0);
    const written = await write(project, "tier", "enterprise");
    // A writer found the reader gone and dropped its registration; the announcement was lost.
    await repository().forget(project, written.watchers);
    expect((await write(project, "tier", "premium")).watchers).toEqual([]);

    expect((await cache.read(repository(), reader(project, "t-c"), [], FACT_RECHECK_MS - 1)).read).toBe(
      "held",
    );
    // Due: this read is served from what is held, without waiting for D1, which is asked beside it.
    expect((await cache.read(repository(), reader(project, "t-c"), [], FACT_RECHECK_MS)).read).toBe("held");
    await cache.settled();
    expect(cache.behind()).toBe(true);
    const late = await cache.read(repository(), reader(project, "t-c"), [], FACT_RECHECK_MS + 1);
    expect(late.read).toBe("searched");
    const tier = late.candidates.rows.filter((r) => r.key === "tier" && r.txEnd === null);
    expect(tier.map((r) => JSON.parse(r.valueJson))).toEqual(["premium"]);
    expect((await write(project, "tier", "basic")).watchers).toEqual([{ thread: "t-c", token: cache.token }]);
  });

  it("finds nothing to read when the recheck finds the revision it holds", async () => {
    const project = newProject();
    await write(project, "tier", "enterprise");
    const cache = new FactCandidateCache();
    expect((await cache.read(repository(), reader(project, "t-q"), [], 0)).read).toBe("searched");
    expect((await cache.read(repository(), reader(project, "t-q"), [], FACT_RECHECK_MS)).read).toBe("held");
    await cache.settled();
    expect(cache.behind()).toBe(false);
    // Asked at FACT_RECHECK_MS: held until the next one is due, and registered all along.
    expect((await cache.read(repository(), reader(project, "t-q"), [], 2 * FACT_RECHECK_MS - 1)).read).toBe(
      "held",
    );
    expect((await write(project, "tier", "premium")).watchers).toEqual([
      { thread: "t-q", token: cache.token },
    ]);
  });

  it("brings its newest versions and standing rules to a new revision by reading only what changed", async () => {
    const project = newProject();
    for (let i = 0; i < 60; i++) await write(project, `metric_${i}`, `value ${i}`);
    await write(project, "region", "eu-west-1");
    await write(project, "retention_rule", "Keep invoices for 7 years", { policy: true });
    await write(project, "travel_rule", "Book economy for flights under 6 hours", { policy: true });
    // Counts the rows D1 hands this reader.
    const { database: counting, reads } = countingDatabase(env.TENANT_ACME_DB);
    const repo = new FactRepository(counting);
    const cache = new FactCandidateCache();
    await cache.read(repo, reader(project, "t-a"), [], 0);
    expect(reads.rows).toBeGreaterThan(60);

    // A supersession, a new rule, a rule replaced, and another user's own fact, written elsewhere.
    await write(project, "region", "us-east-1");
    await write(project, "expense_rule", "Expenses over $5,000 need a director", { policy: true });
    await write(project, "travel_rule", "Book economy for every flight", { policy: true });
    const last = await write(project, "diet", "Ada is vegetarian", { userId: "ada" });
    cache.announce(project, cache.token, last.revision);

    reads.rows = 0;
    const advanced = await cache.read(repo, reader(project, "t-a"), [], 1);
    // The revision and the five versions the reader may know of that changed: two closed, three new.
    expect(reads.rows).toBe(6);
    const fresh = await new FactCandidateCache().read(repository(), reader(project, "t-fresh"), [], 1);
    expect(advanced.candidates.rows).toEqual(fresh.candidates.rows);
    expect(advanced.candidates.counts).toEqual(fresh.candidates.counts);
    expect(advanced.candidates.revision).toBe(last.revision);
    const current = advanced.candidates.rows.filter((r) => r.txEnd === null && !r.key.startsWith("metric"));
    expect(current.map((r) => JSON.parse(r.valueJson)).sort()).toEqual([
      "Book economy for every flight",
      "Expenses over $5,000 need a director",
      "Keep invoices for 7 years",
      "us-east-1",
    ]);
    expect(cache.heldRows()).toBe(advanced.candidates.rows.length);

    // More changed than it applies: the part is read afresh, and is what a fresh read finds.
    let latest = last;
    for (let i = 0; i <= BASE_CHANGES_LIMIT; i++) latest = await write(project, `metric_${i}`, `v${i}`);
    cache.announce(project, cache.token, latest.revision);
    reads.rows = 0;
    const reread = await cache.read(repo, reader(project, "t-a"), [], 2);
    expect(reads.rows).toBeGreaterThan(BASE_CHANGES_LIMIT + 60);
    const again = await new FactCandidateCache().read(repository(), reader(project, "t-fresh2"), [], 2);
    expect(reread.candidates.rows).toEqual(again.candidates.rows);
  }, 120_000);

  it("keeps a newer reader's registration when an older reader of the same thread is forgotten", async () => {
    const project = newProject();
    const older = new FactCandidateCache();
    await older.read(repository(), reader(project, "t-d"), [], 0);
    const restarted = new FactCandidateCache();
    await restarted.read(repository(), reader(project, "t-d"), [], 0);
    await repository().forget(project, [{ thread: "t-d", token: older.token }]);
    expect((await write(project, "owner", "Ada")).watchers).toEqual([
      { thread: "t-d", token: restarted.token },
    ]);
  });

  it("finds a current fact behind more newer versions than the recent window, with its slot's history", async () => {
    const project = newProject();
    await write(project, "warehouse_city", "Reno");
    await write(project, "warehouse_city", "Tacoma");
    for (let i = 0; i < WHOLE_PROJECT_VERSIONS + 5; i++) await write(project, `metric_${i}`, `value ${i}`);
    const repo = repository();
    const watcher = { thread: "t-o", token: "k" };
    const unmatched = await repo.candidates(project, "u1", [], watcher);
    expect(unmatched.rows.some((r) => r.key === "warehouse_city")).toBe(false);
    expect(unmatched.truncated).toEqual(["recent"]);
    // Past a whole project, only the newest `recent` versions are candidates by their age alone.
    expect(unmatched.counts.recent).toBe(FACT_CANDIDATE_LIMITS.recent);

    const asked = await repo.candidates(project, "u1", searchTerms("Where is our warehouse?"), watcher);
    const slot = asked.rows.filter((r) => r.key === "warehouse_city");
    expect(slot.find((r) => r.txEnd === null)?.content).toContain("Tacoma");
    // The closed version comes back as history, so the compile still knows "Reno" is dead.
    expect(slot.find((r) => r.txEnd !== null)?.content).toContain("Reno");
    expect(asked.counts.matched).toBe(1);
    expect(asked.counts.history).toBe(1);
  }, 120_000);

  it("reads a project whole up to its bound, past the recent window, and searches once it has grown past it", async () => {
    const project = newProject();
    await write(project, "warehouse_city", "Tacoma");
    const cache = new FactCandidateCache();
    const ask = async (at: number) =>
      (await cache.read(repository(), reader(project, "t-g"), searchTerms("Where is our warehouse?"), at))
        .candidates;
    // Small: one read, everything in the recent window, nothing searched.
    const small = await ask(0);
    expect(small.counts.recent).toBe(1);
    expect(small.counts.matched).toBe(0);
    let last = await write(project, "metric_0", "value 0");
    const beyondRecent = FACT_CANDIDATE_LIMITS.recent + 5;
    for (let i = 1; i < beyondRecent; i++) last = await write(project, `metric_${i}`, `v ${i}`);
    cache.announce(project, cache.token, last.revision);
    // More versions than the recent window, fewer than a whole project's bound: still read whole.
    const whole = await ask(1);
    expect(whole.counts.recent).toBe(beyondRecent + 1);
    expect(whole.truncated).toEqual([]);
    expect(whole.counts.matched).toBe(0);
    for (let i = beyondRecent; i < WHOLE_PROJECT_VERSIONS + 5; i++)
      last = await write(project, `metric_${i}`, `v ${i}`);
    cache.announce(project, cache.token, last.revision);
    const grown = await ask(2);
    expect(grown.counts.recent).toBe(FACT_CANDIDATE_LIMITS.recent);
    expect(grown.truncated).toContain("recent");
    expect(grown.counts.matched).toBe(1);
    expect(grown.rows.some((r) => r.key === "warehouse_city")).toBe(true);
  }, 120_000);

  it("never matches another project's facts or another user's own", async () => {
    const project = newProject();
    const neighbour = `${project}-x`;
    await write(neighbour, "warehouse_city", "Boise");
    await write(project, "warehouse_note", "Ada keeps a warehouse in Fresno", { userId: "ada" });
    const read = await repository().candidates(project, "u1", searchTerms("warehouse"), {
      thread: "t-p",
      token: "k",
    });
    expect(read.rows).toEqual([]);
  });
});

describe("which search terms are ranked", () => {
  it("ranks the rarest terms while their matches fit the budget, and drops the commoner ones", () => {
    const half = Math.floor(RANKED_MATCH_BUDGET / 2);
    expect(rankedTerms(["vendor", "contract", "decide"], [half, RANKED_MATCH_BUDGET + 1, 3])).toEqual({
      ranked: ["decide", "vendor"],
      dropped: 1,
      newest: false,
    });
    // A term that matches nothing is neither ranked nor counted as dropped.
    expect(rankedTerms(["zebra", "vendor"], [0, 10])).toEqual({
      ranked: ["vendor"],
      dropped: 0,
      newest: false,
    });
  });

  it("is made from counts known within bounds only when any count within them makes the same choice", () => {
    const budget = RANKED_MATCH_BUDGET;
    // Within the budget at the high ends: every present term ranks, whatever order the counts give.
    expect(rankedTermsWithin(["kiln", "glaze"], [40, 40], [41, 41])).toMatchObject({
      choice: { dropped: 0, newest: false },
    });
    // A term counted at none that a write may have matched since is counted again; one at none with
    // nothing written since is absent.
    expect(rankedTermsWithin(["kiln", "tenmoku"], [40, 0], [41, 1])).toEqual({ recount: ["tenmoku"] });
    expect(rankedTermsWithin(["kiln", "tenmoku"], [40, 0], [41, 0])).toMatchObject({
      choice: { ranked: ["kiln"], dropped: 0 },
    });
    // Past the budget the cut follows rarity: two terms whose bounds overlap could swap places, and
    // which of them is cut depends on it.
    const half = Math.floor(budget / 2);
    expect(rankedTermsWithin(["vendor", "contract"], [half, half], [half + 2, half + 2])).toMatchObject({
      recount: expect.arrayContaining(["vendor", "contract"]),
    });
    // Even when both ends agree: between them the two can swap, and the one ranked with it.
    expect(
      rankedTermsWithin(["alder", "birch", "cedar"], [2600, 2601, 2000], [2602, 2603, 2000]),
    ).toMatchObject({ recount: expect.arrayContaining(["alder", "birch"]) });
    expect(rankedTerms(["alder", "birch", "cedar"], [2602, 2601, 2000]).ranked).toEqual(["cedar", "birch"]);
    // Apart, the order stands, and the cut falls at the same place at both ends.
    expect(
      rankedTermsWithin(["vendor", "contract", "decide"], [half, budget, 3], [half + 1, budget + 1, 4]),
    ).toEqual({
      choice: rankedTerms(["vendor", "contract", "decide"], [half, budget, 3]),
    });
    // The run fits at the low end and not at the high one: counted again.
    const edge = budget - 10;
    expect(rankedTermsWithin(["vendor", "decide"], [edge - 2, 10], [edge + 2, 12])).toMatchObject({
      recount: expect.arrayContaining(["vendor"]),
    });
    // Exact counts decide as rankedTerms does.
    expect(rankedTermsWithin(["vendor", "contract"], [half, half], [half, half])).toEqual({
      choice: rankedTerms(["vendor", "contract"], [half, half]),
    });
  });

  it("takes the newest matches when even the rarest term is too common to rank", () => {
    const many = RANKED_MATCH_BUDGET + 1;
    expect(rankedTerms(["sensor", "reads"], [many, many])).toEqual({
      ranked: ["reads", "sensor"],
      dropped: 0,
      newest: true,
    });
  });
});
