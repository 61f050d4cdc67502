import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import { corpusOf, corpusScores, directScores, LazyCorpus } from "../src/compiler/lexical";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

/**
 * A cold object's first compile scores each list without indexing it (directScores, LazyCorpus); the
 * scores must be the index's to the bit, or ranking (and so the envelope) would change.
 */
const word = fc.constantFrom(
  "budget",
  "budgets",
  "approved",
  "approval",
  "the",
  "billing",
  "postgres",
  "$20,000",
  "3.5%",
  "eu",
  "region",
  "migration",
  "migrations",
  "owner",
  "q3",
);
const sentence = fc.array(word, { maxLength: 12 }).map((w) => w.join(" "));
const documents = fc.array(sentence, { maxLength: 40 });

describe("scoring without an index", () => {
  it("gives corpusScores' scores, bit for bit", () => {
    fc.assert(
      fc.property(documents, sentence, (docs, query) => {
        expect(directScores(query, docs, memos)).toStrictEqual(corpusScores(query, corpusOf(docs, memos)));
      }),
      { numRuns: 300 },
    );
  });

  it("a lazy corpus gives the index's scores whether scored once or query after query", () => {
    fc.assert(
      fc.property(documents, fc.array(sentence, { minLength: 1, maxLength: 5 }), (docs, queries) => {
        const lazy = new LazyCorpus(docs, memos);
        const index = corpusOf(docs, memos);
        for (const query of queries) expect(lazy.scores(query)).toStrictEqual(corpusScores(query, index));
      }),
      { numRuns: 200 },
    );
  });
});
