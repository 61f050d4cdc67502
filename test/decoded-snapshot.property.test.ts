import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SqliteVectorIndex } from "../src/adapters/sqlite-vector-index/sqlite-vector-index";
import { readsEveryVector, recordedSql } from "./support/recorded-sql";

/**
 * A namespace's stored snapshot (src/adapters/sqlite-vector-index/decoded-snapshot.ts) with the ids
 * noted since stands for the namespace after any later writes: an instance started cold, whether its
 * first call is a query or a write, must answer exactly as a scan of the stored rows does, whatever
 * upserts, deletions and snapshot stores came before, in whatever order.
 */

const DIMS = 5;

const vector = fc.array(fc.float({ min: -1, max: 1, noNaN: true, noDefaultInfinity: true }), {
  minLength: DIMS,
  maxLength: DIMS,
});

/**
 * One step: a batch upserted, ids deleted, the snapshot stored when due (all at once, or one turn of a
 * part at a time: its three streams are a part each here, so a store takes turns with other steps
 * between them), or the writer restarted (a store it left half done is staged again by the next one).
 */
const step = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("upsert" as const),
      batch: fc.array(fc.record({ id: fc.integer({ min: 0, max: 30 }), values: vector }), {
        minLength: 1,
        maxLength: 12,
      }),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("delete" as const),
      ids: fc.array(fc.integer({ min: 0, max: 34 }), { minLength: 1, maxLength: 6 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.constant({ kind: "snapshot" as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: "turn" as const }), weight: 5 },
  { arbitrary: fc.constant({ kind: "restart" as const }), weight: 1 },
);

const PROBES = [
  [1, 0, 0, 0, 0],
  [0.3, -0.7, 0.2, 0.5, -0.1],
  [-0.2, 0.1, 0.9, -0.4, 0.3],
];

describe("the decoded snapshot and the ids noted since", () => {
  it("answer a cold instance's query, or its first write, exactly as the stored rows do", async () => {
    const stub = env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID()));
    await runInDurableObject(stub, async (_object, state) => {
      const sql = state.storage.sql;
      // Cases whose cold query read the snapshot and noted rows, not every row: the path under test.
      let fromNotes = 0;
      // Snapshots stored in turns with a write between two of them: the path staging adds.
      let writtenWhileStaged = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), vector, async (steps, last) => {
          // Each case on empty storage: the index's tables are made again by its constructor.
          await state.storage.deleteAll();
          const namespace = "t";
          const writerOf = () => new SqliteVectorIndex(sql, { decodeOnWrite: true });
          let writer = writerOf();
          let writesWhileStaged = 0;
          for (const s of steps) {
            if ((s.kind === "upsert" || s.kind === "delete") && writer.snapshotUnderway())
              writesWhileStaged++;
            if (s.kind === "upsert") {
              await writer.upsert(
                s.batch.map(({ id, values }) => ({
                  id: `v${id}`,
                  namespace,
                  values: values.map((v, d) => v + (d === id % DIMS ? 1 : 0)),
                  metadata: { all: "1" },
                })),
              );
            } else if (s.kind === "delete") {
              await writer.deleteByIds(
                namespace,
                s.ids.map((id) => `v${id}`),
              );
            } else if (s.kind === "snapshot") {
              writer.snapshotStale();
              writesWhileStaged = 0;
            } else if (s.kind === "turn") {
              const { stored } = writer.snapshotTurn(1);
              if (stored > 0 && writesWhileStaged > 0) writtenWhileStaged++;
              if (!writer.snapshotUnderway()) writesWhileStaged = 0;
            } else {
              writer = writerOf();
            }
          }
          const exact = async (probe: number[]) =>
            new SqliteVectorIndex(sql).query(probe, { topK: 40, namespace, filter: { all: "1" } });
          const noted = sql.exec<{ n: number }>("SELECT count(*) AS n FROM vector_snapshot_changes").one().n;
          const { sql: watched, statements } = recordedSql(sql);
          const cold = new SqliteVectorIndex(watched);
          for (const probe of PROBES) {
            expect(await cold.query(probe, { topK: 40, namespace })).toEqual(await exact(probe));
          }
          const everyRow = statements.some(readsEveryVector);
          if (noted > 0 && !everyRow) fromNotes++;
          // A cold instance whose first call is a write decodes with that write in it.
          const coldWriter = writerOf();
          await coldWriter.upsert([
            { id: "v99", namespace, values: last.map((v) => v + 0.5), metadata: { all: "1" } },
          ]);
          for (const probe of PROBES) {
            const answered = await coldWriter.query(probe, { topK: 40, namespace });
            expect(answered).toEqual(await exact(probe));
          }
        }),
        { numRuns: 300 },
      );
      expect(fromNotes).toBeGreaterThan(15);
      expect(writtenWhileStaged).toBeGreaterThan(5);
    });
  });
});
