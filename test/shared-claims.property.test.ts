import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import type { ContextObject } from "../src/compiler/context-object";
import { sharedClaims } from "../src/compiler/passes/compress";
import { contextObject } from "./support/context-objects";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

/**
 * sharedClaims keeps the part of the facts, working set and environment per those lists and weighs each
 * settlement's items against it. Whatever lists come back, it must hold exactly the objects whose claim,
 * as dedupe compares it, another object also states; the reference below counts them plainly.
 */
const normalized = (o: ContextObject) => (o.claim ?? o.text).toLowerCase().replace(/\s+/g, " ").trim();

function reference(lists: ContextObject[][]): Set<ContextObject> {
  const all = lists.flat().filter((o) => o.kind !== "message");
  const counts = new Map<string, number>();
  for (const o of all) counts.set(normalized(o), (counts.get(normalized(o)) ?? 0) + 1);
  return new Set(all.filter((o) => (counts.get(normalized(o)) ?? 0) > 1));
}

const claim = fc.constantFrom(
  "ship the EU rollout",
  "Ship the  EU rollout",
  "budget is $50,000",
  "renew VendorY",
  null,
);
let next = 0;
const objects = (kind: ContextObject["kind"]) =>
  fc.array(
    claim.map((c) => {
      next += 1;
      return contextObject({ objectId: `o${next}`, kind, claim: c, text: `text ${next % 3}` });
    }),
    { maxLength: 5 },
  );

describe("claims a settlement states twice", () => {
  it("are the same whether the facts' part is kept or found afresh", () => {
    fc.assert(
      fc.property(
        objects("fact"),
        objects("working"),
        objects("environment"),
        fc.array(fc.tuple(objects("state_item"), fc.boolean(), objects("working")), {
          minLength: 1,
          maxLength: 4,
        }),
        (facts, working, environment, turns) => {
          for (const [items, sameWorking, otherWorking] of turns) {
            // Some turns keep every standing list; others bring another working set with the same facts.
            const state = { facts, items, working: sameWorking ? working : otherWorking, environment };
            expect(sharedClaims(state, memos)).toEqual(
              reference([state.facts, state.items, state.working, environment]),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
