import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import { clockGate, clockHoldsNone } from "../src/compiler/passes/gate";
import { contextObject as object } from "./support/context-objects";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

/**
 * A warm compile asks once per list whether the clock holds back any of its objects; the answer must
 * be the one asking each object gives, for any valid times and any present, the list's bounds being
 * kept from one present to the next.
 */
const instant = fc
  .integer({ min: 0, max: 40 })
  .map((day) => new Date(Date.UTC(2025, 0, 1 + day)).toISOString());
const bound = fc.option(fc.oneof(instant, fc.constant("")), { nil: null });

describe("clock gate over a list", () => {
  it("holds back none exactly when no object's valid time excludes the present", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ validFrom: bound, validUntil: bound }), { maxLength: 8 }),
        fc.array(instant, { minLength: 1, maxLength: 4 }),
        (times, presents) => {
          const list = times.map((t, i) => object({ objectId: `o${i}`, ...t }));
          for (const now of presents) {
            expect(clockHoldsNone(list, now, memos)).toBe(!list.some((o) => clockGate(o, now)));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
