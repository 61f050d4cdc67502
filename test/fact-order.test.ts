import { describe, expect, it } from "vitest";
import { call, fact, newThread } from "./helpers";

/**
 * Issue 14, items 2 and 6 through the API: a fact's valid time, not its arrival, decides which version
 * is current, and writers racing on one key from many threads of a project leave one current version
 * and one chain holding every write.
 */

type View = { id: string; value: unknown; tx_end: string | null; supersedes: string | null };

async function currentOf(project: string, key: string): Promise<View[]> {
  const res = await call("GET", `/facts?project_id=${project}&key=${key}&as_user=u1`);
  expect(res.status).toBe(200);
  return res.json.facts;
}

async function chainOf(project: string, id: string): Promise<string[]> {
  const res = await call("GET", `/facts/${id}/history?project_id=${project}&as_user=u1`);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.chain;
}

const at = (day: number) => `2025-01-${String(day).padStart(2, "0")}T00:00:00Z`;

describe("valid time decides, not arrival", () => {
  it("a late, older version is history: the newer one stays current, whatever the order of delivery", async () => {
    const orders = [
      ["c1", "c2", "c3"],
      ["c3", "c2", "c1"],
      ["c2", "c3", "c1"],
      ["c3", "c1", "c2"],
    ];
    const day: Record<string, number> = { c1: 1, c2: 2, c3: 3 };
    for (const order of orders) {
      const t = await newThread();
      const outcomes: string[] = [];
      for (const id of order) {
        const res = await t.events([fact("city", `city-${id}`, { id, ts: at(day[id] as number) })]);
        expect(res.status).toBe(200);
        outcomes.push(res.json.facts[0].outcome);
      }
      const current = await currentOf(t.project, "city");
      expect(
        current.map((f) => f.id),
        order.join(","),
      ).toEqual(["c3"]);
      expect(await chainOf(t.project, "c1")).toEqual(["c1", "c2", "c3"]);
      expect(await chainOf(t.project, "c3")).toEqual(["c1", "c2", "c3"]);
      if (order[0] === "c3") expect(outcomes.slice(1)).toEqual(["history", "history"]);
      const ctx = await t.context({ query: "Which city?" });
      expect(ctx.json.context).toContain("city-c3");
      // What was true on 2 January is the version valid then, though it arrived last.
      const then = await call(
        "GET",
        `/facts?project_id=${t.project}&as_user=u1&key=city&valid_at=2025-01-02T12:00:00Z`,
      );
      expect(then.json.facts.map((f: View) => f.id)).toEqual(["c2"]);
    }
  });

  it("the same facts in one call or split across calls give the same current version and chain", async () => {
    const facts = [3, 1, 4, 2].map((d) => fact("plan", `plan-${d}`, { id: `p${d}`, ts: at(d) }));
    const whole = await newThread();
    await whole.events(facts);
    const split = await newThread();
    await split.events(facts.slice(0, 1));
    await split.events(facts.slice(1, 3));
    await split.events(facts.slice(3));
    for (const t of [whole, split]) {
      expect((await currentOf(t.project, "plan")).map((f) => f.id)).toEqual(["p4"]);
      expect(await chainOf(t.project, "p1")).toEqual(["p1", "p2", "p3", "p4"]);
    }
  });
});

describe("one current version under concurrency", () => {
  it("writers on many threads of one project racing on one key leave one current version and one chain with every write", async () => {
    const first = await newThread();
    const threads = [first];
    for (let i = 1; i < 8; i++) threads.push(await newThread(undefined, { project: first.project }));
    const writes = threads.flatMap((t, ti) =>
      Array.from({ length: 8 }, (_, wi) => ({
        t,
        id: `r${ti}-${wi}`,
        ts: new Date(Date.UTC(2025, 0, 1, 0, wi * 8 + ti)).toISOString(),
      })),
    );
    const results = await Promise.all(
      writes.map((w) => w.t.events([fact("status", `status ${w.id}`, { id: w.id, ts: w.ts })])),
    );
    for (const r of results) expect(r.status, JSON.stringify(r.json)).toBe(200);

    const current = await currentOf(first.project, "status");
    const expected = [...writes].sort((a, b) => a.ts.localeCompare(b.ts)).map((w) => w.id);
    expect(current.map((f) => f.id)).toEqual([expected.at(-1)]);
    const all = await call(
      "GET",
      `/facts?project_id=${first.project}&key=status&include_history=true&as_user=u1`,
    );
    expect(all.json.facts).toHaveLength(writes.length);
    expect(await chainOf(first.project, expected[0] as string)).toEqual(expected);
  });

  it("shared facts written without timestamps by many users at once keep one current version", async () => {
    const first = await newThread({ user_id: "u0", authority: "manager" });
    const threads = [first];
    for (let i = 1; i < 6; i++)
      threads.push(await newThread({ user_id: `u${i}`, authority: "manager" }, { project: first.project }));
    const results = await Promise.all(
      threads.flatMap((t, ti) =>
        Array.from({ length: 4 }, (_, wi) =>
          t.events([fact("office", `office ${ti}-${wi}`, { source: { type: "policy" } })]),
        ),
      ),
    );
    for (const r of results) expect(r.status, JSON.stringify(r.json)).toBe(200);
    const current = await currentOf(first.project, "office");
    expect(current).toHaveLength(1);
    const all = await call("GET", `/facts?project_id=${first.project}&key=office&include_history=true`);
    expect(all.json.facts).toHaveLength(24);
    const chain = await chainOf(first.project, (current[0] as View).id);
    expect(chain).toHaveLength(24);
    expect(chain.at(-1)).toBe((current[0] as View).id);
  });
});
