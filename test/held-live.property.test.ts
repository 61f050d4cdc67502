import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import type { ContextObject } from "../src/compiler/context-object";
import { heldLive, heldLivePlain } from "../src/compiler/hygiene/live-claims";
import { contextObject } from "./support/context-objects";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

/**
 * withRetired asks, per retired value, whether a live claim holds it or is held by it, remembered per
 * live list; a new list weighs a value checked against the last list against the claims that changed
 * alone. Over live lists that change a little from step to step, asked about overlapping values, every
 * verdict must be what scanning the list's claims gives.
 */

// Claims that hold one another ("eu", "eu only", "eu only for now"), repeat, or are empty.
const claimTexts = ["EU only", "eu", "EU only for now", "$50k", "the $50k budget", "budget", "Ada", "", null];
const values = [
  "eu",
  "eu only",
  "eu only for now",
  "$50k",
  "the $50k budget",
  "$50k budget",
  "ada",
  "bob",
  "only",
];

let next = 0;
const objectArb = fc.constantFrom(...claimTexts).map((claim) => {
  next += 1;
  return contextObject({ objectId: `l${next}`, claim });
});

const stepArb = fc.record({
  edits: fc.array(fc.record({ insert: fc.boolean(), at: fc.nat(), object: objectArb }), { maxLength: 3 }),
  asked: fc.subarray(values),
});

describe("live-claim verdicts carried over from the last live list", () => {
  it("equal the plain scan, list by list", () => {
    fc.assert(
      fc.property(
        fc.array(objectArb, { maxLength: 12 }),
        fc.array(stepArb, { maxLength: 10 }),
        (start, steps) => {
          let live: ContextObject[] = start;
          for (const { edits, asked } of steps) {
            live = [...live];
            for (const { insert, at, object } of edits) {
              if (insert) live.splice(at % (live.length + 1), 0, object);
              else if (live.length) live.splice(at % live.length, 1);
            }
            for (const value of asked)
              expect(heldLive(live, value, memos)).toBe(heldLivePlain(live, value, memos));
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
