import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import {
  claimAt,
  groupsIn,
  indexOf,
  scannedGroups,
  searchedGroups,
} from "../src/compiler/hygiene/claim-index";
import type { DeadClaim } from "../src/compiler/hygiene/dead-claim";

/**
 * Dead claims are found in a text by scanning it window by window against an index of the claims, or,
 * for a short list, by searching the text for each claim. Hygiene replaces what it finds in the order
 * found (dead-claims.ts), so both must find the same groups in the same order, whatever the claims
 * share: openings, grams, one another as substrings, brackets, characters beyond ASCII.
 */
const word = fc.constantFrom(
  "the",
  "budget",
  "is",
  "$50k",
  "approved",
  "budge",
  "[draft]",
  "tacoma",
  "é",
  "5%",
  "q3",
  "25",
  "250",
  "2.5",
  "$25,000",
);
const phrase = (max: number) => fc.array(word, { minLength: 1, maxLength: max }).map((w) => w.join(" "));

const claimOf = (text: string, i: number): DeadClaim => ({
  text,
  lower: text.toLowerCase(),
  reason: "superseded",
  objectId: `f${i}`,
  diedAt: null,
  figures: [],
});

describe("finding dead claims in a text", () => {
  it("searching for each claim meets the same groups, in the same order, as scanning the text", () => {
    fc.assert(
      fc.property(
        fc.array(phrase(4), { maxLength: 40 }),
        fc.array(phrase(16), { maxLength: 6 }),
        (texts, lines) => {
          const memos = new CompilerMemos();
          const claims = texts.map(claimOf);
          const index = indexOf(claims, memos);
          for (const line of lines) {
            const lower = line.toLowerCase();
            const scanned = scannedGroups(lower, index);
            expect(searchedGroups(lower, index)).toEqual(scanned);
            expect(groupsIn(lower, claims, memos)).toEqual(scanned);
            // And they are the groups whose claim the text holds, never cut from a longer figure.
            expect(new Set(scanned.map((g) => g.lower))).toEqual(
              new Set(claims.filter((c) => claimAt(lower, c.lower) !== -1).map((c) => c.lower)),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
