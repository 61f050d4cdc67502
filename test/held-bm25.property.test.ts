import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HeldBm25 } from "../src/retrieval/held-bm25";
import { InstanceLists, LENGTH_ROWS } from "../src/retrieval/instance-lists";

/**
 * HeldBm25 answers FTS5's own `ORDER BY bm25(t) LIMIT n`, query after query, while rows are added,
 * replaced and deleted between them: the same rows in the same order with the same scores.
 */

const word = fc.constantFrom(
  "team",
  "teams",
  "teaming",
  "budget",
  "billing",
  "postgres",
  "deploy",
  "deployment",
  "region",
  "owner",
  "q3",
  "week",
  "1",
  "things",
  "stand",
  // Not ASCII: its token is not worked out here, so its list is read through bm25 (held-bm25.ts).
  "café",
);
const text = fc.array(word, { minLength: 1, maxLength: 14 }).map((w) => w.join(" "));

type Step =
  | { kind: "slice" }
  | { kind: "insert"; text: string; speaker: string }
  | { kind: "replace"; pick: number; text: string }
  | { kind: "delete"; pick: number }
  | { kind: "query"; words: string[]; limit: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  // One slice of reading between writes: a list read in parts while rows change under it.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("slice" as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("insert" as const),
      text,
      speaker: fc.constantFrom("user", "team lead"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("replace" as const), pick: fc.nat(), text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("query" as const),
      words: fc.uniqueArray(word, { minLength: 1, maxLength: 4 }),
      limit: fc.integer({ min: 1, max: 30 }),
    }),
  },
);

function ftsRanking(sql: SqlStorage, table: string, phrases: string[], limit: number) {
  return sql
    .exec<{ doc: number; score: number }>(
      `SELECT rowid AS doc, bm25(${table}) AS score FROM ${table} WHERE ${table} MATCH ? ORDER BY bm25(${table}) LIMIT ?`,
      phrases.join(" OR "),
      limit,
    )
    .toArray()
    .map((r) => ({ doc: r.doc, score: r.score }));
}

function matchCount(sql: SqlStorage, table: string, phrase: string): number {
  return sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`, phrase).one().n;
}

/** Lets the object's implicit transaction end, so FTS5 stores the table's counts (it does at commit). */
const committed = () => new Promise((resolve) => setTimeout(resolve, 1));

function expectSameRanking(held: { doc: number; score: number }[], fts: { doc: number; score: number }[]) {
  expect(held.map((r) => r.doc)).toEqual(fts.map((r) => r.doc));
  held.forEach((r, i) => {
    const other = (fts[i] as { score: number }).score;
    expect(Math.abs(r.score - other)).toBeLessThanOrEqual(1e-12 * Math.abs(other));
  });
}

describe("held bm25", () => {
  it("ranks as FTS5 does through inserts, replacements and deletions (two indexed columns)", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      let round = 0;
      let inlineHeld = 0;
      let fromInstances = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
          const table = `held_t${round++}`;
          sql.exec(
            `CREATE VIRTUAL TABLE ${table} USING fts5(id UNINDEXED, speaker, content, tokenize = 'porter unicode61')`,
          );
          // Small bounds, so lists are let go and read again as the run goes, and read a few rows a slice
          // (the rows' lengths two a slice).
          const held = new HeldBm25(sql, table, 120, 3, new InstanceLists(sql, table, LENGTH_ROWS, 2));
          const live: number[] = [];
          let queried = 0;
          for (const s of steps) {
            if (s.kind === "slice") {
              await committed();
              held.prepare();
            } else if (s.kind === "insert") {
              sql.exec(`INSERT INTO ${table} (id, speaker, content) VALUES ('m', ?, ?)`, s.speaker, s.text);
              const doc = sql.exec<{ r: number }>("SELECT last_insert_rowid() AS r").one().r;
              live.push(doc);
              held.changed([doc]);
            } else if (s.kind === "replace" && live.length) {
              const doc = live[s.pick % live.length] as number;
              sql.exec(`DELETE FROM ${table} WHERE rowid = ?`, doc);
              sql.exec(
                `INSERT INTO ${table} (rowid, id, speaker, content) VALUES (?, 'm', 'user', ?)`,
                doc,
                s.text,
              );
              held.changed([doc]);
            } else if (s.kind === "delete" && live.length) {
              const [doc] = live.splice(s.pick % live.length, 1) as [number];
              sql.exec(`DELETE FROM ${table} WHERE rowid = ?`, doc);
              held.changed([doc]);
            } else if (s.kind === "query") {
              const phrases = s.words.map((w) => `"${w}"`);
              await committed();
              // A phrase not held is ranked by FTS5 and read between questions (`prepare`) once a second
              // question wants it, unless the caller's counts say the phrases not held are rare: then
              // they are read at once.
              const matches = queried % 2 ? phrases.map((p) => matchCount(sql, table, p)) : undefined;
              const unheld = phrases.filter((p) => !held.holds(p)).length;
              const first = held.rank(phrases, s.limit, matches);
              expectSameRanking(first.rows, ftsRanking(sql, table, phrases, s.limit));
              if (matches) inlineHeld += first.held ? 1 : 0;
              if (unheld && !matches && first.held) fromInstances++;
              while (held.prepare()) {}
              expectSameRanking(held.rank(phrases, s.limit).rows, ftsRanking(sql, table, phrases, s.limit));
              while (held.prepare()) {}
              const ranked = held.rank(phrases, s.limit);
              // An empty table is FTS5's to answer (its counts are nothing to hold lists against).
              expect(ranked.held).toBe(live.length > 0);
              expectSameRanking(ranked.rows, ftsRanking(sql, table, phrases, s.limit));
              queried++;
            }
          }
          sql.exec(`DROP TABLE ${table}_instance`);
          sql.exec(`DROP TABLE ${table}`);
          return queried >= 0;
        }),
        { numRuns: 120 },
      );
      // Rankings did read rare phrases at once, not only after, and lists from the instance table.
      expect(inlineHeld).toBeGreaterThan(10);
      expect(fromInstances).toBeGreaterThan(10);
    });
  });

  it("rows added past every held one need only `appended`", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      let round = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof(text, fc.uniqueArray(word, { minLength: 1, maxLength: 3 })), {
            minLength: 1,
            maxLength: 50,
          }),
          async (steps) => {
            const table = `append_t${round++}`;
            sql.exec(`CREATE VIRTUAL TABLE ${table} USING fts5(content, tokenize = 'porter unicode61')`);
            const held = new HeldBm25(sql, table);
            let rows = 0;
            for (const s of steps) {
              if (typeof s === "string") {
                sql.exec(`INSERT INTO ${table} (content) VALUES (?)`, s);
                held.appended();
                rows++;
              } else {
                const phrases = s.map((w) => `"${w}"`);
                await committed();
                for (let asked = 0; asked < 2; asked++) {
                  expectSameRanking(held.rank(phrases, 10).rows, ftsRanking(sql, table, phrases, 10));
                  while (held.prepare()) {}
                }
                const ranked = held.rank(phrases, 10);
                expect(ranked.held).toBe(rows > 0);
                expectSameRanking(ranked.rows, ftsRanking(sql, table, phrases, 10));
              }
            }
            sql.exec(`DROP TABLE ${table}_instance`);
            sql.exec(`DROP TABLE ${table}`);
          },
        ),
        { numRuns: 120 },
      );
    });
  });

  it("holds a phrase's list between queries, and lets every list go when rows change unreported", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE VIRTUAL TABLE held_u USING fts5(content, tokenize = 'porter unicode61')");
      for (let i = 0; i < 50; i++)
        sql.exec("INSERT INTO held_u (content) VALUES (?)", `team week ${i % 7} budget`);
      await committed();
      const held = new HeldBm25(sql, "held_u");
      const phrases = ['"team"', '"3"'];
      let ranked = held.rank(phrases, 5);
      // Asked for once, before the rows' lengths are read: FTS5 ranks, and no list is read (most words of
      // a long thread come up once); the lengths are read after.
      expect(ranked.held).toBe(false);
      expect(held.prepare()).toBe(false);
      expect(held.size()).toBe(0);
      // Asked for again: the lists are read at once from the instance table, and held.
      ranked = held.rank(phrases, 5);
      expect(ranked.held).toBe(true);
      expectSameRanking(ranked.rows, ftsRanking(sql, "held_u", phrases, 5));
      expect(held.prepare()).toBe(false);
      expect(held.size()).toBe(50 + 7);
      ranked = held.rank(phrases, 5);
      expect(ranked.held).toBe(true);
      expectSameRanking(ranked.rows, ftsRanking(sql, "held_u", phrases, 5));
      expect(held.size()).toBe(50 + 7);
      // A write nobody reported moves the table's counts: the held lists are let go, not trusted.
      sql.exec("INSERT INTO held_u (content) VALUES ('team team 3 3 3')");
      await committed();
      ranked = held.rank(phrases, 5);
      expect(ranked.held).toBe(false);
      expectSameRanking(ranked.rows, ftsRanking(sql, "held_u", phrases, 5));
      expect(ranked.rows[0]?.doc).toBe(51);
      // The lists let go were in demand: read again after the next question that wants them.
      while (held.prepare()) {}
      ranked = held.rank(phrases, 5);
      expect(ranked.held).toBe(true);
      expectSameRanking(ranked.rows, ftsRanking(sql, "held_u", phrases, 5));
      expect(held.size()).toBe(51 + 8);
    });
  });

  it("reads a word whose token is not worked out here through bm25, once a second question wants it", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE VIRTUAL TABLE held_w USING fts5(content, tokenize = 'porter unicode61')");
      for (let i = 0; i < 40; i++) sql.exec("INSERT INTO held_w (content) VALUES (?)", `café week ${i % 4}`);
      await committed();
      const held = new HeldBm25(sql, "held_w");
      const phrases = ['"café"', '"week"'];
      expect(held.rank(phrases, 5).held).toBe(false);
      // The rows' lengths are read; "week" could now be read from the instance table, "café" not.
      expect(held.prepare()).toBe(false);
      expect(held.size()).toBe(0);
      // Asked again: FTS5 ranks, and both lists are read after, "café" through bm25.
      const again = held.rank(phrases, 5);
      expect(again.held).toBe(false);
      expectSameRanking(again.rows, ftsRanking(sql, "held_w", phrases, 5));
      while (held.prepare()) {}
      expect(held.size()).toBe(80);
      const ranked = held.rank(phrases, 5);
      expect(ranked.held).toBe(true);
      expectSameRanking(ranked.rows, ftsRanking(sql, "held_w", phrases, 5));
    });
  });

  it("reads a list from the instance table for one question without holding it, until asked again", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE VIRTUAL TABLE held_x USING fts5(content, tokenize = 'porter unicode61')");
      // More rows than a ranking holds at once without a second ask (INLINE_ROWS).
      for (let i = 0; i < 600; i++)
        sql.exec("INSERT INTO held_x (content) VALUES (?)", `${i % 3 ? "deployed" : "deployments"} ${i % 9}`);
      await committed();
      const held = new HeldBm25(sql, "held_x");
      expect(held.prepare()).toBe(false);
      // "deploying", "deployed" and "deployments" are two tokens: the question finds "deployed" alone.
      const first = held.rank(['"deploying"'], 7);
      expect(first.held).toBe(true);
      expectSameRanking(first.rows, ftsRanking(sql, "held_x", ['"deploying"'], 7));
      expect(held.size()).toBe(0);
      const second = held.rank(['"deploying"', '"3"'], 7);
      expect(second.held).toBe(true);
      expectSameRanking(second.rows, ftsRanking(sql, "held_x", ['"deploying"', '"3"'], 7));
      expect(held.size()).toBe(400 + 67);
      // A row replaced is read again, its length too.
      sql.exec("DELETE FROM held_x WHERE rowid = 3");
      sql.exec(
        "INSERT INTO held_x (rowid, content) VALUES (3, 'deploy deploy deploy and a much longer row')",
      );
      held.changed([3]);
      await committed();
      const third = held.rank(['"deploying"', '"3"'], 7);
      expect(third.held).toBe(true);
      expectSameRanking(third.rows, ftsRanking(sql, "held_x", ['"deploying"', '"3"'], 7));
    });
  });

  it("ranks through bm25 alone where the runtime refuses an instance table", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE VIRTUAL TABLE held_y USING fts5(content, tokenize = 'porter unicode61')");
      for (let i = 0; i < 30; i++) sql.exec("INSERT INTO held_y (content) VALUES (?)", `team week ${i % 5}`);
      await committed();
      const refusing = {
        exec: (query: string, ...bindings: unknown[]) => {
          if (query.includes("fts5vocab")) throw new Error("not authorized");
          return sql.exec(query, ...bindings);
        },
      } as unknown as SqlStorage;
      const lists = new InstanceLists(refusing, "held_y");
      const held = new HeldBm25(refusing, "held_y", undefined, undefined, lists);
      const phrases = ['"team"', '"4"'];
      for (let asked = 0; asked < 3; asked++) {
        expectSameRanking(held.rank(phrases, 3).rows, ftsRanking(sql, "held_y", phrases, 3));
        while (held.prepare()) {}
      }
      expect(lists.ready()).toBe(false);
      expect(lists.read('"team"')).toBeUndefined();
      // Read through bm25 once a second question wanted them.
      expect(held.rank(phrases, 3).held).toBe(true);
      expect(held.size()).toBe(30 + 6);
    });
  });

  it("refuses a list whose row count is wrong where the idf cannot tell (a phrase in most rows)", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE VIRTUAL TABLE held_z USING fts5(content, tokenize = 'porter unicode61')");
      for (let i = 0; i < 30; i++)
        sql.exec("INSERT INTO held_z (content) VALUES (?)", `team week ${i % 5} and more`);
      sql.exec("INSERT INTO held_z (content) VALUES ('team team team')");
      await committed();
      const real = new InstanceLists(sql, "held_z");
      // A list that lost its last row (the best one) but keeps its first row right.
      const lossy = {
        ready: () => real.ready(),
        readable: (phrase: string) => real.readable(phrase),
        load: () => real.load(),
        forget: (docs: Iterable<number>) => real.forget(docs),
        reset: () => real.reset(),
        read: (phrase: string) => {
          const list = real.read(phrase);
          if (!list) return list;
          const n = list.docs.length - 1;
          return { docs: list.docs.slice(0, n), freq: list.freq.slice(0, n), size: list.size.slice(0, n) };
        },
      } as unknown as InstanceLists;
      const held = new HeldBm25(sql, "held_z", undefined, undefined, lossy);
      expect(held.prepare()).toBe(false);
      expect(real.read('"team"')?.docs.length).toBe(31);
      const ranked = held.rank(['"team"'], 3);
      expect(ranked.held).toBe(false);
      expectSameRanking(ranked.rows, ftsRanking(sql, "held_z", ['"team"'], 3));
      expect(ranked.rows[0]?.doc).toBe(31);
    });
  });

  it("reads again, between questions, the lengths of rows written again", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE VIRTUAL TABLE held_r USING fts5(content, tokenize = 'porter unicode61')");
      for (let i = 1; i <= 600; i++)
        sql.exec("INSERT INTO held_r (rowid, content) VALUES (?, ?)", i, `budget ${i % 7}`);
      await committed();
      const held = new HeldBm25(sql, "held_r");
      expect(held.prepare()).toBe(false);
      // 400 rows written again in place, longer: more than a list reads the lengths of at once.
      for (let i = 1; i <= 400; i++) {
        sql.exec("DELETE FROM held_r WHERE rowid = ?", i);
        sql.exec(
          "INSERT INTO held_r (rowid, content) VALUES (?, ?)",
          i,
          `budget budget ${i % 7} and a longer row`,
        );
      }
      held.changed(Array.from({ length: 400 }, (_, i) => i + 1));
      await committed();
      expect(held.rank(['"budget"'], 5).held).toBe(false);
      while (held.prepare()) {}
      const ranked = held.rank(['"budgets"'], 5);
      expect(ranked.held).toBe(true);
      expectSameRanking(ranked.rows, ftsRanking(sql, "held_r", ['"budgets"'], 5));
    });
  });

  it("goes back to bm25 when the instance table cannot be read", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE VIRTUAL TABLE held_q USING fts5(content, tokenize = 'porter unicode61')");
      for (let i = 0; i < 30; i++) sql.exec("INSERT INTO held_q (content) VALUES (?)", `team week ${i % 5}`);
      await committed();
      const failing = {
        exec: (query: string, ...bindings: unknown[]) => {
          if (query.includes("held_q_instance") && !query.startsWith("CREATE"))
            throw new Error("disk I/O error");
          return sql.exec(query, ...bindings);
        },
      } as unknown as SqlStorage;
      const lists = new InstanceLists(failing, "held_q");
      const held = new HeldBm25(failing, "held_q", undefined, undefined, lists);
      expect(held.prepare()).toBe(false);
      expect(lists.ready()).toBe(true);
      const ranked = held.rank(['"team"', '"4"'], 3);
      expectSameRanking(ranked.rows, ftsRanking(sql, "held_q", ['"team"', '"4"'], 3));
      expect(ranked.held).toBe(false);
      expect(lists.ready()).toBe(false);
    });
  });

  it("in the same turn as a write, before FTS5 stores its counts, FTS5 ranks", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE VIRTUAL TABLE held_v USING fts5(content, tokenize = 'porter unicode61')");
      for (let i = 0; i < 30; i++) sql.exec("INSERT INTO held_v (content) VALUES (?)", `team week ${i % 5}`);
      await committed();
      const held = new HeldBm25(sql, "held_v");
      held.rank(['"team"', '"4"'], 3);
      held.rank(['"team"', '"4"'], 3);
      while (held.prepare()) {}
      expect(held.rank(['"team"', '"4"'], 3).held).toBe(true);
      sql.exec("INSERT INTO held_v (content) VALUES ('team 4 4')");
      held.appended();
      const ranked = held.rank(['"team"', '"4"'], 3);
      expect(ranked.held).toBe(false);
      expectSameRanking(ranked.rows, ftsRanking(sql, "held_v", ['"team"', '"4"'], 3));
      expect(ranked.rows[0]?.doc).toBe(31);
      await committed();
      // The list that could not be brought up to date then is read again after.
      while (held.prepare()) {}
      const later = held.rank(['"team"', '"4"'], 3);
      expect(later.held).toBe(true);
      expectSameRanking(later.rows, ftsRanking(sql, "held_v", ['"team"', '"4"'], 3));
    });
  });
});
