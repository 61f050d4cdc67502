import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { HashingEmbedder } from "../src/adapters/hashing-embedder";
import { SqliteVectorIndex } from "../src/adapters/sqlite-vector-index/sqlite-vector-index";
import { ThreadObject } from "../src/thread/thread-object";
import { EMBED_PER_QUERY, EpisodeIndex } from "../src/thread/transcript/episode-index";
import { TranscriptOrder } from "../src/thread/transcript/transcript-order";
import { call, fact, message, newThread } from "./helpers";
import { bareThread } from "./support/bare-thread";

/**
 * The thread object keeps decoded copies of its storage between compiles (layers, items, claims, message
 * records and their order). Each write the object makes must show in the very next compile.
 */

const second = (n: number) => new Date(Date.UTC(2025, 0, 1, 9) + n * 1000).toISOString();
const TOPICS = ["weather", "coffee", "traffic", "lunch", "music", "weekend", "football", "gardening"];
const filler = (count: number, from: number, step = 1) =>
  Array.from({ length: count }, (_, i) =>
    message(`Small talk ${from + i}: the ${TOPICS[i % TOPICS.length]} today is pleasant enough.`, {
      id: `f${from + i}`,
      ts: second((from + i) * step),
    }),
  );
const section = (context: string, title: string) => {
  const start = context.indexOf(title);
  if (start < 0) return "";
  const end = context.indexOf("\n\n## ", start);
  return context.slice(start, end < 0 ? undefined : end);
};
/**
 * What a compile says, less what differs between two compiles of the same state: ids, times, and what
 * the object happens to hold in memory (a warm one holds more than a fresh one).
 */
const stable = (json: any) => {
  const { trace_id: _id, trace, ...rest } = json;
  const { compile_ms: _ms, timings: _timings, held: _held, ...kept } = trace;
  return { ...rest, trace: kept };
};

describe("thread read caches", () => {
  it("a working-set or environment write shows in the next compile", async () => {
    const t = await newThread();
    await t.events([
      fact("deploy_window", "Tuesday night", { layer: "working", id: "w1", ts: second(1) }),
      fact("region", "eu-west-1", { layer: "environment", id: "e1", ts: second(1) }),
    ]);
    const before = await t.context({ query: "When is the deploy window and which region?" });
    expect(before.json.context).toContain("Tuesday night");
    expect(before.json.context).toContain("eu-west-1");

    await t.events([
      fact("deploy_window", "Thursday morning", { layer: "working", id: "w2", ts: second(2) }),
      fact("region", "us-east-2", { layer: "environment", id: "e2", ts: second(2) }),
    ]);
    const after = await t.context({ query: "When is the deploy window and which region?" });
    expect(after.json.context).toContain("Thursday morning");
    expect(after.json.context).toContain("us-east-2");
    expect(after.json.context).not.toContain("Tuesday night");
    expect(after.json.context).not.toContain("eu-west-1");
  });

  it("items an extraction run writes show in the next compile", async () => {
    const t = await newThread();
    await t.events([message("Let's use Redis for caching.", { id: "c1", ts: second(1) })]);
    const before = await t.context({ query: "What did we decide about caching?" });
    expect(before.json.trace.compiled.some((c: any) => c.kind === "state_item")).toBe(true);

    await t.events([message("Let's switch to Memcached instead of Redis.", { id: "c2", ts: second(2) })]);
    const after = await t.context({ query: "What did we decide about caching?" });
    const items = after.json.trace.compiled.filter((c: any) => c.kind === "state_item");
    const state = await call("GET", `/threads/${t.thread}/state`);
    const active = state.json.items.filter((i: any) => i.text.includes("Memcached")).map((i: any) => i.uid);
    expect(active.length).toBeGreaterThan(0);
    expect(items.map((c: any) => c.object_id)).toEqual(expect.arrayContaining(active));
  });

  it("claims an extraction run writes show in the next compile", async () => {
    const t = await newThread();
    await t.events(filler(30, 0));
    // Loads the object's copy of every message's claims, before the turns below are extracted.
    await t.context({ query: "What's the approved budget for the project?" });
    await t.events([
      message("[Manager] Approved the $100,000 budget for the project.", { id: "b1", ts: second(40) }),
      message("[VP] I'm overriding that. The budget is $80,000.", { id: "b3", ts: second(42) }),
      ...filler(20, 50),
    ]);
    const ctx = await t.context({
      query: "What's the approved budget for the project?",
      budget_tokens: 2000,
    });
    expect(ctx.json.context).toContain("$80,000");
    expect(ctx.json.context).not.toContain("$100,000");
    // Left out because extraction tied it to the slot, which only its claims say.
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({
        object_id: "b1",
        reason: "superseded",
        detail: expect.stringMatching(/^stated a value since replaced/),
      }),
    );
  });

  it("messages arriving with past timestamps take their place between the turns already read", async () => {
    const t = await newThread();
    await t.events(filler(60, 0, 2));
    // The first compile reads the transcript's order; the exchange below lands inside it.
    await t.context({ query: "offsite city", budget_tokens: 1500 });
    await t.events([
      message("Which city did we finally pick for the offsite?", { id: "q1", ts: second(41) }),
      message("Lisbon, booked for the first week of June.", {
        id: "a1",
        ts: second(41.5),
        role: "assistant",
      }),
      ...filler(20, 200),
    ]);
    const ctx = await t.context({ query: "offsite city", budget_tokens: 1500 });
    const episodes = section(ctx.json.context, "## Relevant earlier conversation");
    expect(episodes).toContain("Which city did we finally pick");
    expect(episodes).toContain("Lisbon");
  });

  it("after a series of writes, a warm object compiles exactly what a fresh one over its storage does", async () => {
    const t = await newThread();
    const query = {
      query: "What is the budget, who owns the launch and which city?",
      budget_tokens: 3000,
      now: second(100),
      facts_share: 0.7,
      format: "text" as const,
      trace_detail: "full" as const,
    };
    await t.events([...filler(40, 0), fact("launch_owner", "Dana", { layer: "working", ts: second(50) })]);
    await t.context(query);
    await t.events([
      message("The budget is $40,000 for the launch.", { id: "x1", ts: second(60) }),
      message("Which city hosts the launch?", { id: "x2", ts: second(61) }),
      message("Porto, in the old customs house.", { id: "x3", ts: second(62), role: "assistant" }),
      fact("launch_owner", "Eli", { layer: "working", ts: second(63) }),
      message("Actually the budget is $45,000.", { id: "x4", ts: second(64) }),
    ]);
    const warm = await t.context(query);
    // Compiling again must not have changed anything held (compiles share the held objects).
    const again = await t.context(query);
    expect(stable(again.json)).toEqual(stable(warm.json));

    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    const fresh = await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      const object = new ThreadObject(state, env);
      const outcome = await object.compile("acme", t.thread, query);
      if (!outcome.ok) throw new Error(outcome.detail);
      return JSON.parse(JSON.stringify(outcome.value));
    });
    expect(stable(fresh)).toEqual(stable(warm.json));
  });
});

describe("held message records", () => {
  it("take the scope extraction gives a message after they were read", async () => {
    const t = await newThread();
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      const bare = bareThread(state, t.thread);
      await bare.ingest([
        {
          type: "message",
          id: "d1",
          ts: second(1),
          role: "user",
          content: "Let's do a drafting proposal. This is just exploratory.",
        },
        { type: "message", id: "d2", ts: second(2), role: "user", content: "Draft: 24-month contract" },
      ]);
      const episodes = bare.transcript.episodes;
      // Read (and held) before extraction has scoped the turn.
      expect(episodes.records(["d2"]).get("d2")?.scope ?? null).toBeNull();
      await bare.extract();
      expect(episodes.records(["d2"]).get("d2")?.scope).toBe("draft");
    });
  });
});

describe("held transcript tail", () => {
  it("takes a new message, its detail forms and the scope extraction gives after it was read", async () => {
    const t = await newThread();
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      const turn = (n: number, content: string) =>
        ({ type: "message", id: `t${n}`, ts: second(n), role: "user", content }) as const;
      const bare = bareThread(state, t.thread);
      expect((await bare.ingest([turn(1, "Morning, all.")])).value.accepted).toBe(1);
      const episodes = bare.transcript.episodes;
      expect(episodes.tail(2).map((m) => m.id)).toEqual(["t1"]);

      await bare.ingest([
        turn(2, "Let's do a drafting proposal. This is just exploratory."),
        turn(3, "Draft: 24-month contract with the Lisbon venue, paid quarterly in advance."),
      ]);
      const before = episodes.tail(2);
      expect(before.map((m) => m.id)).toEqual(["t2", "t3"]);
      expect(before[1]?.forms).toEqual(expect.objectContaining({ summary: expect.any(String) }));
      expect(before[1]?.scope ?? null).toBeNull();

      await bare.extract();
      expect(episodes.tail(2)[1]?.scope).toBe("draft");
      // A message arriving with a past timestamp takes its place inside the tail.
      await bare.ingest([turn(2.5, "Which venue?")]);
      expect(episodes.tail(2).map((m) => m.id)).toEqual(["t2.5", "t3"]);
    });
  });
});

describe("held transcript tail, carried over a write", () => {
  it("equals a fresh read after each turn, batch, late arrival, scope and rolled-back insert", async () => {
    const t = await newThread();
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      const bare = bareThread(state, t.thread);
      const episodes = bare.transcript.episodes;
      const fresh = () => new EpisodeIndex(state.storage.sql, new SqliteVectorIndex(state.storage.sql));
      // Field order too: the envelope's bytes follow the records' keys.
      const check = () => {
        for (const limit of [3]) {
          expect(JSON.stringify(episodes.tail(limit))).toBe(JSON.stringify(fresh().tail(limit)));
        }
      };
      const turn = (n: number, content: string, speaker?: string) =>
        ({ type: "message", id: `m${n}`, ts: second(n), role: "user", content, speaker }) as const;
      await bare.ingest([turn(1, "Morning, all.")]);
      check();
      await bare.ingest([turn(2, "Let's do a drafting proposal. This is just exploratory.")]);
      check();
      await bare.ingest([
        turn(4, "Draft: 24-month contract with the Lisbon venue, paid quarterly.", "Ada"),
        turn(3, "Which venue, and who signs?"),
      ]);
      check();
      await bare.extract();
      check();
      // Earlier than the held tail's last turn: it takes its place inside.
      await bare.ingest([turn(3.5, "The Porto one.")]);
      check();
      await bare.ingest([turn(5, "Ada signs by Friday.")]);
      check();
      const sql = state.storage.sql;
      expect(() =>
        state.storage.transactionSync(() => {
          sql.exec(
            "INSERT INTO messages (id, ts, role, speaker, content, line, tokens) VALUES ('ghost', ?, 'user', NULL, 'Boo', 'Boo', 1)",
            second(9),
          );
          episodes.add({
            id: "ghost",
            speaker: null,
            content: "Boo",
            record: Object.freeze({
              id: "ghost",
              ts: second(9),
              role: "user",
              speaker: null,
              content: "Boo",
              line: "Boo",
              tokens: 1,
              scope: null,
              scope_id: null,
              forms: null,
            }),
          });
          throw new Error("abort");
        }),
      ).toThrow("abort");
      check();
      await bare.ingest([turn(6, "And the deposit is due in March.")]);
      check();
      await bare.ingest([turn(7, "Noted."), turn(8, "Thanks.")]);
      check();
    });
  });
});

describe("lexical ranking", () => {
  it("names each ranked message, after a rolled-back insert gave its FTS row to another message", async () => {
    const t = await newThread();
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      const sql = state.storage.sql;
      const episodes = new EpisodeIndex(sql, new SqliteVectorIndex(sql));
      const write = (messageId: string, content: string, n: number) => {
        sql.exec(
          "INSERT INTO messages (id, ts, role, speaker, content, line, tokens) VALUES (?, ?, 'user', NULL, ?, ?, 1)",
          messageId,
          second(n),
          content,
          content,
        );
        episodes.add({ id: messageId, speaker: null, content });
      };
      write("a", "The Lisbon venue is booked.", 1);
      write("b", "The Porto venue, maybe.", 2);
      expect(episodes.lexical("Lisbon venue", 10)).toEqual(["a", "b"]);
      expect(() =>
        state.storage.transactionSync(() => {
          write("ghost", "The Madrid venue is cheaper.", 3);
          // Ranked (and its row's message held) inside the transaction that is then rolled back.
          expect(episodes.lexical("Madrid", 10)).toEqual(["ghost"]);
          throw new Error("abort");
        }),
      ).toThrow("abort");
      write("c", "Madrid it is, then.", 4);
      expect(episodes.lexical("Madrid", 10)).toEqual(["c"]);
      expect(episodes.lexical("Lisbon venue", 10)).toEqual(["a", "b"]);
    });
  });
});

describe("held term counts", () => {
  it("rank as a fresh index ranks, after writes that change which terms are worth ranking and a rolled-back one", async () => {
    const t = await newThread();
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      const sql = state.storage.sql;
      // More rows than the ranking budget (RANKED_MATCH_BUDGET, 5,000), so terms are counted and chosen:
      // "harbour" in 2,000 of them, "lantern" in 20, "quarry" in 100.
      for (const table of ["episode_fts", "passage_fts"]) {
        const columns = table === "episode_fts" ? "id, speaker, content" : "id, part, content";
        const second = table === "episode_fts" ? "NULL" : "0";
        sql.exec(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5100)
           INSERT INTO ${table} (${columns})
           SELECT 'old' || i, ${second},
             'entry ' || i || CASE WHEN i <= 2000 THEN ' by the harbour' ELSE '' END
               || CASE WHEN i % 255 = 0 THEN ' with a lantern' ELSE '' END
               || CASE WHEN i % 51 = 0 THEN ' near the quarry' ELSE '' END
           FROM n`,
        );
      }
      const vectors = new SqliteVectorIndex(sql);
      const held = new EpisodeIndex(sql, vectors);
      const fresh = () => new EpisodeIndex(sql, vectors);
      const both = (index: EpisodeIndex, query: string) => ({
        lexical: index.lexical(query, 30),
        passages: index.passageLexical(query, 30),
      });
      let n = 0;
      // As the transcript writes: `add` for each message, then `added` last in the transaction.
      const write = (content: string, count: number, last = true) => {
        for (let i = 0; i < count; i++, n++) held.add({ id: `new${n}`, speaker: null, content });
        if (last) held.added([]);
      };
      const before = both(held, "lantern harbour");
      expect(before, "before any write").toEqual(both(fresh(), "lantern harbour"));
      // 3,100 more lantern entries: harbour and lantern pass the budget together, so lantern, now the
      // commoner, is no longer ranked (long entries, so that they do not crowd the top either way).
      const long = `a lantern ${"and more words about nothing in particular ".repeat(8)}`;
      state.storage.transactionSync(() => write(long, 3_100));
      const after = both(held, "lantern harbour");
      expect(after, "after a write").toEqual(both(fresh(), "lantern harbour"));
      expect(after).not.toEqual(before);
      // A write of 6,000 quarry entries, counted inside its transaction before it ends, then rolled back:
      // quarry is in 100 rows again, not past the budget.
      expect(() =>
        state.storage.transactionSync(() => {
          write("the quarry again", 6_000, false);
          expect(both(held, "quarry harbour"), "inside a write").toEqual(both(fresh(), "quarry harbour"));
          throw new Error("abort");
        }),
      ).toThrow("abort");
      expect(both(held, "quarry harbour"), "after a rolled-back write").toEqual(
        both(fresh(), "quarry harbour"),
      );
      expect(held.lexical("quarry harbour", 30)).toContain("old51");
    });
  });
});

describe("transcript order", () => {
  it("finds the same neighbours as the SQL seek, ties, unicode ids and late arrivals included", async () => {
    const t = await newThread();
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      const sql = state.storage.sql;
      const ids = ["a", "b", "B", "é", "\u{1F600}", "\uFF01", "m10", "m2", "z"];
      let n = 0;
      const stored = (rows: { id: string; ts: string }[]) => {
        for (const row of rows) {
          sql.exec(
            "INSERT INTO messages (id, ts, role, speaker, content, line, tokens) VALUES (?, ?, 'user', NULL, 'x', 'x', 1)",
            row.id,
            row.ts,
          );
        }
        return rows;
      };
      const insert = (count: number) => {
        const rows: { id: string; ts: string }[] = [];
        for (let i = 0; i < count; i++, n++) {
          // Few distinct times, so ties on ts are common and the id decides.
          rows.push({ id: `${ids[(n * 7) % ids.length]}${n}`, ts: second((n * 13) % 5) });
        }
        return stored(rows);
      };
      insert(20);
      const order = new TranscriptOrder(sql, 1_000);
      const seek = (ts: string, at: string) => ({
        previous: sql
          .exec<{ id: string; ts: string }>(
            "SELECT id, ts FROM messages WHERE (ts, id) < (?, ?) ORDER BY ts DESC, id DESC LIMIT 1",
            ts,
            at,
          )
          .toArray()[0],
        next: sql
          .exec<{ id: string; ts: string }>(
            "SELECT id, ts FROM messages WHERE (ts, id) > (?, ?) ORDER BY ts, id LIMIT 1",
            ts,
            at,
          )
          .toArray()[0],
      });
      const check = () => {
        const all = sql.exec<{ id: string; ts: string }>("SELECT id, ts FROM messages").toArray();
        // Every stored message, and positions of messages that do not exist.
        for (const probe of [...all, { id: "a", ts: second(2) }, { id: "\uFFFF", ts: second(9) }]) {
          const expected = seek(probe.ts, probe.id);
          const actual = order.around(probe.ts, probe.id);
          expect({ probe, ...actual }).toEqual({
            probe,
            ...(expected.previous ? { previous: expected.previous } : {}),
            ...(expected.next ? { next: expected.next } : {}),
          });
          // The same neighbours kept only within a gap, from the times the order parsed once.
          for (const gap of [0, 1_500, 10_000]) {
            const near = (other: { ts: string } | undefined) =>
              other !== undefined && Math.abs(Date.parse(other.ts) - Date.parse(probe.ts)) <= gap;
            expect({ probe, gap, ...order.within(probe.ts, probe.id, gap) }).toEqual({
              probe,
              gap,
              ...(near(expected.previous) ? { previous: expected.previous?.id } : {}),
              ...(near(expected.next) ? { next: expected.next?.id } : {}),
            });
          }
        }
      };
      check();
      order.added(insert(15));
      check();
      order.added(insert(1));
      check();
      // Turns after every held one, as a conversation's new turns come (appended in place): a batch out of
      // order within itself, one tied on the last held time with a greater id, and one alone.
      order.added(
        stored([
          { id: "n2", ts: second(11) },
          { id: "n1", ts: second(10) },
          { id: "n0", ts: second(11) },
        ]),
      );
      check();
      order.added(stored([{ id: "n3", ts: second(11) }]));
      check();
      order.added(stored([{ id: "A0", ts: second(12) }]));
      check();
      // Past its limit the order lets go of its copy, and callers seek in SQL.
      const small = new TranscriptOrder(sql, 10);
      expect(small.around(second(1), "a")).toBeUndefined();
      expect(small.within(second(1), "a", 1_000)).toBeUndefined();

      // The index's neighbours from its held order and from its one-statement seek past the limit agree,
      // for every stored message at once and for each on its own.
      const vectors = new SqliteVectorIndex(sql);
      const held = new EpisodeIndex(sql, vectors, { orderLimit: 1_000 });
      const seeking = new EpisodeIndex(sql, vectors, { orderLimit: 10 });
      const records = held.records(
        sql
          .exec<{ id: string }>("SELECT id FROM messages")
          .toArray()
          .map((row) => row.id),
      );
      for (const gap of [0, 1_500, 10_000]) {
        const expected = held.adjacency(records.values(), gap);
        expect(expected.size).toBe(records.size);
        expect(seeking.adjacency(records.values(), gap)).toEqual(expected);
        for (const record of records.values()) {
          expect(seeking.adjacency([record], gap).get(record.id)).toEqual(expected.get(record.id));
        }
      }
      expect(seeking.adjacency([], 1_000).size).toBe(0);
    });
  });
});

describe("message records held between compiles", () => {
  it("are the most recently used up to their limit, the oldest let go first", async () => {
    const t = await newThread();
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      const sql = state.storage.sql;
      const ids = Array.from({ length: 10 }, (_, i) => `r${i}`);
      for (const [i, at] of ids.entries()) {
        sql.exec(
          "INSERT INTO messages (id, ts, role, speaker, content, line, tokens) VALUES (?, ?, 'user', NULL, 'stored', 'stored', 1)",
          at,
          second(i),
        );
      }
      const vectors = new SqliteVectorIndex(sql);
      // A held record is served without reading storage, so storage changed behind the index's back
      // tells the held ones from those read afresh. Asked last: the ask itself changes what is held.
      const heldBy = (index: EpisodeIndex) => {
        sql.exec("UPDATE messages SET content = 'changed'");
        const found = index.records(ids);
        sql.exec("UPDATE messages SET content = 'stored'");
        return ids.filter((at) => found.get(at)?.content === "stored");
      };

      // One at a time: r0 is used again before the table fills, so r1 and r2 go first.
      const single = new EpisodeIndex(sql, vectors, { recordCacheLimit: 5 });
      for (const at of ["r0", "r1", "r2", "r3", "r0", "r4", "r5", "r6"]) single.records([at]);
      expect(heldBy(single)).toEqual(["r0", "r3", "r4", "r5", "r6"]);

      // Several let go at once: four new records over a full table of five send the four oldest.
      const batch = new EpisodeIndex(sql, vectors, { recordCacheLimit: 5 });
      for (const at of ["r0", "r1", "r2", "r3", "r4"]) batch.records([at]);
      batch.records(["r5", "r6", "r7", "r8"]);
      expect(heldBy(batch)).toEqual(["r4", "r5", "r6", "r7", "r8"]);
    });
  });
});

describe("message embeddings after the first scan", () => {
  const turn = (id: string, n: number, content: string) => ({
    type: "message" as const,
    id,
    ts: second(n),
    role: "user" as const,
    content,
  });

  it("are scanned on from where the last call reached, and one written meanwhile before it is embedded too", async () => {
    const t = await newThread();
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      // The rows each scan statement read, as the storage counts them.
      const scans: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
      const real = state.storage.sql;
      const sql = Object.create(real, {
        exec: {
          value: (query: string, ...bindings: unknown[]) => {
            const cursor = real.exec(query, ...bindings);
            if (query.includes("FROM messages m") && query.includes("episode_embedded")) scans.push(cursor);
            return cursor;
          },
        },
      }) as SqlStorage;
      const bare = bareThread(state, t.thread, { sql });
      const count = EMBED_PER_QUERY * 3 + 20;
      await bare.ingest(
        Array.from({ length: count }, (_, i) =>
          turn(`s${i}`, 10 + i, `Status note ${i}: shipment ${i} cleared customs in Antwerp.`),
        ),
      );
      const index = bare.transcript.episodes;
      const hashing = new HashingEmbedder();
      const read: number[] = [];
      const embedOnce = async () => {
        const before = scans.length;
        const more = await index.embedPending(hashing, "ns");
        read.push(scans.slice(before).reduce((sum, cursor) => sum + cursor.rowsRead, 0));
        return more;
      };
      expect(await embedOnce()).toBe(true);
      expect(await embedOnce()).toBe(true);
      // Written between two calls, and older than every message the scan reached.
      await bare.ingest([turn("late", 1, "Forgotten note: the Rotterdam warehouse lease was signed.")]);
      while (await embedOnce()) {}
      // The third call reads about what the first did, not the messages embedded before it again.
      expect(read[2]).toBeLessThan((read[0] as number) * 1.5);
      const embedded = real
        .exec<{ n: number }>("SELECT count(*) AS n FROM episode_embedded WHERE embedder = ?", hashing.name)
        .one().n;
      expect(embedded).toBe(count + 1);
      const [vector] = await hashing.embed(["Rotterdam warehouse lease"]);
      expect((await index.semantic(vector as number[], "ns", 5)).map((m) => m.id)).toContain("late");
      expect(await index.embedPending(hashing, "ns")).toBe(false);
    });
  });

  it("embed each new message, including one written while a scan awaits the embedder", async () => {
    const t = await newThread();
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    await runInDurableObject(env.THREADS.get(id), async (_instance: ThreadObject, state) => {
      const bare = bareThread(state, t.thread);
      const index = bare.transcript.episodes;
      await bare.ingest([
        turn("a1", 1, "The quarterly offsite is in Lisbon this year."),
        turn("a2", 2, "Remember to book the venue early."),
      ]);
      const hashing = new HashingEmbedder();
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      // An embedder that holds the first scan open until the test lets it go.
      let calls = 0;
      const slow = {
        name: hashing.name,
        dimensions: hashing.dimensions,
        embed: async (texts: string[]) => {
          if (calls++ === 0) await gate;
          return hashing.embed(texts);
        },
      } as unknown as HashingEmbedder;
      const vectorOf = async (query: string) => (await hashing.embed([query]))[0] as number[];
      // Embedding is the write path's upkeep; search then reads the index.
      const ids = async (query: string, embedder: HashingEmbedder = hashing) => {
        await index.embedPending(embedder, "ns");
        return (await index.semantic(await vectorOf(query), "ns", 10)).map((m) => m.id);
      };

      const scanning = ids("offsite Lisbon", slow);
      await bare.ingest([turn("a3", 3, "Catering vendor shortlist: Saffron Table.")]);
      release();
      expect(await scanning).toContain("a1");
      expect(await ids("catering vendor saffron")).toContain("a3");

      await bare.ingest([turn("a4", 4, "Keynote speaker confirmed: Dr. Okafor.")]);
      expect(await ids("keynote speaker okafor")).toContain("a4");

      // The same answers as an index that scans the whole transcript afresh.
      const fresh = new EpisodeIndex(state.storage.sql, new SqliteVectorIndex(state.storage.sql));
      await fresh.embedPending(hashing, "ns");
      for (const query of ["offsite Lisbon", "catering vendor saffron", "keynote speaker okafor"]) {
        const vector = await vectorOf(query);
        expect(await fresh.semantic(vector, "ns", 10)).toEqual(await index.semantic(vector, "ns", 10));
      }
    });
  });
});
