import { describe, expect, it } from "vitest";
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
