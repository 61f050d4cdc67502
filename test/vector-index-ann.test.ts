import { describe, expect, it } from "vitest";
import type { VectorMatch } from "../src/ports/vector-index";
import {
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

/** The SQL an index runs, statement by statement, over the object's storage. */
function recorded(sql: SqlStorage): { sql: SqlStorage; statements: string[] } {
  const statements: string[] = [];
  const exec = (query: string, ...bindings: unknown[]) => {
    statements.push(query);
    return sql.exec(query, ...bindings);
  };
  return { sql: { exec } as unknown as SqlStorage, statements };
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
      const { sql: watched, statements } = recorded(sql);
      const approximate = listed(watched);
      const exact = exactOver(sql);
      const recalls: number[] = [];
      for (const probe of probeVectors(40)) {
        statements.length = 0;
        const answer = await approximate.query(probe, { topK: 10, namespace: NAMESPACE });
        // Approximate: a few lists' packs read, never every row of the namespace.
        const packsRead = statements.filter((s) => s.includes("FROM vector_index_packs")).length;
        expect(packsRead).toBeLessThanOrEqual(LISTS.probes);
        expect(statements.some((s) => /FROM vector_index WHERE namespace = \?$/.test(s.trim()))).toBe(false);
        recalls.push(recallAt(10, answer, await exact.query(probe, { topK: 10, namespace: NAMESPACE })));
      }
      const mean = recalls.reduce((sum, r) => sum + r, 0) / recalls.length;
      expect(mean).toBeGreaterThanOrEqual(0.9);
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
