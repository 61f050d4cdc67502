import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import type { ContextObject } from "../src/compiler/context-object";
import { type Corpus, corpusOf, corpusScores } from "../src/compiler/lexical";
import { listEdits } from "../src/compiler/list-edits";
import { type GroupParts, groupParts, partsOf } from "../src/compiler/passes/group-parts";
import { rankGroup, tiers } from "../src/compiler/passes/rank";
import { contextObject } from "./support/context-objects";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

/**
 * Pass 5 keeps each list's lexical index and per-object arrays, and builds a new list's from a recent
 * list it differs from by a few edits (a new turn). Over lists that change a little from step to step,
 * the carried-over parts must be what building them from the objects gives, and rank the same.
 */

const words = ["budget", "billing", "approved", "approval", "region", "Redis", "owner", "Ada", "due", "$50k"];
const times = ["2025-01-01T00:00:00.000Z", "2025-02-01T00:00:00.000Z", "2025-03-05T10:00:00.000Z"];

let next = 0;
const objectArb = fc
  .record({
    text: fc.array(fc.constantFrom(...words), { minLength: 0, maxLength: 6 }),
    why: fc.option(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }), { nil: null }),
    ts: fc.constantFrom(...times),
    confidence: fc.constantFrom(0.5, 0.9, 1),
    authorityLevel: fc.constantFrom(1, 2, 3),
    isConstraint: fc.boolean(),
    objectType: fc.constantFrom("project_decision", "policy_rule", "preference", "identity_fact" as const),
    halfLife: fc.option(fc.constantFrom(7, 90), { nil: null }),
    tokens: fc.integer({ min: 1, max: 40 }),
  })
  .map((o) => {
    next += 1;
    return contextObject({
      objectId: `o${next}`,
      text: o.text.join(" "),
      whyItMatters: o.why ? o.why.join(" ") : null,
      ts: o.ts,
      confidence: o.confidence,
      authorityLevel: o.authorityLevel,
      isConstraint: o.isConstraint,
      objectType: o.objectType,
      decayHalfLifeDays: o.halfLife,
      tokens: o.tokens,
    });
  });

/** One step: a few insertions, deletions or replacements anywhere, or the same objects in a new list. */
const editArb = fc.array(
  fc.record({
    op: fc.constantFrom("insert", "delete", "replace", "copy"),
    at: fc.nat(),
    object: objectArb,
  }),
  { minLength: 0, maxLength: 4 },
);

function applyEdits(list: ContextObject[], edits: { op: string; at: number; object: ContextObject }[]) {
  const out = [...list];
  for (const { op, at, object } of edits) {
    const i = out.length ? at % out.length : 0;
    if (op === "insert") out.splice(at % (out.length + 1), 0, object);
    else if (op === "delete" && out.length) out.splice(i, 1);
    else if (op === "replace" && out.length) out[i] = object;
  }
  return out;
}

/** A corpus as data that does not depend on the order postings list their documents in. */
function plainCorpus(corpus: Corpus | null | undefined) {
  if (!corpus) return null;
  return {
    lengths: corpus.lengths,
    avgLength: corpus.avgLength,
    postings: [...corpus.postings]
      .map(([term, { docs, counts }]) => [
        term,
        docs.map((d, i) => [d, counts[i]]).sort((a, b) => (a[0] as number) - (b[0] as number)),
      ])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  };
}

/**
 * The per-object arrays; the lexical scorers are compared by their scores and indexes instead, and a
 * kept prefix's places by where its objects stand (prefixPlaces).
 */
function plainParts(parts: GroupParts) {
  return {
    ...parts,
    texts: undefined,
    prefix: undefined,
    whys: parts.whys === null,
    timestamps: [...parts.timestamps],
    typePriorities: [...parts.typePriorities],
    halfLives: [...parts.halfLives],
    confidences: [...parts.confidences],
    conditional: [...parts.conditional],
    critical: [...parts.critical],
    floors: [...parts.floors],
  };
}

const queries = [
  "what budget was approved?",
  "Redis billing region",
  "who is the owner and when is it due",
  "$50k",
];

describe("pass 5 carries a list's parts over from a close recent list", () => {
  it("equals building them from the objects, step by step", () => {
    fc.assert(
      fc.property(
        fc.array(objectArb, { minLength: 0, maxLength: 30 }),
        fc.array(editArb, { maxLength: 8 }),
        (start, steps) => {
          let list = start;
          for (const step of [[], ...steps]) {
            list = applyEdits(list, step);
            const carried = groupParts(list, memos);
            const fresh = partsOf(list, memos);
            expect(plainParts(carried)).toEqual(plainParts(fresh));
            const texts = corpusOf(
              list.map((o) => o.text),
              memos,
            );
            const whys = corpusOf(
              list.map((o) => o.whyItMatters ?? ""),
              memos,
            );
            // Scored query after query, a list is indexed from its second query on (or carried over
            // indexed from its predecessor): every score, and then the index, equal building it afresh.
            for (const query of queries) {
              expect(carried.texts.scores(query)).toEqual(corpusScores(query, texts));
              if (fresh.whys) expect(carried.whys?.scores(query)).toEqual(corpusScores(query, whys));
            }
            expect(plainCorpus(carried.texts.index)).toEqual(plainCorpus(texts));
            if (fresh.whys) expect(plainCorpus(carried.whys?.index)).toEqual(plainCorpus(whys));
            const ranked = rankGroup(
              list,
              { query: queries[list.length % queries.length] as string, now: times[2] as string, memos },
              tiers.facts,
            );
            expect(ranked.ranked.every((r) => list.includes(r.object))).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("carries over rather than rebuilding when a list gains one object", () => {
    const list = Array.from({ length: 40 }, (_, i) =>
      contextObject({ objectId: `k${i}`, text: `budget ${i} approved`, ts: times[i % 3] as string }),
    );
    const before = groupParts(list, memos);
    // A warm list is indexed from its second query on.
    for (const query of queries.slice(0, 2)) before.texts.scores(query);
    const grown = [contextObject({ objectId: "new", text: "billing region" }), ...list];
    const after = groupParts(grown, memos);
    // Kept objects' lengths are the previous list's entries (the same array values), shifted by one.
    expect(after.texts.index?.lengths.slice(1)).toEqual(before.texts.index?.lengths);
    expect(after.texts.index?.postings.get("budget")?.docs).toEqual(list.map((_, i) => i + 1));
    expect(groupParts([...grown], memos)).toBe(after);
  });
});

describe("pass 5 reads a list that begins with a kept run of objects from that run's parts", () => {
  it("equals building them from the objects, whatever follows the run", () => {
    fc.assert(
      fc.property(
        fc.array(objectArb, { minLength: 40, maxLength: 60 }),
        fc.array(fc.array(objectArb, { minLength: 0, maxLength: 30 }), { minLength: 3, maxLength: 6 }),
        (held, tails) => {
          // A fresh memo, so the run is met first here: noted by the second list, read from the third on.
          const own = new CompilerMemos();
          for (const [step, tail] of tails.entries()) {
            const list = [...held, ...tail];
            const read = groupParts(list, own);
            const fresh = partsOf(list, own);
            expect(plainParts(read)).toEqual(plainParts(fresh));
            const texts = corpusOf(
              list.map((o) => o.text),
              own,
            );
            for (const query of queries) {
              expect(read.texts.scores(query)).toEqual(corpusScores(query, texts));
              if (fresh.whys) {
                const whys = corpusOf(
                  list.map((o) => o.whyItMatters ?? ""),
                  own,
                );
                expect(read.whys?.scores(query)).toEqual(corpusScores(query, whys));
              }
            }
            if (step >= 2) {
              expect(own.prefixes.some((p) => p.objects.length >= held.length && p.read)).toBe(true);
              // Each id of the prefix at the last place the list holds it within the prefix.
              const prefix = read.prefix;
              expect(prefix?.length).toBeGreaterThanOrEqual(held.length);
              const last = new Map(list.slice(0, prefix?.length).map((o, at) => [o.objectId, at]));
              expect(new Map(prefix?.lastAt)).toEqual(last);
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("listEdits", () => {
  it("aligns two lists by identity: kept entries are the same, in order, and every other entry is added or dropped", () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 30 }), { maxLength: 40 }),
        fc.array(editArb, { maxLength: 3 }),
        (ids, steps) => {
          const previous = ids.map((id) => contextObject({ objectId: `p${id}` }));
          let nextList = previous;
          for (const step of steps) nextList = applyEdits(nextList, step);
          const edits = listEdits(previous, nextList, 1000);
          if (!edits) return;
          const kept = new Set<number>();
          let last = -1;
          edits.moved.forEach((to, from) => {
            if (to < 0) return;
            expect(nextList[to]).toBe(previous[from]);
            expect(to).toBeGreaterThan(last);
            last = to;
            kept.add(to);
          });
          for (const d of edits.added) expect(kept.has(d)).toBe(false);
          expect(kept.size + edits.added.length).toBe(nextList.length);
          expect(new Set(edits.added).size).toBe(edits.added.length);
        },
      ),
    );
  });

  it("gives up when too much differs", () => {
    const a = Array.from({ length: 50 }, (_, i) => ({ i }));
    const b = Array.from({ length: 50 }, (_, i) => ({ i }));
    expect(listEdits(a, b, 10)).toBeUndefined();
    expect(listEdits(a, [...a.slice(0, 20), { i: -1 }, ...a.slice(20)], 10)?.added).toEqual([20]);
  });
});
