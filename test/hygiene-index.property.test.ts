import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import type { DeadClaim } from "../src/compiler/hygiene/dead-claim";
import { figuresOf } from "../src/compiler/hygiene/figures";
import { MASK, maskClaims } from "../src/compiler/hygiene/mask";
import { restatedClaim, speaksFromDeadState } from "../src/compiler/hygiene/restatement";
import { terms } from "../src/compiler/lexical";
import { contextObject } from "./support/context-objects";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

/**
 * The claim index must answer exactly what scanning every claim would: the same first claim in list
 * order, and the same masked text. The references below are the plain scans.
 */
function referenceRestated(text: string, claims: DeadClaim[]) {
  const lower = text.toLowerCase();
  return claims.find((c) => lower.includes(c.lower));
}

function referenceSpeaks(message: { text: string; ts: string }, claims: DeadClaim[]) {
  const lower = message.text.toLowerCase();
  const quoted = claims.find((c) => lower.includes(c.lower) && (c.diedAt === null || message.ts < c.diedAt));
  if (quoted) return quoted;
  // Before a replacement, a turn stating one of the claim's dead figures, or one of its figures and every
  // other term of it (a stem, or a longer or shorter form of one of at least five letters), said it.
  const before = (c: DeadClaim) => c.diedAt !== null && message.ts < c.diedAt;
  const figures = figuresOf(message.text, memos);
  for (const figure of figures) {
    const claim = claims.find((c) => c.figures.includes(figure) && before(c));
    if (claim) return claim;
  }
  const said = terms(message.text);
  const says = (t: string) =>
    said.some((s) => s === t || (t.length >= 5 && s.length >= 5 && (s.startsWith(t) || t.startsWith(s))));
  for (const figure of figures) {
    const claim = claims.find(
      (c) =>
        before(c) &&
        figuresOf(c.lower, memos).includes(figure) &&
        new Set(terms(c.text)).size >= 3 &&
        terms(c.text).every(says),
    );
    if (claim) return claim;
  }
  return undefined;
}

function referenceMask(text: string, claims: DeadClaim[]) {
  let out = text;
  for (const claim of claims) {
    let index = out.toLowerCase().indexOf(claim.lower);
    while (index !== -1) {
      out = `${out.slice(0, index)}${MASK}${out.slice(index + claim.text.length)}`;
      index = out.toLowerCase().indexOf(claim.lower, index + MASK.length);
    }
  }
  return out;
}

// A small alphabet so claims overlap, repeat and share prefixes, as threads do.
const word = fc.constantFrom("budget", "Budget", "$50,000", "eu-west", "is", "the", "ada", "v2", "[x]", "q3");
const phrase = fc.array(word, { minLength: 1, maxLength: 5 }).map((words) => words.join(" "));
const ts = fc.constantFrom(
  "2026-01-01T00:00:00.000Z",
  "2026-02-01T00:00:00.000Z",
  "2026-03-01T00:00:00.000Z",
);
const claimList = fc
  .array(fc.record({ text: phrase, diedAt: fc.option(ts, { nil: null }) }), { maxLength: 12 })
  .map((raw) =>
    raw
      .filter((c) => c.text.length >= 6)
      .map(
        (c, i): DeadClaim => ({
          text: c.text,
          lower: c.text.toLowerCase(),
          reason: "superseded",
          objectId: `c${i}`,
          diedAt: c.diedAt,
          figures: [],
        }),
      )
      .sort((a, b) => b.text.length - a.text.length),
  );
const text = fc.array(word, { maxLength: 14 }).map((words) => words.join(" "));

describe("dead-claim index", () => {
  it("finds the same claim and masks the same text as scanning every claim", () => {
    fc.assert(
      fc.property(claimList, text, ts, (claims, body, messageTs) => {
        const message = contextObject({ text: body, ts: messageTs });
        expect(restatedClaim(body, claims, memos)).toBe(referenceRestated(body, claims));
        expect(speaksFromDeadState(message, claims, memos)).toBe(referenceSpeaks(message, claims));
        expect(maskClaims(body, claims, memos)).toBe(referenceMask(body, claims));
      }),
      { numRuns: 500 },
    );
  });
});
