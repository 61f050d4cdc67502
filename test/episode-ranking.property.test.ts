import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SqliteVectorIndex } from "../src/adapters/sqlite-vector-index/sqlite-vector-index";
import { EpisodeIndex } from "../src/thread/transcript/episode-index";
import { ask, message, newThread, until } from "./helpers";

/**
 * The thread's message search ranks from full-text lists it holds between compiles
 * (src/retrieval/held-bm25.ts). Whatever it holds, it must name the messages a fresh index (FTS5's own
 * ranking) names, in the same order: through appended turns, transactions rolled back, long messages
 * split into passages, and lists read between questions.
 */

const word = fc.constantFrom(
  "budget",
  "team",
  "teams",
  "lisbon",
  "venue",
  "deploy",
  "deployed",
  "q3",
  "week",
  "coffee",
  "postgres",
  "the",
);
const short = fc.array(word, { minLength: 1, maxLength: 12 }).map((w) => w.join(" "));
// Past LONG_MESSAGE_CHARS (1,600): split into several passages.
const long = fc.array(short, { minLength: 40, maxLength: 60 }).map((lines) => lines.join(". "));
const content = fc.oneof({ weight: 6, arbitrary: short }, { weight: 1, arbitrary: long });

type Step =
  | { kind: "write"; messages: string[]; rollBack: boolean }
  | { kind: "ask"; words: string[]; limit: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("write" as const),
      messages: fc.array(content, { minLength: 1, maxLength: 4 }),
      rollBack: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("ask" as const),
      words: fc.uniqueArray(word, { minLength: 1, maxLength: 4 }),
      limit: fc.integer({ min: 1, max: 20 }),
    }),
  },
);

/** Lets the object's implicit transaction end, so FTS5 stores its tables' counts (it does at commit). */
const committed = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("message search from held full-text lists", () => {
  it("names what a fresh index names, through appends, rolled-back writes and lists read between questions", async () => {
    const t = await newThread();
    const stub = env.THREADS.get(env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      const vectors = new SqliteVectorIndex(sql);
      let n = 0;
      let heldSome = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
          for (const table of ["messages", "episode_fts", "passage_fts"]) sql.exec(`DELETE FROM ${table}`);
          // Small bounds, so lists are let go and read again as the run goes.
          const index = new EpisodeIndex(sql, vectors, { heldPostings: 60 });
          for (const s of steps) {
            if (s.kind === "write") {
              const write = () => {
                for (const text of s.messages) {
                  const id = `m${n++}`;
                  sql.exec(
                    "INSERT INTO messages (id, ts, role, speaker, content, line, tokens) VALUES (?, ?, 'user', NULL, ?, ?, 1)",
                    id,
                    new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString(),
                    text,
                    text,
                  );
                  index.add({ id, speaker: null, content: text });
                }
                if (s.rollBack) throw new Error("abort");
                index.added([]);
              };
              if (s.rollBack) {
                expect(() => state.storage.transactionSync(write)).toThrow("abort");
                index.rolledBack();
              } else {
                state.storage.transactionSync(write);
              }
              continue;
            }
            const query = s.words.join(" ");
            await committed();
            const fresh = new EpisodeIndex(sql, vectors);
            const expected = {
              lexical: fresh.lexical(query, s.limit),
              passages: fresh.passageLexical(query, s.limit),
            };
            expect({
              lexical: index.lexical(query, s.limit),
              passages: index.passageLexical(query, s.limit),
            }).toEqual(expected);
            // The lists that ranking wanted are read, then the same question is ranked from them.
            while (index.prepareRanking()) {}
            heldSome += index.heldPostings() > 0 ? 1 : 0;
            expect({
              lexical: index.lexical(query, s.limit),
              passages: index.passageLexical(query, s.limit),
            }).toEqual(expected);
          }
        }),
        { numRuns: 60 },
      );
      // The runs did rank from held lists, not only from FTS5.
      expect(heldSome).toBeGreaterThan(20);
    });
  });
});

describe("held full-text lists through the API", () => {
  it("are read after a compile and rank the same question again to the same context", async () => {
    const t = await newThread();
    const turns = Array.from({ length: 40 }, (_, i) =>
      message(
        i === 7
          ? "We booked the old library in Lisbon for the team offsite in March."
          : `Round ${i} of small talk, mostly about the ${["budget", "venue shortlist", "coffee", "weather"][i % 4]}.`,
        { id: `t${i}`, ts: new Date(Date.UTC(2025, 0, 1, 9, i)).toISOString() },
      ),
    );
    expect((await t.events(turns)).status).toBe(200);
    const question = "Which venue did the team book for the offsite?";
    const now = "2025-01-02T09:00:00.000Z";
    const first = await ask(t, question, { now });
    expect(first.context).toContain("old library in Lisbon");
    // The lists the search wanted are read between requests, a slice after each pause.
    const second = await until(
      () => ask(t, question, { now }),
      (answer) => answer.trace.held.message_postings > 0,
      5_000,
    );
    expect(second.trace.held.message_postings).toBeGreaterThan(0);
    expect(second.context).toBe(first.context);
    // A new turn is appended to the lists held, not a reason to let them go: the next question ranks
    // from them at once, the new turn among its matches.
    const turn = message("Correction: the Lisbon library fell through, so the team booked the Porto venue.", {
      id: "late",
      ts: new Date(Date.UTC(2025, 0, 1, 10)).toISOString(),
    });
    expect((await t.events([turn])).status).toBe(200);
    const third = await ask(t, question, { now });
    expect(third.trace.held.message_postings).toBeGreaterThan(second.trace.held.message_postings);
    expect(third.context).toContain("booked the Porto venue");
  });
});
