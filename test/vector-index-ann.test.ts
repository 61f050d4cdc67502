import { describe, expect, it } from "vitest";
import { floats } from "../src/adapters/sqlite-vector-index/encoding";
import { codeOf } from "../src/adapters/sqlite-vector-index/list-codes";
import { layoutOf, listFor } from "../src/adapters/sqlite-vector-index/list-layout";
import { readCentroids } from "../src/adapters/sqlite-vector-index/list-storage";
import { sparse } from "../src/adapters/sqlite-vector-index/sparse-vector";
import type { VectorMatch, VectorRecord } from "../src/ports/vector-index";
import {
  embed,
  exactOver,
  inFreshObject,
  LISTS,
  listed,
  NAMESPACE,
  probeVectors,
  sentenceRecords,
  writeInBatches,
} from "./support/ann-fixture";
import { chatSentences } from "./support/chat-sentences";
import { recallAt } from "./support/recall";
import { recordedSql, type Statement } from "./support/recorded-sql";

/** How many ids the last query read again by id (approximate-search.ts), from its statements. */
function readAgain(statements: Statement[]): number {
  return statements
    .filter((s) => s.query.includes("AND id IN (SELECT value FROM json_each(?))"))
    .reduce((sum, s) => sum + JSON.parse(s.bindings[1] as string).length, 0);
}

const cosine = (a: number[], b: number[]) => {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  a.forEach((v, i) => {
    dot += v * (b[i] as number);
    aa += v * v;
    bb += (b[i] as number) ** 2;
  });
  return dot / Math.sqrt(aa * bb);
};

describe("approximate search of large namespaces (inverted lists)", () => {
  it("finds at least 90% of the exact top 10 on chat sentences, reading a few of many lists", async () => {
    await inFreshObject(async (sql) => {
      await writeInBatches(listed(sql), sentenceRecords(chatSentences(3000, 1)));
      const lists = sql.exec<{ n: number }>("SELECT count(*) AS n FROM vector_index_centroids").one().n;
      expect(lists).toBeGreaterThan(4 * LISTS.probes);
      const { sql: watched, statements } = recordedSql(sql);
      const approximate = listed(watched);
      const exact = exactOver(sql);
      const recalls: number[] = [];
      for (const probe of probeVectors(40)) {
        statements.length = 0;
        const answer = await approximate.query(probe, { topK: 10, namespace: NAMESPACE });
        // Approximate: a few lists' packs read, never every row of the namespace.
        const packsRead = statements.filter((s) => s.query.includes("FROM vector_index_packs")).length;
        expect(packsRead).toBeLessThanOrEqual(LISTS.probes);
        expect(statements.some((s) => /FROM vector_index WHERE namespace = \?$/.test(s.query.trim()))).toBe(
          false,
        );
        recalls.push(recallAt(10, answer, await exact.query(probe, { topK: 10, namespace: NAMESPACE })));
      }
      const mean = recalls.reduce((sum, r) => sum + r, 0) / recalls.length;
      expect(mean).toBeGreaterThanOrEqual(0.9);
    });
  });

  it("at top 100, reads the nearest lists in one statement each and again at most 170 members by id", async () => {
    await inFreshObject(async (sql) => {
      await writeInBatches(listed(sql), sentenceRecords(chatSentences(3000, 1)));
      const { sql: watched, statements } = recordedSql(sql);
      const approximate = listed(watched);
      const exact = exactOver(sql);
      const recalls: number[] = [];
      for (const probe of probeVectors(20)) {
        statements.length = 0;
        const answer = await approximate.query(probe, { topK: 100, namespace: NAMESPACE });
        const reading = (table: string) => statements.filter((s) => s.query.includes(table));
        // The nearest lists' packs and tails: one statement each, whatever the number of lists probed.
        expect(reading("FROM vector_index_packs")).toHaveLength(1);
        expect(reading("AND packed = 0")).toHaveLength(1);
        // Packed members read again by id: 1.5 × 100 + 20 at most.
        expect(readAgain(statements)).toBeLessThanOrEqual(170);
        recalls.push(recallAt(100, answer, await exact.query(probe, { topK: 100, namespace: NAMESPACE })));
      }
      const mean = recalls.reduce((sum, r) => sum + r, 0) / recalls.length;
      // 0.83 here with 8 probes of lists of 64 (the same as reading twice topK again).
      expect(mean).toBeGreaterThanOrEqual(0.8);
    });
  });

  it("answers with minScore as without it then cut there, reading again only members that can reach it", async () => {
    await inFreshObject(async (sql) => {
      await writeInBatches(listed(sql), sentenceRecords(chatSentences(3000, 1)));
      const { sql: watched, statements } = recordedSql(sql);
      const index = listed(watched);
      let fewer = 0;
      for (const probe of [
        ...probeVectors(20),
        ...sentenceRecords(chatSentences(10, 1)).map((r) => r.values),
      ]) {
        statements.length = 0;
        const whole = await index.query(probe, { topK: 100, namespace: NAMESPACE });
        const all = readAgain(statements);
        for (const minScore of [0.2, 0.3, 0.4, 0.6, 0.9]) {
          statements.length = 0;
          const cut = await index.query(probe, { topK: 100, namespace: NAMESPACE, minScore });
          expect(cut).toEqual(whole.filter((m) => m.score >= minScore));
          if (readAgain(statements) < all) fewer++;
        }
      }
      // The bound spares reads: most (query, minimum) pairs read fewer members again.
      expect(fewer).toBeGreaterThan(75);
    });
  });

  it("ranks each list's tail by the codes its rows keep, read from one covering index", async () => {
    await inFreshObject(async (sql) => {
      await writeInBatches(listed(sql), sentenceRecords(chatSentences(3000, 1)));
      const inTails = sql
        .exec<{ n: number }>("SELECT count(*) AS n FROM vector_index WHERE packed = 0 AND list IS NOT NULL")
        .one().n;
      expect(inTails).toBeGreaterThan(100);
      const { sql: watched, statements } = recordedSql(sql);
      for (const probe of probeVectors(10)) {
        statements.length = 0;
        await listed(watched).query(probe, { topK: 10, namespace: NAMESPACE });
        const tail = statements.find((s) => s.query.includes("AND packed = 0"));
        expect(tail?.query).not.toMatch(/\bvec\b/);
        const plan = sql
          .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${tail?.query}`, ...(tail?.bindings ?? []))
          .toArray()
          .map((row) => row.detail);
        expect(plan.join("\n")).toContain("USING COVERING INDEX vector_index_tails");
      }
    });
  });

  it("reads again, best bound first, only the candidates that can still enter the answer", async () => {
    await inFreshObject(async (sql) => {
      await writeInBatches(listed(sql), sentenceRecords(chatSentences(3000, 1)));
      const { sql: watched, statements } = recordedSql(sql);
      const reads: number[] = [];
      for (const probe of probeVectors(40)) {
        statements.length = 0;
        await listed(watched).query(probe, { topK: 10, namespace: NAMESPACE });
        reads.push(readAgain(statements));
      }
      // Without the bound, every one of the 1.5 × 10 + 20 best by code was read again.
      const mean = reads.reduce((sum, n) => sum + n, 0) / reads.length;
      expect(mean).toBeLessThan(25);
      expect(Math.max(...reads)).toBeLessThanOrEqual(35);
    });
  });

  it("finds tail members stored before codes existed, reading them whole", async () => {
    await inFreshObject(async (sql) => {
      const records = sentenceRecords(chatSentences(3000, 1));
      await writeInBatches(listed(sql), records);
      // As rows written before the code column was: in a tail, without a code.
      const uncoded = sql
        .exec<{ id: string }>("UPDATE vector_index SET code = NULL WHERE packed = 0 RETURNING id")
        .toArray()
        .map((row) => row.id);
      expect(uncoded.length).toBeGreaterThan(100);
      const everyList = listed(sql, { probes: 1_000_000 });
      for (const probe of probeVectors(5)) {
        for (const topK of [1, 10, 100]) {
          const options = { topK, namespace: NAMESPACE };
          expect(await everyList.query(probe, options)).toEqual(await exactOver(sql).query(probe, options));
        }
      }
      const byId = new Map(records.map((r) => [r.id, r]));
      // Each is found by its own vector (among the copies of its sentence, which tie with it).
      for (const id of uncoded.filter((_, i) => i % 20 === 0)) {
        const found = await listed(sql).query((byId.get(id) as VectorRecord).values, {
          topK: 10,
          namespace: NAMESPACE,
        });
        expect(found.map((m) => m.id)).toContain(id);
      }
    });
  });

  it("answers a namespace at or below the bound exactly, though it has lists", async () => {
    await inFreshObject(async (sql) => {
      await writeInBatches(listed(sql), sentenceRecords(chatSentences(LISTS.approximateAbove, 1)));
      expect(
        sql.exec<{ n: number }>("SELECT count(*) AS n FROM vector_index_centroids").one().n,
      ).toBeGreaterThan(1);
      for (const probe of probeVectors(5)) {
        for (const topK of [1, 10, 100]) {
          const options = { topK, namespace: NAMESPACE };
          expect(await listed(sql).query(probe, options)).toEqual(await exactOver(sql).query(probe, options));
        }
      }
    });
  });

  it("answers a filtered query of a large namespace exactly, over the rows the filter keeps", async () => {
    await inFreshObject(async (sql) => {
      const records = sentenceRecords(chatSentences(2000, 1));
      await writeInBatches(listed(sql), records);
      for (const probe of probeVectors(5)) {
        const expected = records
          .filter((r) => r.metadata.kind === "decision")
          .map((r) => ({ id: r.id, score: cosine(probe, r.values) }))
          .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
          .slice(0, 20);
        const answer: VectorMatch[] = await listed(sql).query(probe, {
          topK: 20,
          namespace: NAMESPACE,
          filter: { kind: "decision" },
        });
        expect(answer.map((m) => m.id)).toEqual(expected.map((m) => m.id));
        for (const [i, m] of answer.entries()) expect(m.score).toBeCloseTo(expected[i]?.score as number, 5);
        expect(answer.every((m) => m.metadata.kind === "decision")).toBe(true);
      }
    });
  });

  it("builds the same lists and gives the same answers in two objects given the same writes", async () => {
    const build = () =>
      inFreshObject(async (sql) => {
        await writeInBatches(listed(sql), sentenceRecords(chatSentences(1500, 1)));
        const centroids = sql
          .exec<{ list: number; centroid: ArrayBuffer }>(
            "SELECT list, centroid FROM vector_index_centroids ORDER BY list",
          )
          .toArray()
          .map((row) => [row.list, Array.from(new Uint8Array(row.centroid))]);
        const answers = [];
        for (const probe of probeVectors(5))
          answers.push(await listed(sql).query(probe, { topK: 10, namespace: NAMESPACE }));
        return { centroids, answers };
      });
    const [first, second] = [await build(), await build()];
    expect(first.centroids.length).toBeGreaterThan(1);
    expect(second).toEqual(first);
  });
});

/**
 * The lists stay a faithful index of the rows through every kind of write: searched with every list
 * probed, the approximate path must find exactly what exact search finds (the same ids, scores and
 * metadata), which fails for any vector missing from its list, any stale pack entry used, any row
 * assigned to no list and never read.
 */
async function expectListsFaithful(sql: SqlStorage): Promise<void> {
  const everyList = listed(sql, { probes: 1_000_000 });
  const exact = exactOver(sql);
  for (const probe of [...probeVectors(4), embed("Can you remind me to book the dentist on Friday?")]) {
    for (const topK of [1, 10, 100]) {
      const options = { topK, namespace: NAMESPACE };
      expect(await everyList.query(probe, options)).toEqual(await exact.query(probe, options));
    }
  }
  // Every row marked packed is in its list's pack.
  const packs = new Map(
    sql
      .exec<{ list: number; ids: string }>(
        "SELECT list, ids FROM vector_index_packs WHERE namespace = ?",
        NAMESPACE,
      )
      .toArray()
      .map((row) => [row.list, new Set(JSON.parse(row.ids) as string[])]),
  );
  const packed = sql
    .exec<{ id: string; list: number }>("SELECT id, list FROM vector_index WHERE packed = 1")
    .toArray();
  expect(packed.filter((row) => !packs.get(row.list)?.has(row.id))).toEqual([]);
  // Every member of a list's tail keeps the code of its current values, and no packed member keeps one.
  const placed = sql
    .exec<{ id: string; vec: ArrayBuffer; norm: number; packed: number; code: ArrayBuffer | null }>(
      "SELECT id, vec, norm, packed, code FROM vector_index WHERE namespace = ? AND list IS NOT NULL",
      NAMESPACE,
    )
    .toArray();
  const dims = (row: { vec: ArrayBuffer }) => row.vec.byteLength / 4;
  const ownCode = (row: (typeof placed)[number]) =>
    bytesOf(codeOf(floats(row.vec, dims(row), row.id), row.norm, dims(row)));
  expect(placed.filter((row) => row.packed === 1 && row.code !== null).map((row) => row.id)).toEqual([]);
  expect(
    placed
      .filter((row) => row.packed === 0 && (row.code === null || bytesOf(row.code) !== ownCode(row)))
      .map((row) => row.id),
  ).toEqual([]);
}

const bytesOf = (buffer: ArrayBuffer) => Array.from(new Uint8Array(buffer)).join();

const stamp = (sql: SqlStorage) =>
  sql.exec<{ stamp: number }>("SELECT stamp FROM vector_index_layouts WHERE namespace = ?", NAMESPACE).one()
    .stamp;
const centroids = (sql: SqlStorage) =>
  sql
    .exec<{ list: number; centroid: ArrayBuffer }>(
      "SELECT list, centroid FROM vector_index_centroids ORDER BY list",
    )
    .toArray()
    .map((row) => ({ list: row.list, bytes: Array.from(new Uint8Array(row.centroid)) }));
const unassigned = (sql: SqlStorage) =>
  sql.exec<{ n: number }>("SELECT count(*) AS n FROM vector_index WHERE list IS NULL").one().n;

/** The records' ids written again with other sentences' vectors. */
const rewritten = (records: VectorRecord[], seed: number): VectorRecord[] =>
  chatSentences(records.length, seed).map((text, i) => ({
    ...(records[i] as VectorRecord),
    values: embed(text),
  }));

describe("inverted lists kept consistent with the rows", () => {
  it("through new vectors, vectors written again, deletions and ids written after deletion", async () => {
    await inFreshObject(async (sql) => {
      const index = listed(sql);
      const records = sentenceRecords(chatSentences(2000, 1));
      await writeInBatches(index, records);
      expect(unassigned(sql)).toBe(0);
      await expectListsFaithful(sql);

      // Written again: each moves to the list of its new vector or stays, and leaves a stale entry.
      await writeInBatches(index, rewritten(records.slice(0, 400), 7));
      await expectListsFaithful(sql);

      const deleted = records.slice(300, 600).map((r) => r.id);
      await index.deleteByIds(NAMESPACE, deleted);
      await expectListsFaithful(sql);
      const everyList = listed(sql, { probes: 1_000_000 });
      const gone = new Set(deleted);
      for (const record of records.slice(300, 600).filter((_, i) => i % 30 === 0)) {
        const matches = await everyList.query(record.values, { topK: 100, namespace: NAMESPACE });
        expect(matches.filter((m) => gone.has(m.id))).toEqual([]);
      }

      // Deleted ids written again, and enough new vectors to split lists and pack tails again.
      await writeInBatches(index, [
        ...rewritten(records.slice(300, 350), 8),
        ...sentenceRecords(chatSentences(1500, 9), 2000),
      ]);
      expect(unassigned(sql)).toBe(0);
      await expectListsFaithful(sql);
      // Each vector written is its own nearest neighbour through the lists the index actually probes.
      for (const record of rewritten(records.slice(300, 350), 8).filter((_, i) => i % 10 === 0)) {
        const [best] = await listed(sql).query(record.values, { topK: 1, namespace: NAMESPACE });
        expect(best?.score).toBeCloseTo(1, 5);
      }
    });
  });

  it("is reused as stored by a new instance, and one instance's splits are seen by another", async () => {
    await inFreshObject(async (sql) => {
      const first = listed(sql);
      await writeInBatches(first, sentenceRecords(chatSentences(2000, 1)));
      const before = { stamp: stamp(sql), centroids: centroids(sql) };
      const probes = probeVectors(5);
      const answers = [];
      for (const probe of probes) answers.push(await first.query(probe, { topK: 10, namespace: NAMESPACE }));

      // A restarted object: a new instance over the same storage answers alike and trains nothing.
      const restarted = listed(sql);
      for (const [i, probe] of probes.entries()) {
        expect(await restarted.query(probe, { topK: 10, namespace: NAMESPACE })).toEqual(answers[i]);
      }
      expect({ stamp: stamp(sql), centroids: centroids(sql) }).toEqual(before);

      // Enough writes through the new instance to split lists; the first one, holding the old centroids,
      // then writes too and must assign with the new ones.
      await writeInBatches(restarted, sentenceRecords(chatSentences(1000, 3), 2000));
      const after = centroids(sql);
      expect(after.length).toBeGreaterThan(before.centroids.length);
      const kept = before.centroids.filter((c) =>
        after.some((a) => a.list === c.list && a.bytes.join() === c.bytes.join()),
      );
      // Only split lists changed centroids; the rest are the trained ones, not retrained.
      expect(kept.length).toBeGreaterThan(before.centroids.length / 2);
      await writeInBatches(first, sentenceRecords(chatSentences(300, 4), 3000));
      const lists = new Set(centroids(sql).map((c) => c.list));
      const placed = sql.exec<{ list: number }>("SELECT DISTINCT list FROM vector_index").toArray();
      expect(placed.filter((row) => !lists.has(row.list))).toEqual([]);
      await expectListsFaithful(sql);
    });
  });

  it("stores its layout a part a turn when told, read by no cold instance before its last", async () => {
    await inFreshObject(async (sql) => {
      const writer = listed(sql);
      await writeInBatches(writer, sentenceRecords(chatSentences(2000, 1)));
      const probe = probeVectors(1)[0] as number[];
      const options = { topK: 10, namespace: NAMESPACE };
      const expected = await listed(sql).query(probe, options);
      const centroidReads = (statements: { query: string }[]) =>
        statements.filter((s) => s.query.includes("FROM vector_index_centroids"));
      const coldReads = async () => {
        const { sql: watched, statements } = recordedSql(sql);
        expect(await listed(watched).query(probe, options)).toEqual(expected);
        return centroidReads(statements).length;
      };
      // Two streams (the centroids and the list numbers), a part each: a turn of one byte writes one.
      expect(writer.snapshotTurn(1)).toEqual({ stored: 0, more: true });
      expect(writer.snapshotUnderway()).toBe(true);
      expect(await coldReads()).toBeGreaterThan(0);
      expect(writer.snapshotTurn(1)).toEqual({ stored: 1, more: false });
      expect(writer.snapshotUnderway()).toBe(false);
      expect(await coldReads()).toBe(0);
    });
  });

  it("stores its layout whole for a cold instance, which then reads no centroid row, until a split", async () => {
    await inFreshObject(async (sql) => {
      const writer = listed(sql);
      await writeInBatches(writer, sentenceRecords(chatSentences(2000, 1)));
      const probes = probeVectors(5);
      const options = { topK: 10, namespace: NAMESPACE };
      const fromCentroids = [];
      for (const probe of probes) fromCentroids.push(await listed(sql).query(probe, options));
      expect(writer.snapshotStale()).toBe(1);
      expect(writer.snapshotStale()).toBe(0);

      const centroidReads = (statements: { query: string }[]) =>
        statements.filter((s) => s.query.includes("FROM vector_index_centroids"));
      const { sql: watched, statements } = recordedSql(sql);
      const cold = listed(watched);
      for (const [i, probe] of probes.entries())
        expect(await cold.query(probe, options)).toEqual(fromCentroids[i]);
      expect(centroidReads(statements)).toEqual([]);
      expect(statements.some((s) => s.query.includes("FROM vector_layout_parts"))).toBe(true);
      // Its writes assign with the layout it read: each new vector to its nearest centroid, as one read
      // from the centroids' rows would (no split meanwhile: the layout is the one stored).
      const layoutBefore = stamp(sql);
      const written = sentenceRecords(chatSentences(3, 5), 2000);
      await writeInBatches(cold, written);
      expect(stamp(sql)).toBe(layoutBefore);
      const fromRows = layoutOf(layoutBefore, readCentroids(sql, NAMESPACE));
      for (const record of written) {
        const { list } = sql
          .exec<{ list: number }>(
            "SELECT list FROM vector_index WHERE namespace = ? AND id = ?",
            NAMESPACE,
            record.id,
          )
          .one();
        expect(list).toBe(listFor(fromRows, sparse(record.values)));
      }
      await expectListsFaithful(sql);

      // Writes that split lists set a new stamp: the stored layout is stale, and a cold instance reads
      // the centroids again, the new ones.
      const before = stamp(sql);
      await writeInBatches(writer, sentenceRecords(chatSentences(1000, 3), 3000));
      expect(stamp(sql)).not.toBe(before);
      const { sql: watchedAgain, statements: again } = recordedSql(sql);
      const later = listed(watchedAgain);
      const answer = await later.query(probes[0] as number[], options);
      expect(centroidReads(again)).not.toEqual([]);
      expect(answer).toEqual(await listed(sql).query(probes[0] as number[], options));
      expect(writer.snapshotStale()).toBe(1);

      // A namespace that shrinks back to exact search keeps no layout snapshot: none would be read.
      const every = sql
        .exec<{ id: string }>("SELECT id FROM vector_index WHERE namespace = ? ORDER BY id", NAMESPACE)
        .toArray()
        .map((row) => row.id);
      await writer.deleteByIds(NAMESPACE, every.slice(LISTS.approximateAbove - 10));
      expect(writer.snapshotStale()).toBe(1);
      expect(sql.exec<{ n: number }>("SELECT count(*) AS n FROM vector_layout_heads").one().n).toBe(0);
      expect(sql.exec<{ n: number }>("SELECT count(*) AS n FROM vector_layout_parts").one().n).toBe(0);
      await writeInBatches(writer, sentenceRecords(chatSentences(200, 7), 5000));
      expect(writer.snapshotStale()).toBe(1);

      // Lists dropped (every vector deleted): the layout's snapshot goes with them.
      const ids = sql
        .exec<{ id: string }>("SELECT id FROM vector_index WHERE namespace = ?", NAMESPACE)
        .toArray()
        .map((row) => row.id);
      await writer.deleteByIds(NAMESPACE, ids);
      await writeInBatches(
        writer,
        sentenceRecords(chatSentences(10, 6), 9000).map((r) => ({ ...r, values: r.values.slice(0, 16) })),
      );
      expect(sql.exec<{ n: number }>("SELECT count(*) AS n FROM vector_layout_parts").one().n).toBe(0);
      expect(sql.exec<{ n: number }>("SELECT count(*) AS n FROM vector_layout_heads").one().n).toBe(0);
    });
  });

  it("never assigns with centroids whose write was rolled back", async () => {
    await inFreshObject(async (sql, storage) => {
      const index = listed(sql);
      await writeInBatches(index, sentenceRecords(chatSentences(2000, 1)));
      const before = centroids(sql);
      expect(() =>
        storage.transactionSync(() => {
          // Enough new vectors to split lists: the instance holds the split centroids, storage will not.
          void index.upsert(sentenceRecords(chatSentences(600, 3), 2000));
          throw new Error("abort");
        }),
      ).toThrow("abort");
      expect(centroids(sql)).toEqual(before);
      await writeInBatches(index, sentenceRecords(chatSentences(300, 4), 3000));
      await expectListsFaithful(sql);
    });
  });

  it("migrates a table stored before lists existed, assigning its rows a chunk per write", async () => {
    await inFreshObject(async (sql) => {
      // The schema as it was (the object's constructor made today's), with 2,500 vectors in it.
      sql.exec("DROP TABLE vector_index");
      sql.exec(`CREATE TABLE vector_index (
        namespace TEXT NOT NULL, id TEXT NOT NULL, dims INTEGER NOT NULL, vec BLOB NOT NULL,
        norm REAL NOT NULL, metadata TEXT NOT NULL, PRIMARY KEY (namespace, id))`);
      const legacy = sentenceRecords(chatSentences(2500, 1));
      for (const record of legacy) {
        const values = Float32Array.from(record.values);
        const norm = Math.hypot(...values);
        sql.exec(
          "INSERT INTO vector_index VALUES (?, ?, ?, ?, ?, ?)",
          record.namespace,
          record.id,
          values.length,
          values.buffer,
          norm,
          JSON.stringify(record.metadata),
        );
      }
      const index = listed(sql);
      const columns = sql
        .exec<{ name: string }>("PRAGMA table_info(vector_index)")
        .toArray()
        .map((c) => c.name);
      expect(columns).toEqual(expect.arrayContaining(["list", "packed"]));
      expect(unassigned(sql)).toBe(2500);

      // The first write trains; each later one assigns up to 1,000 rows; queries stay exact meanwhile.
      const fresh = sentenceRecords(chatSentences(300, 5), 2500);
      for (let i = 0; i < 3; i++) {
        await index.upsert(fresh.slice(i * 100, (i + 1) * 100));
        await expectListsFaithful(sql);
      }
      await index.upsert(sentenceRecords(chatSentences(1, 6), 2800));
      expect(unassigned(sql)).toBe(0);
      await expectListsFaithful(sql);
    });
  });

  it("drops lists of another dimension once the old vectors are gone, and trains anew", async () => {
    await inFreshObject(async (sql) => {
      const index = listed(sql);
      const records = sentenceRecords(chatSentences(LISTS.trainAt + 100, 1));
      await writeInBatches(index, records);
      await index.deleteByIds(
        NAMESPACE,
        records.map((r) => r.id),
      );
      const small = records.map((r) => ({ ...r, values: r.values.slice(0, 16) }));
      await writeInBatches(index, small);
      const stored = centroids(sql);
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.every((c) => c.bytes.length === 16 * 4)).toBe(true);
      const probe = (small[0] as VectorRecord).values;
      const options = { topK: 10, namespace: NAMESPACE };
      expect(await listed(sql, { approximateAbove: 1, probes: 1_000_000 }).query(probe, options)).toEqual(
        await exactOver(sql).query(probe, options),
      );
    });
  });
});
