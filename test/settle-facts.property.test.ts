import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import type { ContextObject, Omission } from "../src/compiler/context-object";
import type { DeadClaim } from "../src/compiler/hygiene/dead-claim";
import { deadClaims } from "../src/compiler/hygiene/dead-claims";
import { neighbourhoods, resolveEntity } from "../src/compiler/passes/resolve-entities";
import { FactsMemo } from "../src/compiler/passes/temporal/facts-memo";
import { settleFacts } from "../src/compiler/passes/temporal/settle-facts";
import { settleItems } from "../src/compiler/passes/temporal/settle-items";
import type { Settlement } from "../src/compiler/passes/temporal/settlement";
import { reconcile, reconcileSlot } from "../src/compiler/passes/temporal/slot-reconciliation";
import { staleSignals } from "../src/compiler/passes/temporal/stale-signals";
import { contextObject } from "./support/context-objects";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

/**
 * settleFacts keeps what it worked out per thread (FactsMemo): per slot, the claims it reconciled and
 * their settlement, and the stale signals of an environment list. Over a thread whose facts, working set,
 * environment and gated omissions change a little from step to step, a settlement with the memo must
 * be exactly the settlement without one, and the parts it reworked must be what the plain scans give.
 */

// Few slots, claims and times, so slots fill with conflicting, equal and tied claims; aliases put an
// object in two slots; VendorX and TICKET-7 tie environment signals to the same entity.
const keys = ["budget", "region", "owner"];
const claims = [
  "$50k budget",
  "$60k budget",
  "the $50k budget holds",
  "EU only",
  "eu  ONLY",
  "VendorX in EU",
  "TICKET-7 open",
  null,
];
const times = ["2025-01-01T00:00:00.000Z", "2025-02-01T00:00:00.000Z", "2025-02-01T00:00:00Z", null];

let next = 0;
const objectArb = fc
  .record({
    kind: fc.constantFrom("fact", "working", "environment"),
    key: fc.constantFrom(...keys),
    alias: fc.option(fc.constantFrom(...keys), { nil: null }),
    claim: fc.constantFrom(...claims),
    authorityLevel: fc.constantFrom(1, 2),
    validFrom: fc.constantFrom(...times),
    ts: fc.constantFrom(...times.filter((t): t is string => t !== null)),
    confidence: fc.constantFrom(0.5, 1),
  })
  .map(({ kind, key, alias, claim, ...rest }) => {
    next += 1;
    return resolveEntity(
      contextObject({
        objectId: `o${next}`,
        kind: kind as ContextObject["kind"],
        key,
        aliases: alias ? [alias] : [],
        claim,
        text: `${key}: ${claim ?? ""}`,
        ...rest,
      }),
    );
  });

type Op =
  | { op: "write"; object: ContextObject }
  | { op: "dropOldest" }
  | { op: "signal"; object: ContextObject }
  | { op: "resignal"; object: ContextObject }
  | { op: "gate"; object: ContextObject }
  | { op: "same" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  objectArb.map((object) => ({ op: "write" as const, object })),
  fc.constant({ op: "dropOldest" as const }),
  objectArb.map((object) => ({ op: "signal" as const, object: { ...object, kind: "environment" as const } })),
  objectArb.map((object) => ({
    op: "resignal" as const,
    object: { ...object, kind: "environment" as const },
  })),
  objectArb.map((object) => ({ op: "gate" as const, object })),
  fc.constant({ op: "same" as const }),
);

interface State {
  facts: ContextObject[];
  working: ContextObject[];
  environment: ContextObject[];
  earlier: Omission[];
}

function apply(state: State, step: Op): State {
  switch (step.op) {
    case "write": {
      const list = step.object.kind === "working" ? "working" : "facts";
      return { ...state, [list]: [step.object, ...state[list]] };
    }
    case "dropOldest":
      return { ...state, facts: state.facts.slice(0, -1) };
    case "signal":
      return { ...state, environment: [...state.environment, step.object] };
    case "resignal":
      // The oldest signal gives way to a new one: a list as long as before.
      return { ...state, environment: [...state.environment.slice(1), step.object] };
    case "gate":
      return {
        ...state,
        earlier: [...state.earlier, { object: step.object, reason: "superseded", detail: "gated" }],
      };
    default:
      return { ...state };
  }
}

/** reconcile as a plain scan over every entity's neighbourhood. */
function plainReconcile(keyed: ContextObject[]): Settlement {
  const settled: Settlement = { displaced: [], quarantined: [] };
  const seen = new Set<string>();
  for (const [slot, members] of neighbourhoods(keyed)) {
    if (!slot.startsWith("slot:")) continue;
    const open = members.filter((c) => !seen.has(c.objectId));
    const { displaced, quarantined } = reconcileSlot(slot.slice("slot:".length), open);
    for (const d of displaced) seen.add(d.object.objectId);
    for (const q of quarantined) seen.add(q.object.objectId);
    settled.displaced.push(...displaced);
    settled.quarantined.push(...quarantined);
  }
  return settled;
}

/** staleSignals as a plain scan of every newer signal. */
function plainStale(environment: ContextObject[]): Omission[] {
  const stale: Omission[] = [];
  const newestFirst = [...environment].sort((a, b) => b.ts.localeCompare(a.ts));
  for (const [index, older] of newestFirst.entries()) {
    const identifiers = older.entityIds.filter((e) => e.startsWith("id:"));
    const newer = newestFirst
      .slice(0, index)
      .find((n) => n.ts > older.ts && n.entityIds.some((e) => identifiers.includes(e)));
    if (!newer) continue;
    stale.push({
      object: { ...older, contradiction: "overridden", supersededBy: newer.objectId },
      reason: "superseded",
      detail: `a newer signal (${newer.objectId}) about the same entity`,
    });
  }
  return stale;
}

/** Items from what was said, before or after the claims they state changed. */
const itemsArb = fc
  .array(
    fc.record({ claim: fc.constantFrom(...claims), ts: fc.constantFrom(...times.filter((t) => t !== null)) }),
    { maxLength: 3 },
  )
  .map((raw) =>
    raw.map(({ claim, ts }) => {
      next += 1;
      return contextObject({
        objectId: `i${next}`,
        kind: "state_item",
        key: null,
        claim: null,
        text: `We said ${claim ?? "nothing"}`,
        ts,
      });
    }),
  );

const start = fc.record({
  facts: fc.array(objectArb, { maxLength: 6 }),
  working: fc.array(objectArb, { maxLength: 3 }),
  environment: fc.array(
    objectArb.map((o) => ({ ...o, kind: "environment" as const })),
    { maxLength: 4 },
  ),
});

describe("settling facts with a memo", () => {
  it("gives at every step of a changing thread what a settlement from scratch gives", () => {
    fc.assert(
      fc.property(start, fc.array(opArb, { minLength: 1, maxLength: 8 }), itemsArb, (initial, ops, items) => {
        const memo = new FactsMemo();
        let state: State = { ...initial, earlier: [] };
        const given: { dead: DeadClaim[]; copy: DeadClaim[] }[] = [];
        for (const step of [{ op: "same" as const }, ...ops]) {
          state = apply(state, step);
          const fresh = settleFacts(state, state.earlier, memos);
          const settled = settleFacts(state, state.earlier, memos, memo);
          expect(settled).toEqual(fresh);
          // Items are weighed against the same dead claims as a plain scan of the whole state gives.
          const withItems = settleItems(settled, items, state.earlier, new Map(), memos);
          expect(withItems.dead).toEqual(
            deadClaims(
              [...state.earlier, ...withItems.omitted, ...settled.quarantinedAsOmitted],
              [...settled.live, ...withItems.items],
              settled.validFrom,
              memos,
            ),
          );
          // Last settlement's dead list comes back exactly when it holds the same claims.
          const last = given.at(-1);
          if (last) {
            if (JSON.stringify(last.dead) === JSON.stringify(settled.deadBeforeItems)) {
              expect(settled.deadBeforeItems).toBe(last.dead);
            } else {
              expect(settled.deadBeforeItems).not.toBe(last.dead);
            }
          }
          given.push({ dead: settled.deadBeforeItems, copy: structuredClone(settled.deadBeforeItems) });
        }
        // No list handed out was changed by a later settlement.
        for (const { dead, copy } of given) expect(dead).toEqual(copy);
      }),
      { numRuns: 300 },
    );
  });

  it("reconciles slot by slot as a scan of every neighbourhood does, reusing only unchanged slots", () => {
    fc.assert(
      fc.property(fc.array(objectArb, { maxLength: 8 }), fc.array(opArb, { maxLength: 6 }), (keyed, ops) => {
        const memo = new FactsMemo();
        let state: State = { facts: keyed, working: [], environment: [], earlier: [] };
        for (const step of [{ op: "same" as const }, ...ops]) {
          state = apply(state, step);
          const all = [...state.facts, ...state.working, ...state.environment];
          expect(reconcile(all, memo)).toEqual(plainReconcile(all));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("finds stale signals as a scan of every newer signal does", () => {
    const signal = objectArb.map((o) => ({ ...o, kind: "environment" as const }));
    fc.assert(
      fc.property(fc.array(signal, { maxLength: 10 }), signal, (environment, another) => {
        const memo = new FactsMemo();
        expect(staleSignals(environment, memo)).toEqual(plainStale(environment));
        // The same list again is the same answer; another list is worked out again.
        expect(staleSignals([...environment], memo)).toEqual(plainStale(environment));
        const other = [another, ...environment.slice(1)];
        expect(staleSignals(other, memo)).toEqual(plainStale(other));
        const fewer = environment.slice(1);
        expect(staleSignals(fewer, memo)).toEqual(plainStale(fewer));
      }),
      { numRuns: 300 },
    );
  });
});
