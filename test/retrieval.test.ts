import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ENTITY_EPISODE_SIMILARITY, rankEpisodes, withEntityEpisodes } from "../src/retrieval/episodes";
import { fusedByPosition, reciprocalRankFusion, spreadFused } from "../src/retrieval/fuse";
import { asksQuestion, rescueNeighbours } from "../src/retrieval/neighbours";
import { matchAnyForm, matchExpression, queryTerms } from "../src/retrieval/query-terms";
import { ageInDays, compositeScore, recencyWeight, usageBoost } from "../src/retrieval/score";
import { humanDate, inPeriod, readTimeQuery } from "../src/retrieval/time-query";

describe("reciprocal rank fusion", () => {
  it("scores 1/(k+rank) per ranking and sums across rankings", () => {
    const fused = reciprocalRankFusion([
      ["a", "b", "c"],
      ["b", "d"],
    ]);
    const score = Object.fromEntries(fused.map((f) => [f.id, f.score]));
    expect(score.a).toBeCloseTo(1 / 61);
    expect(score.b).toBeCloseTo(1 / 62 + 1 / 61);
    expect(score.d).toBeCloseTo(1 / 62);
    expect(fused[0]?.id).toBe("b");
  });

  it("agreement between rankings beats a single first place", () => {
    const fused = reciprocalRankFusion([
      ["solo", "both"],
      ["other", "both"],
    ]);
    expect(fused[0]?.id).toBe("both");
  });

  it("weights scale a ranking's contribution and repeated ids count once", () => {
    const fused = reciprocalRankFusion(
      [
        ["a", "a", "b"],
        ["b", "a"],
      ],
      10,
      [1, 0.5],
    );
    const score = Object.fromEntries(fused.map((f) => [f.id, f.score]));
    expect(score.a).toBeCloseTo(1 / 11 + 0.5 / 12);
    // A repeated id still occupies its place: b is third in the first ranking.
    expect(score.b).toBeCloseTo(1 / 13 + 0.5 / 11);
  });

  it("is deterministic and ordered for any input", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 6 }), { maxLength: 4 }),
        (rankings) => {
          const fused = reciprocalRankFusion(rankings);
          for (let i = 1; i < fused.length; i++) {
            expect((fused[i - 1]?.score ?? 0) >= (fused[i]?.score ?? 0)).toBe(true);
          }
          expect(new Set(fused.map((f) => f.id))).toEqual(new Set(rankings.flat()));
        },
      ),
    );
  });
});

describe("reciprocal rank fusion by position", () => {
  it("gives each position the score reciprocalRankFusion gives its id", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.array(fc.nat(), { maxLength: 40 }), { maxLength: 3 }),
        fc.array(fc.double({ min: 0, max: 2, noNaN: true }), { maxLength: 3 }),
        fc.integer({ min: 0, max: 80 }),
        (size, raw, weights, k) => {
          // Positions inside the list, none repeated within a ranking.
          const rankings = raw.map((r) => [...new Set(r.map((n) => n % size))]);
          const byPosition = fusedByPosition(rankings, size, k, weights);
          const byId = new Map(
            reciprocalRankFusion(
              rankings.map((r) => r.map(String)),
              k,
              weights,
            ).map((f) => [Number(f.id), f.score]),
          );
          for (let i = 0; i < size; i++) expect(byPosition[i]).toBe(byId.get(i) ?? 0);
        },
      ),
    );
  });

  it("spreads fused scores over [0, 1]: the best is 1, a last place at the depth is 0", () => {
    const top = 1 / 21 + 0.5 / 21;
    expect(spreadFused(top, top, 20, 100)).toBe(1);
    expect(spreadFused(1 / 120, top, 20, 100)).toBe(0);
    const mid = spreadFused(1 / 30, top, 20, 100);
    expect(mid).toBeGreaterThan(0);
    expect(mid).toBeLessThan(1);
  });
});

describe("composite score (seed 004)", () => {
  it("recency halves every 30 days", () => {
    expect(recencyWeight(0)).toBe(1);
    expect(recencyWeight(30)).toBeCloseTo(0.5);
    expect(recencyWeight(60)).toBeCloseTo(0.25);
    expect(recencyWeight(-5)).toBe(1);
  });

  it("usage boost grows with activations and is capped", () => {
    expect(usageBoost(0)).toBe(1);
    expect(usageBoost(10)).toBeCloseTo(1.1);
    expect(usageBoost(1e12)).toBe(1.5);
  });

  it("weights the signals as the seed does", () => {
    const full = compositeScore({
      semantic: 1,
      typePriority: 1,
      ageDays: 0,
      outcome: "success",
      activationCount: 1,
      confidence: 1,
    });
    expect(full).toBeCloseTo(0.5 + 0.15 + 0.15 + 0.12 + 0.05 + 0.05);
    const failure = compositeScore({ semantic: 1, typePriority: 1, ageDays: 0, outcome: "failure" });
    expect(failure).toBeCloseTo(full - 0.04);
  });

  it("relevance beats recency: a perfect old match outranks a weak fresh one", () => {
    const old = compositeScore({ semantic: 1, ageDays: 365 });
    const fresh = compositeScore({ semantic: 0.6, ageDays: 0 });
    expect(old).toBeGreaterThan(fresh);
  });

  it("counts age in days between instants", () => {
    expect(ageInDays("2025-01-01T00:00:00Z", "2025-01-31T00:00:00Z")).toBe(30);
    // A caller scoring many records parses "now" once and passes the instant, which is what counts.
    const now = "2025-01-31T00:00:00Z";
    expect(ageInDays("2025-01-01T00:00:00Z", now, Date.parse(now))).toBe(30);
    expect(ageInDays("2025-01-01T00:00:00Z", now, Date.parse("2025-01-11T00:00:00Z"))).toBe(10);
    expect(ageInDays("not a time", now, Date.parse(now))).toBe(0);
  });
});

describe("neighbour rescue", () => {
  const texts = new Map([
    ["q", "Which city did we pick?"],
    ["a", "Lisbon."],
    ["before", "Right."],
    ["x", "Nice tiles there."],
  ]);

  it("offers the turn after a retrieved question at the answer share", () => {
    const rescued = rescueNeighbours(
      [{ id: "q", score: 1 }],
      new Map([["q", { next: "a", previous: "before" }]]),
      texts,
    );
    expect(rescued).toEqual([
      { id: "q", score: 1 },
      { id: "a", score: 0.8, rescuedBy: "q" },
      { id: "before", score: 0.4, rescuedBy: "q" },
    ]);
  });

  it("offers the question before a retrieved answer, and keeps a turn's best score", () => {
    const rescued = rescueNeighbours(
      [
        { id: "a", score: 1 },
        { id: "x", score: 0.3 },
      ],
      new Map([
        ["a", { previous: "q", next: "x" }],
        ["x", { previous: "a" }],
      ]),
      texts,
    );
    expect(rescued.find((r) => r.id === "q")).toEqual({ id: "q", score: 0.6, rescuedBy: "a" });
    expect(rescued.find((r) => r.id === "x")).toEqual({ id: "x", score: 0.4, rescuedBy: "a" });
    expect(rescued.find((r) => r.id === "a")).toEqual({ id: "a", score: 1 });
  });

  it("attaches nothing across a session boundary (no adjacency given)", () => {
    expect(rescueNeighbours([{ id: "q", score: 1 }], new Map([["q", {}]]), texts)).toEqual([
      { id: "q", score: 1 },
    ]);
  });

  it("recognises a question", () => {
    expect(asksQuestion("Which city?")).toBe(true);
    expect(asksQuestion("Lisbon.")).toBe(false);
  });
});

describe("time questions", () => {
  const now = "2024-06-12T15:00:00.000Z"; // a Wednesday

  it("recognises questions that ask when", () => {
    expect(readTimeQuery("When did Ada adopt the cat?", now).asksWhen).toBe(true);
    expect(readTimeQuery("What date is the launch?", now).asksWhen).toBe(true);
    expect(readTimeQuery("What is the cat called?", now).asksWhen).toBe(false);
  });

  it.each([
    ["What did we decide yesterday?", "2024-06-11T00:00:00.000Z", "2024-06-12T00:00:00.000Z"],
    ["What happened last week?", "2024-06-03T00:00:00.000Z", "2024-06-10T00:00:00.000Z"],
    ["What did we discuss in May?", "2024-05-01T00:00:00.000Z", "2024-06-01T00:00:00.000Z"],
    ["What did we plan in September?", "2023-09-01T00:00:00.000Z", "2023-10-01T00:00:00.000Z"],
    ["What happened in May 2022?", "2022-05-01T00:00:00.000Z", "2022-06-01T00:00:00.000Z"],
    ["Where did she travel last year?", "2023-01-01T00:00:00.000Z", "2024-01-01T00:00:00.000Z"],
    ["What did he paint in 2022?", "2022-01-01T00:00:00.000Z", "2023-01-01T00:00:00.000Z"],
    ["What changed last month?", "2024-05-01T00:00:00.000Z", "2024-06-01T00:00:00.000Z"],
  ])("%s", (query, from, to) => {
    expect(readTimeQuery(query, now).period).toEqual({ from, to });
  });

  it("names no period when the query has none, and does not mistake 'may' the verb", () => {
    expect(readTimeQuery("What is the budget?", now).period).toBeNull();
    expect(readTimeQuery("Who may approve the budget?", now).period).toBeNull();
  });

  it("renders dates in words", () => {
    expect(humanDate("2023-05-08T13:56:00.000Z")).toBe("8 May 2023");
    expect(
      inPeriod("2024-05-31T23:59:59.000Z", {
        from: "2024-05-01T00:00:00.000Z",
        to: "2024-06-01T00:00:00.000Z",
      }),
    ).toBe(true);
    expect(
      inPeriod("2024-06-01T00:00:00.000Z", {
        from: "2024-05-01T00:00:00.000Z",
        to: "2024-06-01T00:00:00.000Z",
      }),
    ).toBe(false);
  });
});

describe("FTS5 query terms", () => {
  it("keeps content words, drops function words, quotes every term", () => {
    expect(queryTerms("When did Caroline go to the LGBTQ support group?")).toEqual([
      "caroline",
      "go",
      "lgbtq",
      "support",
      "group",
    ]);
    expect(matchExpression(queryTerms('"ship it" AND (x OR y)*'))).toBe('"ship" OR "x" OR "y"');
  });

  it("never lets a syntax character or quote into the expression", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (query) => {
        const terms = queryTerms(query);
        if (terms.length === 0) return;
        const match = matchExpression(terms);
        for (const part of match.split(" OR ")) expect(part).toMatch(/^"[\p{L}\p{N}]+"$/u);
      }),
    );
  });

  it("has nothing to search in punctuation alone", () => {
    expect(queryTerms("?!*()\"'")).toEqual([]);
  });

  it("finds a fact's word ending in a vowel and y in its other forms, through FTS5's porter tokenizer", async () => {
    // Porter stems "deploy" to "deploi" but "deployment" to "deploy": each form must find the others.
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`porter-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (_, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE VIRTUAL TABLE porter_forms USING fts5(text, tokenize = 'porter unicode61')");
      const docs = [
        "the deployment window is 4 AM - 6 AM",
        "we deployed the fix last night",
        "our employer pays for the course",
        "she employs two contractors",
        "the delays come from customs",
        "an enjoyable team offsite",
        "a key for the server room",
      ];
      for (const [i, text] of docs.entries()) {
        sql.exec("INSERT INTO porter_forms (rowid, text) VALUES (?, ?)", i, text);
      }
      const found = (query: string) =>
        sql
          .exec<{ rowid: number }>(
            "SELECT rowid FROM porter_forms WHERE porter_forms MATCH ? ORDER BY rowid",
            matchAnyForm(queryTerms(query)),
          )
          .toArray()
          .map((r) => docs[r.rowid]);
      expect(found("When should we deploy?")).toEqual([docs[0], docs[1]]);
      expect(found("How did the deployments go?")).toEqual([docs[0], docs[1]]);
      expect(found("Who is the employer?")).toEqual([docs[2], docs[3]]);
      expect(found("employing")).toEqual([docs[2], docs[3]]);
      expect(found("Any delay?")).toEqual([docs[4]]);
      expect(found("Was it enjoyed?")).toEqual([docs[5]]);
      expect(found("keys")).toEqual([docs[6]]);
    });
  });
});

describe("episode ranking", () => {
  const messages = new Map([
    ["old", { ts: "2024-01-01T00:00:00.000Z", content: "The vault code is 42." }],
    ["new", { ts: "2024-06-10T00:00:00.000Z", content: "Vault talk again." }],
    ["may", { ts: "2024-05-10T00:00:00.000Z", content: "Dentist visit." }],
    ["june", { ts: "2024-06-05T00:00:00.000Z", content: "Dentist visit again." }],
    ["answer", { ts: "2024-01-01T00:00:01.000Z", content: "Yes." }],
  ]);
  const now = "2024-06-12T00:00:00.000Z";

  it("ranks the better match above the more recent one", () => {
    const ranked = rankEpisodes({
      lexical: ["old", "new"],
      vector: [{ id: "old", score: 0.9 }],
      messages,
      adjacency: new Map(),
      now,
      period: null,
    });
    expect(ranked.map((r) => r.id)).toEqual(["old", "new"]);
  });

  it("prefers messages inside the period the query names", () => {
    const period = readTimeQuery("dentist in May", now).period;
    const ranked = rankEpisodes({
      lexical: ["june", "may"],
      vector: [],
      messages,
      adjacency: new Map(),
      now,
      period,
    });
    expect(ranked[0]?.id).toBe("may");
  });

  it("ignores weak vector matches and rescues neighbours", () => {
    const ranked = rankEpisodes({
      lexical: ["old"],
      vector: [{ id: "new", score: 0.1 }],
      messages,
      adjacency: new Map([["old", { next: "answer" }]]),
      now,
      period: null,
    });
    expect(ranked.map((r) => r.id)).toEqual(["old", "answer"]);
    expect(ranked[1]?.rescuedBy).toBe("old");
  });

  it("returns nothing when nothing matched", () => {
    expect(
      rankEpisodes({ lexical: [], vector: [], messages, adjacency: new Map(), now, period: null }),
    ).toEqual([]);
  });
});

describe("episodes naming an entity the query names", () => {
  const episode = (id: string, score: number, similarity: number, ts = "2026-03-01T10:00:00Z") => ({
    id,
    ts,
    score,
    similarity,
  });

  it("joins a turn not ranked and raises one ranked lower, never lowering a better match", () => {
    const ranked = [episode("best", 0.9, 1), episode("weak", 0.2, 0.1)];
    const named = [episode("weak", 0.2, 0.1), episode("other", 0, 0, "2026-02-01T10:00:00Z")];
    const out = withEntityEpisodes(ranked, named);
    expect(out.map((e) => e.id)).toEqual(["best", "weak", "other"]);
    expect(out[0]).toEqual(ranked[0]);
    expect(out.slice(1).map((e) => e.similarity)).toEqual([
      ENTITY_EPISODE_SIMILARITY,
      ENTITY_EPISODE_SIMILARITY,
    ]);
    expect(out[1]?.score).toBe(out[2]?.score);
    expect(out[1]?.score).toBeGreaterThan(0.2);
  });

  it("changes nothing when no turn names the entity", () => {
    const ranked = [episode("a", 0.5, 0.6), episode("b", 0.4, 0.3)];
    expect(withEntityEpisodes(ranked, [])).toEqual(ranked);
  });
});
