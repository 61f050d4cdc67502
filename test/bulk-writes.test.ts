import { describe, expect, it } from "vitest";
import { jsonRuns } from "../src/d1/json-runs";
import { stableId, withStableIds } from "../src/entities/stable-ids";
import { call, fact, newThread } from "./helpers";

/**
 * A write's new versions and their entity references are inserted from JSON parameters, in runs that
 * keep each parameter under D1's bound on a string (src/d1/json-runs.ts): a batch larger than one run
 * must store every version, in order, searchable and linked, as one statement per row did.
 */
describe("bulk fact writes", () => {
  it("a batch larger than one JSON run stores, indexes and links every version", async () => {
    const t = await newThread();
    // 400 facts of about 3 KB: more than two runs of rows.
    const filler = "The shelving audit found nothing unusual in this aisle. ".repeat(55);
    const events = Array.from({ length: 400 }, (_, i) =>
      fact(`aisle_${i}_audit`, `${i === 231 ? "Aisle 231 holds the marmalade reserve. " : ""}${filler}`, {
        id: `audit-${i}`,
        ts: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
      }),
    );
    expect(JSON.stringify(events).length).toBeGreaterThan(1_000_000);
    const written = await t.events([
      ...events,
      fact("aisle_supervisor", "Marisol Reed supervises the aisles", { id: "sup-1" }),
      fact("aisle_backup", "Marisol Reed covers the night audit", { id: "sup-2" }),
    ]);
    expect(written.status, JSON.stringify(written.json)).toBe(200);
    expect(written.json.facts).toHaveLength(402);

    for (const i of [0, 199, 231, 399]) {
      const stored = await call("GET", `/facts?key=aisle_${i}_audit&as_user=u1`);
      expect(stored.json.facts.map((f: { id: string }) => f.id)).toEqual([`audit-${i}`]);
      expect(stored.json.facts[0].value).toBe(events[i]?.value);
    }
    // The full-text index holds the version inserted in the middle of a run.
    const ctx = await t.context({ query: "Where is the marmalade reserve?" });
    expect(ctx.json.context).toContain("marmalade reserve");
    // Both facts naming the supervisor refer to their one entity.
    const list = await call("GET", `/entities?project_id=${t.project}`);
    const reed = list.json.entities.find(
      (e: { canonical_name: string }) => e.canonical_name === "Marisol Reed",
    );
    const page = await call("GET", `/entities/${reed.id}?as_user=u1`);
    expect(page.json.facts.map((f: { id: string }) => f.id).sort()).toEqual(["sup-1", "sup-2"]);
  });

  it("splits rows into JSON array runs of bounded size, in order, a large item alone", () => {
    const items = [{ a: 1 }, "two", [3], { big: "x".repeat(40) }, null, 6];
    const runs = jsonRuns(items, 30);
    expect(runs.flatMap((run) => JSON.parse(run))).toEqual(items);
    expect(runs.length).toBeGreaterThan(1);
    for (const run of runs) expect(run.length <= 30 || JSON.parse(run).length === 1).toBe(true);
    expect(jsonRuns([])).toEqual([]);
    expect(jsonRuns(items)).toEqual([JSON.stringify(items)]);
  });

  it("gives provisional ids their stable ids as a JSON round trip would copy the plan", () => {
    const plan = {
      created: [{ id: "new:person:ada", canonicalName: "Ada", metadata: { email: undefined, role: "cto" } }],
      links: [
        { source: "f1", entityId: "new:person:ada", mention: "ada" },
        { source: "f2", entityId: "e-old", mention: "new:person:ada" },
      ],
      reviews: [{ id: "review:new:person:ada", entityId: "new:person:ada", runnerUpId: null, score: 0.9 }],
      names: ["new:person:ada", undefined],
    };
    const reference = JSON.parse(JSON.stringify(plan), (key, v) =>
      ["id", "entityId", "candidateId", "runnerUpId"].includes(key) &&
      typeof v === "string" &&
      /^(?:new|review):/.test(v)
        ? stableId("p1", v)
        : v,
    );
    const copied = withStableIds(plan, "p1");
    expect(copied).toStrictEqual(reference);
    expect(copied.links[0]?.entityId).toBe(stableId("p1", "new:person:ada"));
    // A mention that merely reads like a provisional id is not an id field: it stays as written.
    expect(copied.links[1]?.mention).toBe("new:person:ada");
    expect(plan.links[0]?.entityId).toBe("new:person:ada");
  });
});
