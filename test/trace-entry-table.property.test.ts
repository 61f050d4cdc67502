import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeEntries, encodeEntries, type TraceEntry } from "../src/traces/entry-table";

/**
 * Entries drawn from a few keys and a few values, so that neighbours often share everything but their
 * id (runs) and some share nothing; values include arrays, nulls, numbers and odd strings.
 */
const value = fc.oneof(
  fc.constantFrom("fact", "superseded", "over_budget", "", "\u0000", "a\u0000b"),
  fc.constantFrom(0, 1, 0.7, -3),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.constantFrom("m1", "m2"), { maxLength: 2 }),
);
const entry = fc
  .tuple(
    fc.string({ maxLength: 6 }),
    fc.uniqueArray(fc.constantFrom("kind", "reason", "priority_tier", "detail", "refs"), { maxLength: 4 }),
    fc.array(value, { minLength: 4, maxLength: 4 }),
  )
  .map(([id, keys, values]) => {
    const e: TraceEntry = { object_id: id };
    for (const [i, key] of keys.entries()) e[key] = values[i];
    return e;
  });
// Repeating an entry under new ids makes the runs the encoding merges.
const entries = fc
  .array(fc.tuple(entry, fc.integer({ min: 1, max: 5 })), { maxLength: 12 })
  .map((parts) =>
    parts.flatMap(([e, times]) =>
      Array.from({ length: times }, (_, i) => ({ ...e, object_id: `${e.object_id}#${i}` })),
    ),
  );

describe("stored trace entry lists", () => {
  it("decode, through JSON, to the very list that was encoded: order, keys, key order and values", () => {
    fc.assert(
      fc.property(entries, (list) => {
        const stored = JSON.parse(JSON.stringify(encodeEntries(list)));
        expect(JSON.stringify(decodeEntries(stored))).toBe(JSON.stringify(list));
      }),
      { numRuns: 300 },
    );
  });

  it("write each run of entries that differ only by id once", () => {
    const omitted = Array.from({ length: 1000 }, (_, i) => ({
      object_id: `xt:t1:m${i}:billing_budget`,
      kind: "fact",
      reason: i < 600 ? "superseded" : "over_budget",
    }));
    const table = encodeEntries(omitted);
    expect(table.shapes).toEqual([["kind", "reason"]]);
    expect(table.runs.map(([shape, values, ids]) => [shape, values, ids.length])).toEqual([
      [0, ["fact", "superseded"], 600],
      [0, ["fact", "over_budget"], 400],
    ]);
    expect(JSON.stringify(table).length).toBeLessThan(JSON.stringify(omitted).length / 2);
  });

  it("never merge entries whose array values are only equal by content", () => {
    const list = [
      { object_id: "a", refs: ["m1"] },
      { object_id: "b", refs: ["m1"] },
    ];
    const decoded = decodeEntries(encodeEntries(list));
    expect(decoded).toEqual(list);
    expect(decoded[0]?.refs).not.toBe(decoded[1]?.refs);
  });

  it("refuse an entry without a string id", () => {
    expect(() => encodeEntries([{ kind: "fact" } as unknown as TraceEntry])).toThrow(/object_id/);
  });
});
