import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compacted,
  drop,
  type Entry,
  heldCount,
  laidOut,
  place,
} from "../src/adapters/sqlite-vector-index/decoded-copy";
import { norm } from "../src/adapters/sqlite-vector-index/encoding";

/**
 * The decoded copy (src/adapters/sqlite-vector-index/decoded-copy.ts) takes writes in place, as added
 * vectors and dropped rows, and folds them into its columns once they pile up. A folded copy must be the
 * copy laid out afresh from the vectors it holds, in the same order (its rows kept, then the added
 * ones), bit for bit: queries score from it, and the storage path must give the same scores.
 */

const DIMS = 6;

const vector = fc.array(fc.float({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true }), {
  minLength: DIMS,
  maxLength: DIMS,
});

/** A write: an upsert of one of a few ids (new, or over one held), or a deletion. */
const write = fc.oneof(
  fc.record({ kind: fc.constant("upsert" as const), id: fc.integer({ min: 0, max: 40 }), values: vector }),
  fc.record({ kind: fc.constant("delete" as const), id: fc.integer({ min: 0, max: 40 }) }),
);

function entry(id: string, values: number[]): Entry {
  const floats = Float32Array.from(values);
  return { id, values: floats, norm: norm(floats), metadata: JSON.stringify({ id }) };
}

describe("the decoded copy's fold", () => {
  it("gives the copy laid out afresh from what it holds, rows kept first, bit for bit", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 30 }),
        vector,
        fc.array(write, { maxLength: 60 }),
        (start, values, writes) => {
          const entries = start.map((n, i) =>
            entry(
              `v${n}`,
              values.map((v) => v * (i + 1) * 0.25),
            ),
          );
          const held = laidOut(3, DIMS, entries);
          // What the copy holds, as the reference keeps it: rows by their place, then additions in order.
          const rows = new Map(entries.map((e) => [e.id, e]));
          const added = new Map<string, Entry>();
          for (const w of writes) {
            const id = `v${w.id}`;
            if (w.kind === "delete") {
              drop(held, id);
              rows.delete(id);
              added.delete(id);
              continue;
            }
            const next = entry(id, w.values);
            place(held, { id, namespace: "n", values: w.values, metadata: { id } });
            if (rows.has(id)) rows.set(id, next);
            else added.set(id, next);
          }
          const expected = laidOut(3, DIMS, [...rows.values(), ...added.values()]);
          const before = structuredClone(held);
          const folded = compacted(held);
          // The copy folded from is left as it was, and shares no array with the fold.
          expect(held).toStrictEqual(before);
          if (folded !== held) {
            expect(folded.columns.buffer).not.toBe(held.columns.buffer);
            expect(folded.ids).not.toBe(held.ids);
            expect(folded.norms).not.toBe(held.norms);
          }
          expect(heldCount(folded)).toBe(rows.size + added.size);
          expect(folded.ids).toStrictEqual(expected.ids);
          expect(folded.metadata).toStrictEqual(expected.metadata);
          expect(folded.norms).toStrictEqual(expected.norms);
          expect(folded.columns).toStrictEqual(expected.columns);
          expect(folded.rowOf).toStrictEqual(expected.rowOf);
          expect(folded.added).toStrictEqual([]);
          expect(folded.droppedCount).toBe(0);
          expect(folded.dropped).toStrictEqual(new Uint8Array(expected.ids.length));
        },
      ),
      { numRuns: 400 },
    );
  });
});
