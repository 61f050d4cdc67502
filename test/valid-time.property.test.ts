import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FactVersion } from "../src/domain/fact-version";
import { type FactPlan, isCurrent, isNewer, planFactWrites } from "../src/facts/plan-writes";
import { factRow } from "./support/context-objects";

/**
 * Valid time decides, not arrival (issue 14, item 2): the same facts delivered in any order and cut into
 * any batches leave each slot with the same current version and the same chain, the chain ordered by
 * (valid_from, id). Storage is simulated as apply() does it, guards included, so a plan that would
 * fail them in D1 fails here.
 */

const keys = ["budget", "city", "owner"];
// Few distinct times, so equal valid times (ordered by id) are common.
const times = ["2025-01-01T00:00:00.000Z", "2025-02-01T00:00:00.000Z", "2025-03-01T00:00:00.000Z"];

const factsArb = fc
  .uniqueArray(
    fc.record({
      n: fc.integer({ min: 0, max: 999 }),
      key: fc.constantFrom(...keys),
      at: fc.constantFrom(...times),
    }),
    { minLength: 1, maxLength: 12, selector: (f) => f.n },
  )
  .map((specs) =>
    specs.map(({ n, key, at }) =>
      factRow({
        id: `f${String(n).padStart(3, "0")}`,
        lineageId: `f${String(n).padStart(3, "0")}`,
        key,
        valueJson: JSON.stringify(`v${n}`),
        validFrom: at,
      }),
    ),
  );

/** A delivery: the facts permuted, then cut into consecutive batches. */
const deliveryArb = factsArb.chain((facts) =>
  fc
    .tuple(
      fc.shuffledSubarray(facts, { minLength: facts.length, maxLength: facts.length }),
      fc.array(fc.integer({ min: 1, max: 4 }), { minLength: facts.length, maxLength: facts.length }),
    )
    .map(([order, cuts]) => {
      const batches: FactVersion[][] = [];
      let i = 0;
      for (const size of cuts) {
        if (i >= order.length) break;
        batches.push(order.slice(i, i + size));
        i += size;
      }
      return { facts, batches };
    }),
);

/** What FactRepository.apply does to the stored rows, its guards asserted. */
function applyPlan(stored: Map<string, FactVersion>, plan: FactPlan): void {
  for (const c of plan.closures) {
    const row = stored.get(c.id);
    expect(row && row.txEnd === null, `closure guard for ${c.id}`).toBe(true);
    if (row) stored.set(c.id, { ...row, isValid: false, supersededBy: c.supersededBy, txEnd: c.txEnd });
  }
  for (const r of plan.relinks) {
    const row = stored.get(r.id);
    expect(row?.[r.field], `relink guard for ${r.id}.${r.field}`).toBe(r.from);
    if (row) stored.set(r.id, { ...row, [r.field]: r.to });
  }
  for (const row of plan.inserts) if (!stored.has(row.id)) stored.set(row.id, { ...row });
  // The unique index: one current version per slot.
  const current = [...stored.values()].filter(isCurrent).map((r) => r.key);
  expect(new Set(current).size, "one current version per key").toBe(current.length);
}

function deliver(batches: FactVersion[][]): Map<string, FactVersion> {
  const stored = new Map<string, FactVersion>();
  batches.forEach((batch, i) => {
    const now = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const incoming = batch.map((f) => ({ ...f, txStart: now }));
    applyPlan(stored, planFactWrites([...stored.values()], incoming, now));
  });
  return stored;
}

/** Each key's chain from its first version along superseded_by, checked against the back links. */
function chains(stored: Map<string, FactVersion>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of keys) {
    const rows = [...stored.values()].filter((r) => r.key === key);
    const roots = rows.filter((r) => r.supersedes === null);
    expect(roots.length, `one root for ${key}`).toBeLessThanOrEqual(1);
    const chain: string[] = [];
    let cursor = roots[0];
    while (cursor && chain.length <= rows.length) {
      chain.push(cursor.id);
      const next: FactVersion | undefined = cursor.supersededBy ? stored.get(cursor.supersededBy) : undefined;
      if (next) expect(next.supersedes).toBe(cursor.id);
      cursor = next;
    }
    expect(chain.length, `every version of ${key} in its chain`).toBe(rows.length);
    if (chain.length) out[key] = chain;
  }
  return out;
}

describe("valid time decides, not arrival", () => {
  it("any order and batching of the same facts gives the same current versions and the same chains", () => {
    fc.assert(
      fc.property(deliveryArb, ({ facts, batches }) => {
        const stored = deliver(batches);
        const expected: Record<string, string[]> = {};
        for (const key of keys) {
          const sorted = facts
            .filter((f) => f.key === key)
            .sort((a, b) => (isNewer(a, b) ? 1 : isNewer(b, a) ? -1 : 0))
            .map((f) => f.id);
          if (sorted.length) expected[key] = sorted;
        }
        expect(chains(stored)).toEqual(expected);
        const current = Object.fromEntries(
          [...stored.values()].filter(isCurrent).map((r) => [r.key, r.id] as const),
        );
        expect(current).toEqual(Object.fromEntries(Object.entries(expected).map(([k, c]) => [k, c.at(-1)])));
      }),
      { numRuns: 300 },
    );
  });

  it("files a late older version as history, closed by the newer one, with an empty transaction window", () => {
    const newer = factRow({ id: "n", key: "city", validFrom: "2025-03-01T00:00:00.000Z" });
    const older = factRow({ id: "o", key: "city", validFrom: "2025-01-01T00:00:00.000Z" });
    const plan = planFactWrites([newer], [older], "2026-01-01T00:00:00.000Z");
    expect(plan.outcomes[0]).toMatchObject({ outcome: "history", supersedes: null });
    expect(plan.closures).toEqual([]);
    expect(plan.inserts[0]).toMatchObject({
      supersededBy: "n",
      isValid: false,
      txEnd: "2026-01-01T00:00:00.000Z",
      lineageId: "n",
    });
    expect(plan.relinks).toEqual([{ id: "n", field: "supersedes", from: null, to: "o" }]);
  });
});
