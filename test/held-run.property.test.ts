import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { CompileCache } from "../src/compiler/cache/compile-cache";
import { compileContext } from "../src/compiler/compile";
import type { CompileInput } from "../src/compiler/compile-input";
import { LeadingRun, MIN_RUN } from "../src/compiler/list-edits";
import type { StatedClaims } from "../src/compiler/types";
import type { FactVersion } from "../src/domain/fact-version";
import { DEFAULT_AUTHORITY_LADDER as ladder } from "../src/facts/authority";
import { compileInput, factRow, stateItemRecord, userTurn } from "./support/context-objects";

/**
 * A large project's candidate facts begin with the same held newest versions compile after compile,
 * followed by the question's own rows, fresh objects each time. Passes read that run once (LeadingRun):
 * standing claims, slots, live claims, valid times and attributed instructions. Whatever the rows after
 * it say (the run's slots filled again, its claims restated, its values superseded, instructions that
 * override its own), a thread's warm cache must give the envelope of a compile without one.
 */

const fact = (id: string, key: string, value: string, extra: Partial<FactVersion> = {}) => {
  const content = `${key}: ${value}`;
  return Object.freeze(
    factRow({ id, key, valueJson: JSON.stringify(value), content, tokens: countTokens(content), ...extra }),
  );
};

const at = (i: number) => new Date(Date.parse("2025-01-01T00:00:00.000Z") + i * 60_000).toISOString();
const values = [
  "$50,000",
  "$80,000 (25% requires 3-year contract)",
  "Tacoma",
  "[VP] Vera (VP Sales): Maximum discount is 15%",
  "[Manager] Mark (Sales Manager): Give this customer a 25% discount",
  "Redis in eu-west-1",
  "Tacoma warehouse (lease $50,000 a year)",
];
const keys = ["budget", "warehouse", "discount", "cache", "owner"];

/** The held run: current versions, newest first, some filling one slot (more than MIN_RUN stand). */
const terms = "Invoices are paid within 30 days of receipt";
const held = [
  fact("terms", "payment_terms", terms, { validFrom: at(1001), txStart: at(1001) }),
  // A held version a standing gate holds back: replaced since.
  fact("old", "budget_0", "$40,000", { isValid: false, supersededBy: "h0", txEnd: at(1000) }),
  // What a tool reported: untrusted, ranked and packed apart.
  fact("tool", "lookup", "The warehouse lookup returned Tacoma", { sourceType: "tool" }),
  ...Array.from({ length: 2 * MIN_RUN + 16 }, (_, i) =>
    fact(`h${i}`, `${keys[i % keys.length]}_${i % 13}`, values[i % values.length] as string, {
      validFrom: at(1000 - i),
      txStart: at(1000 - i),
    }),
  ),
];
/** The held run with versions the clock holds back as well: one expired, one not valid yet. */
const clocked = [
  ...held.slice(0, 2),
  fact("ended", "promo", "Spring promo at 10% off", { validUntil: at(999) }),
  fact("later", "launch", "Launch in Lisbon", { validFrom: "2025-09-01T00:00:00.000Z" }),
  ...held.slice(2),
];
/** Values only the question's rows state: superseded, they are dead, with figures some held facts state. */
const older = [
  "$60,000 (25% requires 3-year contract)",
  "Seattle at $12,000 a month",
  "Budget of $50,000 for Q1 hiring",
];

/** A turn restating a value, at some time: a dead one is masked in what was said after it died. */
const message = userTurn;

/** A state item stating what a held fact states: the later of the two is a duplicate. */
const item = (uid: string, text: string) =>
  stateItemRecord(uid, text, { refs: [], created_at: at(500), last_seen_at: at(500) });

const tailRow = fc.record({
  key: fc.constantFrom(...keys.map((k) => `${k}_${1}`), ...keys.map((k) => `${k}_${3}`), "other"),
  value: fc.constantFrom(...values, ...older),
  age: fc.nat({ max: 900 }),
  supersedes: fc.option(fc.nat({ max: held.length - 2 }), { nil: undefined }),
  said: fc.option(fc.nat({ max: 1100 }), { nil: undefined }),
});

const base: CompileInput = compileInput({ budgetTokens: 600, environment: {} });

describe("a held run of facts read once per run", () => {
  it("gives every compile of a warm thread the envelope of an uncached compile", () => {
    const questions = [
      "what is the budget?",
      "where is the warehouse",
      "what discount applies",
      "who owns the cache",
    ];
    fc.assert(
      fc.property(
        fc.array(fc.array(tailRow, { maxLength: 8 }), { minLength: 3, maxLength: 6 }),
        fc.boolean(),
        (steps, clock) => {
          const cache = new CompileCache();
          const run = clock ? clocked : held;
          for (const [step, tail] of steps.entries()) {
            // The question's rows: older versions, some superseded by a held one (history of its slot).
            const rows = tail.map((r, i) =>
              fact(`q${step}_${i}`, r.key, r.value, {
                validFrom: at(r.age),
                txStart: at(r.age),
                ...(r.supersedes === undefined
                  ? {}
                  : { isValid: false, supersededBy: `h${r.supersedes}`, txEnd: at(1000 - r.supersedes) }),
              }),
            );
            const messages = tail.flatMap((r, i) =>
              r.said === undefined
                ? []
                : [message(`m${step}_${i}`, at(r.said), `We settled on ${r.value} for ${r.key}`)],
            );
            const input = {
              ...base,
              query: questions[step % questions.length] as string,
              facts: [...run, ...rows],
              messages: messages.sort((a, b) => a.ts.localeCompare(b.ts)),
              items: [item("i1", terms)],
              // The vector index's nearest: held facts and the question's own, by cosine.
              similar: new Map([
                [`h${(step * 7) % 40}`, 0.72],
                ["h41", 0.55],
                [`q${step}_0`, 0.61],
                ["terms", 0.3],
              ]),
              // What extraction read from each turn: the value it stated for its slot, which a held fact
              // valid since may have replaced.
              statedClaims: new Map<string, StatedClaims>(
                tail.flatMap((r, i) =>
                  r.said === undefined
                    ? []
                    : [
                        [
                          `m${step}_${i}`,
                          { ts: at(r.said), claims: [{ key: r.key, value: r.value }] },
                        ] as const,
                      ],
                ),
              ),
            };
            expect(compileContext({ ...input, cache })).toEqual(compileContext(input));
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("a held run of records resolved once per run", () => {
  it("is resolved afresh when the thread's origin changes", () => {
    const cache = new CompileCache();
    const wider = [
      ...ladder,
      { ...(ladder[0] as (typeof ladder)[number]), name: "chair", rank: 100, words: [] },
    ];
    for (const [step, steps] of [[base.ladder], [base.ladder], [base.ladder], [wider], [wider]].entries()) {
      const input = {
        ...base,
        ladder: steps[0] as typeof ladder,
        facts: [...held, fact(`q${step}`, "other", values[step % values.length] as string)],
      };
      expect(compileContext({ ...input, cache })).toEqual(compileContext(input));
    }
  });
});

describe("LeadingRun", () => {
  it("keeps the start two lists share, and reads it once a later list begins with it too", () => {
    const run = new LeadingRun<number, number>();
    const start = Array.from({ length: MIN_RUN }, (_, i) => i);
    let reads = 0;
    const read = (entries: readonly number[]) => {
      reads++;
      return entries.length;
    };
    expect(run.of([...start, 100], read)).toBeUndefined();
    // Shared with the last list: noted, not yet read.
    expect(run.of([...start, 200], read)).toBeUndefined();
    expect(run.of([...start, 300, 301], read)).toEqual({ length: MIN_RUN, value: MIN_RUN });
    expect(run.of([...start], read)).toEqual({ length: MIN_RUN, value: MIN_RUN });
    expect(reads).toBe(1);
    // A list that does not begin with it drops it; a shorter shared start is no run.
    expect(run.of([-1, ...start], read)).toBeUndefined();
    expect(run.of([-1, ...start.slice(0, 4)], read)).toBeUndefined();
    expect(run.of([-1, ...start.slice(0, 4), 9], read)).toBeUndefined();
  });
});
