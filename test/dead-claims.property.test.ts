import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import type { ContextObject, Omission } from "../src/compiler/context-object";
import { deadBasis, deadClaimsWith } from "../src/compiler/hygiene/dead-basis";
import type { DeadClaim } from "../src/compiler/hygiene/dead-claim";
import { deadClaims } from "../src/compiler/hygiene/dead-claims";
import { maskClaims } from "../src/compiler/hygiene/mask";
import { restatedClaim, speaksFromDeadState } from "../src/compiler/hygiene/restatement";
import { withRetired } from "../src/compiler/hygiene/retired";
import { followsClaims } from "../src/compiler/hygiene/succession";
import type { OmitReasonName } from "../src/domain/omissions";
import { contextObject } from "./support/context-objects";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

/**
 * deadClaimsWith works out the standing omissions and live claims once (deadBasis) and merges in the
 * ones that change from turn to turn, handing back its last list when the claims are the same. At every
 * step of a sequence it must give exactly what deadClaims gives over the whole input, and never change
 * a list it handed out before.
 */

// Claims overlap, repeat, quote each other and carry figures (some in asides) or brackets, as threads do.
const word = fc.constantFrom(
  "budget",
  "[draft]",
  "Budget",
  "$50,000",
  "$80k",
  "25%",
  "(25% off)",
  "eu-west",
  "is",
  "the",
  "v2",
  "q3",
);
const phrase = fc.array(word, { minLength: 1, maxLength: 5 }).map((words) => words.join(" "));
const ts = fc.constantFrom("2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z", null);
const reason = fc.constantFrom<OmitReasonName>(
  "superseded",
  "superseded",
  "overridden",
  "disputed",
  "quarantined",
  "not_permitted",
  "irrelevant",
);

let next = 0;
const object = (claim: string | null, supersededBy: string | null): ContextObject => {
  next += 1;
  return contextObject({ objectId: `o${next}`, claim, supersededBy });
};
const omissions = fc
  .array(
    fc.record({
      claim: fc.option(phrase, { nil: null }),
      reason,
      successor: fc.constantFrom("s1", "s2", "s3", null),
    }),
    { maxLength: 8 },
  )
  .map((raw) =>
    raw.map((o): Omission => ({ object: object(o.claim, o.successor), reason: o.reason, detail: "" })),
  );
const live = fc
  .array(fc.option(phrase, { nil: null }), { maxLength: 6 })
  .map((claims) => claims.map((c) => object(c, null)));
const validFrom = fc.tuple(ts, ts, ts).map(
  ([a, b, c]) =>
    new Map(
      [
        ["s1", a],
        ["s2", b],
        ["s3", c],
      ].filter((entry): entry is [string, string] => entry[1] !== null),
    ),
);
const turns = fc.array(fc.record({ middle: omissions, moreLive: live }), { minLength: 1, maxLength: 5 });

describe("dead claims settled in parts", () => {
  it("gives what deadClaims gives over the whole input at every turn, reusing only an equal list", () => {
    fc.assert(
      fc.property(omissions, omissions, live, validFrom, turns, (before, after, standing, valid, steps) => {
        const basis = deadBasis(before, after, standing, valid, memos);
        const given: { list: ReturnType<typeof deadClaims>; copy: unknown }[] = [];
        // Each turn's middle is given twice in a row, as an unchanged turn would be, then the next.
        for (const step of steps.flatMap((s) => [s, s])) {
          const expected = deadClaims(
            [...before, ...step.middle, ...after],
            [...standing, ...step.moreLive],
            valid,
            memos,
          );
          const got = deadClaimsWith(basis, step.middle, step.moreLive, memos);
          expect(got).toEqual(expected);
          const last = given.at(-1);
          if (last) {
            if (JSON.stringify(last.list) === JSON.stringify(got)) expect(got).toBe(last.list);
            else expect(got).not.toBe(last.list);
          }
          given.push({ list: got, copy: structuredClone(got) });
        }
        // No list handed out was changed by a later turn.
        for (const { list, copy } of given) expect(list).toEqual(copy);
      }),
      { numRuns: 400 },
    );
  });

  it("gives a new list when only the figures a live claim states change", () => {
    const replaced = object("budget is $50,000", "s1");
    const basis = deadBasis(
      [{ object: replaced, reason: "superseded", detail: "" }],
      [],
      [],
      new Map(),
      memos,
    );
    const first = deadClaimsWith(basis, [], [], memos);
    expect(first.map((c) => c.figures)).toEqual([["$50,000"]]);
    // A live item states $50,000 in its own words: the figure is no longer dead, the claim still is.
    const stated = deadClaimsWith(basis, [], [object("we keep $50,000 in reserve", null)], memos);
    expect(stated).not.toBe(first);
    expect(stated.map((c) => c.figures)).toEqual([[]]);
    expect(first.map((c) => c.figures)).toEqual([["$50,000"]]);
    // A live item quoting the dead claim does not state its figure.
    const quoted = deadClaimsWith(basis, [], [object("no longer: budget is $50,000 (old)", null)], memos);
    expect(quoted.map((c) => c.figures)).toEqual([["$50,000"]]);
  });

  it("adds the values messages retired unless a live claim holds one or is held by it, as a plain scan does", () => {
    // What withRetired does, scanning every live claim for every value.
    const reference = (
      dead: DeadClaim[],
      stated: Map<string, { ts: string; retired: string[] }>,
      live: ContextObject[],
    ) => {
      const liveClaims = live.map((o) => o.claim?.toLowerCase() ?? "").filter(Boolean);
      const known = new Set(dead.map((d) => d.lower));
      const added: DeadClaim[] = [];
      for (const [id, { ts, retired }] of stated) {
        for (const text of retired) {
          const lower = text.toLowerCase();
          if (text.length < 6 || !/[\s\d$%]/.test(text) || known.has(lower)) continue;
          if (liveClaims.some((c) => c.includes(lower) || lower.includes(c))) continue;
          known.add(lower);
          added.push({ text, lower, reason: "superseded", objectId: id, diedAt: ts, figures: [] });
        }
      }
      return [...dead, ...added].sort((a, b) => b.text.length - a.text.length);
    };
    // Short live claims ("is") are held by values; "\u0000" must not join two claims into one.
    const piece = fc.oneof(phrase, fc.constantFrom("is", "v2 q3", "q3 a", "b budget", "3 a\u0000b bud"));
    const retired = fc.array(
      fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join(" ")),
      { maxLength: 4 },
    );
    fc.assert(
      fc.property(
        omissions,
        fc.array(fc.option(piece, { nil: null }), { maxLength: 6 }),
        fc.array(retired, { maxLength: 3 }),
        (omitted, liveClaims, values) => {
          const dead = deadClaims(omitted, [], new Map(), memos);
          const live = liveClaims.map((c) => object(c, null));
          const stated = new Map(
            values.map((v, i) => [`m${i}`, { ts: "2026-01-01T00:00:00.000Z", retired: v }]),
          );
          expect(withRetired(dead, stated, live, memos)).toEqual(reference(dead, stated, live));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("finds in a list that follows another what it finds in that list alone", () => {
    // Messages quote claims, from before or after they died, with figures of their own.
    const text = fc.array(fc.oneof(phrase, fc.constantFrom("we said", "25%", "(note)", "(25% off) [x]")), {
      maxLength: 4,
    });
    const messages = fc.array(
      fc.record({ words: text, ts }).map(({ words, ts: at }) => {
        next += 1;
        return contextObject({
          objectId: `m${next}`,
          kind: "message",
          text: words.join(" "),
          ts: at ?? "2025-06-01T00:00:00.000Z",
        });
      }),
      { maxLength: 6 },
    );
    // Each step settles again: some omissions stay, some go, some come, as a written fact does.
    // A successor's valid time may change too, and with it when the same claim died.
    const step = fc.record({
      keep: fc.array(fc.boolean(), { maxLength: 8 }),
      more: omissions,
      live,
      valid: fc.option(validFrom, { nil: undefined }),
    });
    fc.assert(
      fc.property(
        omissions,
        validFrom,
        fc.array(step, { minLength: 1, maxLength: 5 }),
        messages,
        fc.boolean(),
        (first, valid, steps, said, early) => {
          let omitted = first;
          let list = deadClaims(omitted, [], valid, memos);
          const check = (claims: DeadClaim[], ask: boolean) => {
            // The same list, with nothing remembered: a copy.
            const alone = structuredClone(claims);
            for (const message of ask ? said : said.slice(0, 1)) {
              const found = speaksFromDeadState(message, claims, memos);
              const expected = speaksFromDeadState(message, alone, memos);
              expect(found === undefined ? -1 : claims.indexOf(found)).toBe(
                expected === undefined ? -1 : alone.indexOf(expected),
              );
              const restated = restatedClaim(message.text, claims, memos);
              const plain = restatedClaim(message.text, alone, memos);
              expect(restated === undefined ? -1 : claims.indexOf(restated)).toBe(
                plain === undefined ? -1 : alone.indexOf(plain),
              );
              expect(maskClaims(message.text, claims, memos)).toBe(maskClaims(message.text, alone, memos));
            }
          };
          // Verdicts against the first list, or not, before the next follows it.
          check(list, early);
          for (const { keep, more, live: stated, valid: changed } of steps) {
            omitted = [...omitted.filter((_, i) => keep[i] ?? true), ...more];
            const nextList = deadClaims(omitted, stated, changed ?? valid, memos);
            followsClaims(nextList, list, memos);
            check(nextList, true);
            list = nextList;
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
