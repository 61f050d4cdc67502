import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { HashingEmbedder } from "../src/adapters/hashing-embedder";
import { SqliteVectorIndex } from "../src/adapters/sqlite-vector-index/sqlite-vector-index";
import { ORIGINAL_ID_KEY, VectorizeVectorIndex, vectorId } from "../src/adapters/vectorize-index";
import {
  VectorDimensionError,
  type VectorIndex,
  VectorIndexInputError,
  type VectorRecord,
} from "../src/ports/vector-index";
import { InMemoryVectorize } from "./support/in-memory-vectorize";
import { readsEveryVector, readsVectors, recordedSql, type Statement } from "./support/recorded-sql";

/**
 * A fresh, empty index. `use` may be called several times: each call sees what the previous ones
 * wrote (for the SQLite index, each call is a separate request into the same Durable Object).
 */
interface IndexHandle {
  use<T>(body: (index: VectorIndex) => Promise<T>): Promise<T>;
}

const record = (
  id: string,
  values: number[],
  metadata: Record<string, string> = {},
  namespace = "thread-a",
): VectorRecord => ({ id, namespace, values, metadata });

const ids = (matches: { id: string }[]) => matches.map((m) => m.id);

/** The behaviour every VectorIndex adapter must show; vectors here are 4-dimensional. */
function runVectorIndexContract(name: string, makeIndex: () => IndexHandle): void {
  describe(`VectorIndex contract: ${name}`, () => {
    it("returns the nearest first, scored by cosine similarity, with metadata", async () => {
      const index = makeIndex();
      await index.use((i) =>
        i.upsert([
          record("far", [-1, 0, 0, 0], { type_tag: "risk" }),
          record("same", [2, 0, 0, 0], { type_tag: "decision" }),
          record("orthogonal", [0, 0, 3, 0], { type_tag: "action" }),
          record("near", [0.8, 0.6, 0, 0], { type_tag: "decision" }),
        ]),
      );
      const matches = await index.use((i) => i.query([1, 0, 0, 0], { topK: 4, namespace: "thread-a" }));
      expect(ids(matches)).toEqual(["same", "near", "orthogonal", "far"]);
      const scores = matches.map((m) => m.score);
      for (const [actual, expected] of scores.map((s, k) => [s, [1, 0.8, 0, -1][k]])) {
        expect(actual).toBeCloseTo(expected as number, 5);
      }
      expect(matches[0]?.metadata).toEqual({ type_tag: "decision" });
      expect(matches[3]?.metadata).toEqual({ type_tag: "risk" });
    });

    it("respects topK", async () => {
      const index = makeIndex();
      await index.use((i) =>
        i.upsert([0, 1, 2, 3, 4].map((k) => record(`v${k}`, [1, k / 4, 0, 0], { rank: String(k) }))),
      );
      await index.use(async (i) => {
        expect(ids(await i.query([1, 0, 0, 0], { topK: 2, namespace: "thread-a" }))).toEqual(["v0", "v1"]);
        expect(await i.query([1, 0, 0, 0], { topK: 1, namespace: "thread-a" })).toHaveLength(1);
        expect(await i.query([1, 0, 0, 0], { topK: 50, namespace: "thread-a" })).toHaveLength(5);
      });
    });

    it("leaves out matches below minScore, the topK best of the rest first, filter or not", async () => {
      const index = makeIndex();
      await index.use((i) =>
        i.upsert(
          [0, 1, 2, 3, 4].map((k) =>
            record(`v${k}`, [1, k / 2, 0, 0], { type_tag: k % 2 === 0 ? "even" : "odd" }),
          ),
        ),
      );
      await index.use(async (i) => {
        // Cosines with [1, 0, 0, 0]: 1, 0.894, 0.707, 0.555, 0.447.
        const query = (minScore: number, topK = 5, filter?: Record<string, string>) =>
          i.query([1, 0, 0, 0], { topK, namespace: "thread-a", minScore, ...(filter ? { filter } : {}) });
        expect(ids(await query(0.7))).toEqual(["v0", "v1", "v2"]);
        expect(ids(await query(0.7, 2))).toEqual(["v0", "v1"]);
        expect(ids(await query(-1))).toEqual(["v0", "v1", "v2", "v3", "v4"]);
        expect(await query(1.5)).toEqual([]);
        expect(ids(await query(0.5, 5, { type_tag: "even" }))).toEqual(["v0", "v2"]);
        await expect(query(Number.NaN)).rejects.toBeInstanceOf(VectorIndexInputError);
      });
    });

    it("answers a topK above 20 with every match's metadata", async () => {
      const index = makeIndex();
      const many = Array.from({ length: 30 }, (_, k) =>
        record(`item-${String(k).padStart(2, "0")}`, [1, k / 30, (k % 3) / 10, 0], { n: String(k) }),
      );
      await index.use((i) => i.upsert(many));
      const matches = await index.use((i) => i.query([1, 0, 0, 0], { topK: 25, namespace: "thread-a" }));
      expect(matches).toHaveLength(25);
      expect(matches.every((m) => m.metadata.n === String(Number(m.id.slice(5))))).toBe(true);
      const scores = matches.map((m) => m.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    });

    it("never answers from another namespace, even for identical vectors and ids", async () => {
      const index = makeIndex();
      await index.use((i) =>
        i.upsert([
          record("shared-id", [1, 0, 0, 0], { owner: "a" }, "thread-a"),
          record("shared-id", [1, 0, 0, 0], { owner: "b" }, "thread-b"),
          record("only-b", [1, 0, 0, 0], { owner: "b" }, "thread-b"),
        ]),
      );
      await index.use(async (i) => {
        const inA = await i.query([1, 0, 0, 0], { topK: 10, namespace: "thread-a" });
        expect(inA).toEqual([{ id: "shared-id", score: expect.closeTo(1, 5), metadata: { owner: "a" } }]);
        const inB = await i.query([1, 0, 0, 0], { topK: 10, namespace: "thread-b" });
        expect(ids(inB).sort()).toEqual(["only-b", "shared-id"]);
        expect(inB.every((m) => m.metadata.owner === "b")).toBe(true);
        expect(await i.query([1, 0, 0, 0], { topK: 10, namespace: "thread-c" })).toEqual([]);
      });
      // Deleting in one namespace leaves the other's record of the same id alone.
      await index.use((i) => i.deleteByIds("thread-a", ["shared-id"]));
      await index.use(async (i) => {
        expect(await i.query([1, 0, 0, 0], { topK: 10, namespace: "thread-a" })).toEqual([]);
        expect(ids(await i.query([1, 0, 0, 0], { topK: 10, namespace: "thread-b" })).sort()).toEqual([
          "only-b",
          "shared-id",
        ]);
      });
    });

    it("keeps long ids and long namespaces with any characters apart", async () => {
      const index = makeIndex();
      const longNamespace = `tenant:acme/thread:${"x".repeat(100)}`;
      const longId = `item:${"é".repeat(60)}`;
      await index.use((i) =>
        i.upsert([
          record(longId, [1, 0, 0, 0], { n: "1" }, longNamespace),
          record("b:c", [1, 0, 0, 0], { n: "2" }, "a"),
          record("c", [1, 0, 0, 0], { n: "3" }, "a:b"),
        ]),
      );
      await index.use(async (i) => {
        expect(await i.query([1, 0, 0, 0], { topK: 5, namespace: longNamespace })).toEqual([
          { id: longId, score: expect.closeTo(1, 5), metadata: { n: "1" } },
        ]);
        expect(await i.query([1, 0, 0, 0], { topK: 5, namespace: "a" })).toEqual([
          { id: "b:c", score: expect.closeTo(1, 5), metadata: { n: "2" } },
        ]);
        expect(await i.query([1, 0, 0, 0], { topK: 5, namespace: "a:b" })).toEqual([
          { id: "c", score: expect.closeTo(1, 5), metadata: { n: "3" } },
        ]);
      });
      await index.use((i) => i.deleteByIds(longNamespace, [longId]));
      expect(await index.use((i) => i.query([1, 0, 0, 0], { topK: 5, namespace: longNamespace }))).toEqual(
        [],
      );
    });

    it("filters on metadata by equality, every field at once", async () => {
      const index = makeIndex();
      await index.use((i) =>
        i.upsert([
          record("d-active", [1, 0, 0, 0], { type_tag: "decision", status: "active" }),
          record("d-superseded", [1, 0.1, 0, 0], { type_tag: "decision", status: "superseded" }),
          record("a-active", [1, 0.2, 0, 0], { type_tag: "action", status: "active" }),
          record("untagged", [1, 0, 0, 0]),
        ]),
      );
      await index.use(async (i) => {
        const q = (filter: Record<string, string>) =>
          i.query([1, 0, 0, 0], { topK: 10, namespace: "thread-a", filter });
        expect(ids(await q({ type_tag: "decision" }))).toEqual(["d-active", "d-superseded"]);
        expect(ids(await q({ status: "active" }))).toEqual(["d-active", "a-active"]);
        expect(ids(await q({ type_tag: "decision", status: "active" }))).toEqual(["d-active"]);
        expect(await q({ type_tag: "risk" })).toEqual([]);
        expect(await q({ type_tag: "decision", status: "closed" })).toEqual([]);
        expect(ids(await q({}))).toHaveLength(4);
      });
    });

    it("applies the filter before topK", async () => {
      const index = makeIndex();
      await index.use((i) =>
        i.upsert([
          ...[0, 1, 2, 3, 4].map((k) => record(`noise-${k}`, [1, k / 100, 0, 0], { type_tag: "action" })),
          record("wanted", [0, 1, 0, 0], { type_tag: "decision" }),
        ]),
      );
      const matches = await index.use((i) =>
        i.query([1, 0, 0, 0], { topK: 2, namespace: "thread-a", filter: { type_tag: "decision" } }),
      );
      expect(ids(matches)).toEqual(["wanted"]);
    });

    it("replaces a record in full on upsert of the same id", async () => {
      const index = makeIndex();
      await index.use((i) =>
        i.upsert([record("x", [1, 0, 0, 0], { type_tag: "decision", status: "active" })]),
      );
      await index.use((i) => i.upsert([record("x", [0, 1, 0, 0], { type_tag: "risk" })]));
      await index.use(async (i) => {
        const matches = await i.query([0, 1, 0, 0], { topK: 10, namespace: "thread-a" });
        expect(matches).toEqual([{ id: "x", score: expect.closeTo(1, 5), metadata: { type_tag: "risk" } }]);
        expect(
          await i.query([1, 0, 0, 0], { topK: 10, namespace: "thread-a", filter: { status: "active" } }),
        ).toEqual([]);
      });
    });

    it("removes records with deleteByIds and ignores unknown ids", async () => {
      const index = makeIndex();
      await index.use((i) =>
        i.upsert([
          record("keep", [1, 0, 0, 0]),
          record("drop-1", [1, 0, 0, 0]),
          record("drop-2", [0, 1, 0, 0]),
        ]),
      );
      await index.use((i) => i.deleteByIds("thread-a", ["drop-1", "drop-2", "never-stored"]));
      await index.use(async (i) => {
        expect(ids(await i.query([1, 0, 0, 0], { topK: 10, namespace: "thread-a" }))).toEqual(["keep"]);
        await i.deleteByIds("thread-a", []);
        await i.upsert([]);
      });
    });

    it("answers [] from an empty index", async () => {
      const index = makeIndex();
      expect(await index.use((i) => i.query([1, 0, 0, 0], { topK: 5, namespace: "thread-a" }))).toEqual([]);
      expect(
        await index.use((i) => i.query([1, 0, 0, 0], { topK: 5, namespace: "thread-a", filter: { a: "b" } })),
      ).toEqual([]);
    });

    it("rejects vectors and queries of another dimension, writing nothing", async () => {
      const index = makeIndex();
      await index.use((i) => i.upsert([record("four", [1, 0, 0, 0])]));
      await index.use(async (i) => {
        const upsert = i.upsert([record("ok", [0, 1, 0, 0]), record("three", [1, 0, 0])]);
        await expect(upsert).rejects.toBeInstanceOf(VectorDimensionError);
        await expect(upsert).rejects.toThrow(
          "vector 'three' has 3 dimensions; this index holds 4-dimensional",
        );
        const query = i.query([1, 0, 0, 0, 0], { topK: 1, namespace: "thread-a" });
        await expect(query).rejects.toBeInstanceOf(VectorDimensionError);
        await expect(query).rejects.toThrow("query vector has 5 dimensions; this index holds 4-dimensional");
      });
      expect(ids(await index.use((i) => i.query([0, 1, 0, 0], { topK: 5, namespace: "thread-a" })))).toEqual([
        "four",
      ]);
    });

    it("rejects a topK outside 1 to 100 and non-finite values", async () => {
      const index = makeIndex();
      await index.use(async (i) => {
        for (const topK of [0, -1, 1.5, 101]) {
          await expect(i.query([1, 0, 0, 0], { topK, namespace: "thread-a" })).rejects.toBeInstanceOf(
            VectorIndexInputError,
          );
        }
        await expect(i.upsert([record("nan", [Number.NaN, 0, 0, 0])])).rejects.toBeInstanceOf(
          VectorIndexInputError,
        );
      });
    });
  });
}

let objects = 0;

runVectorIndexContract("SqliteVectorIndex in a ThreadObject's storage", () => {
  const name = `vector-contract-${++objects}-${crypto.randomUUID()}`;
  const stub = env.THREADS.get(env.THREADS.idFromName(name));
  return {
    use: (body) =>
      runInDurableObject(stub, (_instance, state) => body(new SqliteVectorIndex(state.storage.sql))),
  };
});

runVectorIndexContract("VectorizeVectorIndex over an in-memory Vectorize", () => {
  const binding = new InMemoryVectorize({
    dimensions: 4,
    metric: "cosine",
    metadataIndexes: ["type_tag", "status", "owner", "n", "a"],
  });
  return { use: (body) => body(new VectorizeVectorIndex(binding)) };
});

/** 300 vectors written to namespace "t" 100 at a time, as a bulk import's are, then "v7" deleted. */
async function importInBatches(index: SqliteVectorIndex): Promise<void> {
  const vectors = Array.from({ length: 300 }, (_, i) =>
    record(`v${i}`, [Math.sin(i), Math.cos(i), (i % 7) - 3, 1], { k: "v" }, "t"),
  );
  for (let i = 0; i < vectors.length; i += 100) await index.upsert(vectors.slice(i, i + 100));
  await index.deleteByIds("t", ["v7"]);
}

/** `index` answers a query of "t" from the copy it holds, reading no vector, exactly as storage does. */
async function expectAnsweredFromCopy(
  index: SqliteVectorIndex,
  sql: SqlStorage,
  statements: Statement[],
  probe: number[],
): Promise<void> {
  statements.length = 0;
  const fromCopy = await index.query(probe, { topK: 10, namespace: "t" });
  expect(statements.filter((s) => /\bvec\b/.test(s.query))).toEqual([]);
  const fromStorage = await new SqliteVectorIndex(sql).query(probe, {
    topK: 10,
    namespace: "t",
    filter: { k: "v" },
  });
  expect(fromCopy).toEqual(fromStorage);
  expect(ids(fromCopy)).not.toContain("v7");
}

describe("SqliteVectorIndex specifics", () => {
  const inObject = <T>(body: (sql: SqlStorage) => T | Promise<T>) =>
    runInDurableObject(env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID())), (_i, state) =>
      body(state.storage.sql),
    );

  /** 4,000 vectors of 80 dimensions in namespace "big": a snapshot of two parts of columns, 1.3 MB. */
  const BIG_DIMS = 80;
  const writeBig = (writer: SqliteVectorIndex, seed: number) =>
    writer.upsert(
      Array.from({ length: 4_000 }, (_, i) =>
        record(
          `v${i}`,
          Array.from({ length: BIG_DIMS }, (_, d) => Math.sin(i * seed + d * 0.7)),
          { user: "" },
          "big",
        ),
      ),
    );

  /**
   * A cold instance's answer (from the namespace's snapshot when `fromSnapshot`, reading no vector's
   * row; from the rows when not) equals a scan of the stored rows.
   */
  const expectColdAnswer = async (
    sql: SqlStorage,
    probe: number[],
    namespace: string,
    fromSnapshot: boolean,
  ) => {
    const { sql: watched, statements } = recordedSql(sql);
    const cold = await new SqliteVectorIndex(watched).query(probe, { topK: 30, namespace });
    expect(statements.some(readsEveryVector)).toBe(!fromSnapshot);
    expect(cold).toEqual(
      await new SqliteVectorIndex(sql).query(probe, { topK: 30, namespace, filter: { user: "" } }),
    );
  };

  it("stores values as float32 bytes and creates its table idempotently", async () => {
    await inObject(async (sql) => {
      const index = new SqliteVectorIndex(sql);
      new SqliteVectorIndex(sql);
      await index.upsert([record("x", [0.1, 0.2, 0.3, 0.4], { k: "v" })]);
      const row = sql
        .exec<{ dims: number; vec: ArrayBuffer; metadata: string }>(
          "SELECT dims, vec, metadata FROM vector_index",
        )
        .one();
      expect(row.dims).toBe(4);
      expect(row.vec.byteLength).toBe(16);
      expect(Array.from(new Float32Array(row.vec))).toEqual([0.1, 0.2, 0.3, 0.4].map(Math.fround));
      expect(JSON.parse(row.metadata)).toEqual({ k: "v" });
    });
  });

  it("answers from its decoded copy exactly as from storage, and sees another instance's writes", async () => {
    await inObject(async (sql) => {
      const reader = new SqliteVectorIndex(sql);
      const writer = new SqliteVectorIndex(sql);
      const vectors = Array.from({ length: 30 }, (_, i) =>
        record(`v${i}`, [Math.sin(i), Math.cos(i), (i % 7) - 3, 1], { k: "v" }, "t"),
      );
      await writer.upsert(vectors);
      const probe = [0.3, -0.2, 0.9, 0.1];
      // A filter that matches every row takes the storage path; no filter takes the decoded copy.
      const fromStorage = await reader.query(probe, { topK: 10, namespace: "t", filter: { k: "v" } });
      const fromCopy = await reader.query(probe, { topK: 10, namespace: "t" });
      expect(fromCopy).toEqual(fromStorage);

      await writer.upsert([record("best", probe, { k: "v" }, "t")]);
      expect((await reader.query(probe, { topK: 1, namespace: "t" }))[0]?.id).toBe("best");
      await writer.deleteByIds("t", ["best"]);
      expect((await reader.query(probe, { topK: 10, namespace: "t" })).map((m) => m.id)).toEqual(
        fromStorage.map((m) => m.id),
      );
    });
  });

  it("with decodeOnWrite, holds the copy from its writes: the first query reads no vector, and answers as storage does", async () => {
    await inObject(async (sql) => {
      const { statements, sql: counted } = recordedSql(sql);
      const writer = new SqliteVectorIndex(counted, { decodeOnWrite: true });
      // Written in batches, as a bulk import's are: the first decodes, the rest keep the copy up.
      await importInBatches(writer);
      const probe = [0.3, -0.2, 0.9, 0.1];
      await expectAnsweredFromCopy(writer, sql, statements, probe);
      // Without the option, the first query decodes: it reads every vector.
      const plain = new SqliteVectorIndex(counted);
      await plain.upsert([record("w", probe, { k: "v" }, "u")]);
      statements.length = 0;
      await plain.query(probe, { topK: 1, namespace: "u" });
      expect(statements.filter((s) => /\bvec\b/.test(s.query))).not.toEqual([]);
    });
  });

  it("decodes on its writes a namespace it was asked about while empty: the next query reads no vector", async () => {
    await inObject(async (sql) => {
      const { statements, sql: counted } = recordedSql(sql);
      const index = new SqliteVectorIndex(counted);
      const probe = [0.3, -0.2, 0.9, 0.1];
      // Asked about before anything is stored (a thread compiled right after a bulk import).
      expect(await index.query(probe, { topK: 10, namespace: "t" })).toEqual([]);
      await index.upsert([record("other", probe, { k: "v" }, "u")]);
      await importInBatches(index);
      await expectAnsweredFromCopy(index, sql, statements, probe);
      // A namespace never asked about is not decoded by its writes: its first query reads the vectors.
      statements.length = 0;
      expect(ids(await index.query(probe, { topK: 1, namespace: "u" }))).toEqual(["other"]);
      expect(statements.filter((s) => /\bvec\b/.test(s.query))).not.toEqual([]);
      // Nor is one whose only query was refused (a vector of another dimension).
      await expect(index.query([1, 2, 3], { topK: 1, namespace: "w" })).rejects.toThrow(VectorDimensionError);
      await index.upsert([record("late", probe, { k: "v" }, "w")]);
      statements.length = 0;
      expect(ids(await index.query(probe, { topK: 1, namespace: "w" }))).toEqual(["late"]);
      expect(statements.filter((s) => /\bvec\b/.test(s.query))).not.toEqual([]);
    });
  });

  it("stores its decoded copy whole for a cold instance to read, and the ids written since beside it", async () => {
    await inObject(async (sql) => {
      const { statements, sql: counted } = recordedSql(sql);
      const vectorReads = () => statements.filter(readsVectors);
      const wholeReads = () => statements.filter(readsEveryVector);
      const writer = new SqliteVectorIndex(sql, { decodeOnWrite: true });
      const vectors = Array.from({ length: 300 }, (_, i) =>
        record(`v${i}`, [Math.sin(i), Math.cos(i), (i % 7) - 3, 1], { user: i % 3 ? "" : "bob" }, "t"),
      );
      for (let i = 0; i < vectors.length; i += 100) await writer.upsert(vectors.slice(i, i + 100));
      // Rows added and dropped since the copy was laid out are folded into what is stored.
      await writer.deleteByIds("t", ["v7"]);
      await writer.upsert([record("late", [0.2, 0.1, 0.5, 1], { user: "" }, "t")]);
      expect(writer.snapshotStale()).toBe(1);
      expect(writer.snapshotStale()).toBe(0);
      const noted = () => sql.exec("SELECT id FROM vector_snapshot_changes ORDER BY id").toArray();
      expect(noted()).toEqual([]);

      const probe = [0.3, -0.2, 0.9, 0.1];
      const fromRows = async (filter: Record<string, string>) =>
        new SqliteVectorIndex(sql).query(probe, { topK: 20, namespace: "t", filter });
      const exact = async (topK: number) =>
        [...(await fromRows({ user: "" })), ...(await fromRows({ user: "bob" }))]
          .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
          .slice(0, topK);
      const cold = new SqliteVectorIndex(counted);
      statements.length = 0;
      const fromSnapshot = await cold.query(probe, { topK: 20, namespace: "t" });
      expect(vectorReads()).toEqual([]);
      expect(fromSnapshot).toEqual(await exact(20));
      expect(ids(fromSnapshot)).not.toContain("v7");

      // Writes since note their ids: a cold instance reads the snapshot and those ids' rows alone (a
      // deleted one has none), and answers as storage does.
      await writer.upsert([record("best", probe, { user: "" }, "t")]);
      await writer.upsert([record("v3", [0.3, -0.2, 0.85, 0.1], { user: "bob" }, "t")]);
      await writer.deleteByIds("t", ["v1", "never-stored"]);
      expect(noted()).toEqual([{ id: "best" }, { id: "never-stored" }, { id: "v1" }, { id: "v3" }]);
      expect(writer.snapshotStale()).toBe(0);
      const later = new SqliteVectorIndex(counted);
      statements.length = 0;
      const afterWrites = await later.query(probe, { topK: 20, namespace: "t" });
      expect(wholeReads()).toEqual([]);
      expect(vectorReads()).toHaveLength(1);
      expect(afterWrites).toEqual(await exact(20));
      expect(ids(afterWrites).slice(0, 2)).toEqual(["best", "v3"]);
      expect(ids(afterWrites)).not.toContain("v1");
      // A cold instance's first write starts from the snapshot and the ids noted, this write's among them.
      const coldWriter = new SqliteVectorIndex(counted, { decodeOnWrite: true });
      statements.length = 0;
      await coldWriter.upsert([record("newest", [0.3, -0.2, 0.8, 0.1], { user: "" }, "t")]);
      expect(wholeReads()).toEqual([]);
      statements.length = 0;
      expect(await coldWriter.query(probe, { topK: 20, namespace: "t" })).toEqual(await exact(20));
      expect(vectorReads()).toEqual([]);

      // Notes past a quarter of the snapshot's vectors make it due: storing it again clears them.
      const rewritten = vectors.slice(0, 80).map((v) =>
        record(
          v.id,
          v.values.map((x) => -x),
          { user: "" },
          "t",
        ),
      );
      await writer.upsert(rewritten);
      expect(noted().length).toBeGreaterThan(300 / 4);
      expect(writer.snapshotStale()).toBe(1);
      expect(noted()).toEqual([]);
      const afterRewrite = new SqliteVectorIndex(counted);
      statements.length = 0;
      expect(await afterRewrite.query(probe, { topK: 20, namespace: "t" })).toEqual(await exact(20));
      expect(vectorReads()).toEqual([]);

      // Every vector deleted: the snapshot goes with them, and so do its notes.
      const everyId = ids(await fromRows({ user: "" })).concat(ids(await fromRows({ user: "bob" })));
      await writer.deleteByIds("t", [...everyId, ...vectors.map((v) => v.id), "best", "newest", "late"]);
      expect(new SqliteVectorIndex(sql).snapshotStale()).toBe(0);
      expect(sql.exec("SELECT count(*) AS n FROM vector_snapshot_parts").one().n).toBe(0);
      expect(noted()).toEqual([]);
    });
  });

  it("reads no snapshot whose notes outnumber its vectors, nor one a write did not note", async () => {
    await inObject(async (sql) => {
      const { statements, sql: counted } = recordedSql(sql);
      const wholeReads = () => statements.filter(readsEveryVector);
      const writer = new SqliteVectorIndex(sql, { decodeOnWrite: true });
      const vector = (i: number) => [Math.sin(i), Math.cos(i), (i % 5) - 2, 1];
      await writer.upsert(Array.from({ length: 8 }, (_, i) => record(`v${i}`, vector(i), { k: "v" }, "t")));
      expect(writer.snapshotStale()).toBe(1);
      const probe = [0.5, 0.5, -1, 1];
      const exact = () =>
        new SqliteVectorIndex(sql).query(probe, { topK: 30, namespace: "t", filter: { k: "v" } });
      // Nine ids noted against eight vectors: the rows are read instead.
      await writer.upsert(
        Array.from({ length: 9 }, (_, i) => record(`w${i}`, vector(i + 40), { k: "v" }, "t")),
      );
      statements.length = 0;
      expect(await new SqliteVectorIndex(counted).query(probe, { topK: 30, namespace: "t" })).toEqual(
        await exact(),
      );
      expect(wholeReads()).not.toEqual([]);
      expect(writer.snapshotStale()).toBe(1);
      // A write that noted nothing (as if by code that forgot to, or stored before notes existed): the
      // version no longer matches and nothing is noted, so the snapshot is not trusted, and it is due.
      sql.exec("UPDATE vector_index SET vec = ? WHERE id = 'v0'", new Float32Array(vector(99)).buffer);
      sql.exec("UPDATE vector_index_versions SET version = version + 1");
      statements.length = 0;
      expect(await new SqliteVectorIndex(counted).query(probe, { topK: 30, namespace: "t" })).toEqual(
        await exact(),
      );
      expect(wholeReads()).not.toEqual([]);
      expect(writer.snapshotStale()).toBe(1);
    });
  });

  it("never trusts a snapshot written over before notes existed, even once later writes note", async () => {
    await inObject(async (sql) => {
      const { statements, sql: counted } = recordedSql(sql);
      const wholeReads = () => statements.filter(readsEveryVector);
      const vector = (i: number) => [Math.sin(i), Math.cos(i), (i % 5) - 2, 1];
      const writer = new SqliteVectorIndex(sql, { decodeOnWrite: true });
      await writer.upsert(Array.from({ length: 12 }, (_, i) => record(`v${i}`, vector(i), { k: "v" }, "t")));
      expect(writer.snapshotStale()).toBe(1);
      // Storage as an earlier release left it: rows written after the snapshot, and nothing noted.
      const moved = new Float32Array([0.5, 0.5, -1, 1]);
      sql.exec(
        "UPDATE vector_index SET vec = ?, norm = ? WHERE id = 'v0'",
        moved.buffer,
        Math.hypot(...moved),
      );
      sql.exec("UPDATE vector_index_versions SET version = version + 1");
      // This release's first write notes nothing against it: its notes could not account for the row above.
      await new SqliteVectorIndex(sql).upsert([record("v1", vector(50), { k: "v" }, "t")]);
      expect(sql.exec("SELECT count(*) AS n FROM vector_snapshot_changes").one().n).toBe(0);
      const probe = [0.5, 0.5, -1, 1];
      const exact = await new SqliteVectorIndex(sql).query(probe, {
        topK: 20,
        namespace: "t",
        filter: { k: "v" },
      });
      statements.length = 0;
      const cold = await new SqliteVectorIndex(counted).query(probe, { topK: 20, namespace: "t" });
      expect(cold).toEqual(exact);
      expect(ids(cold)[0]).toBe("v0");
      expect(wholeReads()).not.toEqual([]);
      // It is due, and once stored again, writes note against it.
      expect(new SqliteVectorIndex(sql).snapshotStale()).toBe(1);
      await new SqliteVectorIndex(sql).upsert([record("v2", vector(60), { k: "v" }, "t")]);
      expect(sql.exec("SELECT id FROM vector_snapshot_changes").toArray()).toEqual([{ id: "v2" }]);
    });
  });

  it("has noted every row a write wrote before one of its statements failed", async () => {
    await inObject(async (sql) => {
      const vector = (i: number) => [Math.sin(i), Math.cos(i), (i % 5) - 2, 1];
      const writer = new SqliteVectorIndex(sql, { decodeOnWrite: true });
      await writer.upsert(Array.from({ length: 12 }, (_, i) => record(`v${i}`, vector(i), { k: "v" }, "t")));
      expect(writer.snapshotStale()).toBe(1);
      // A write noted since: the snapshot is read with notes from here on.
      await writer.upsert([record("v0", vector(90), { k: "v" }, "t")]);
      // The store fills up on the third row of the next write: the two before it stay written.
      let inserts = 0;
      const { sql: failing } = recordedSql(sql, (query) => {
        if (/^\s*INSERT INTO vector_index \(/.test(query) && ++inserts === 3) throw new Error("SQLITE_FULL");
      });
      const batch = [0, 1, 2, 3].map((i) => record(`w${i}`, vector(i + 70), { k: "v" }, "t"));
      await expect(new SqliteVectorIndex(failing).upsert(batch)).rejects.toThrow("SQLITE_FULL");
      expect(sql.exec("SELECT count(*) AS n FROM vector_index WHERE id LIKE 'w%'").one().n).toBe(2);
      const probe = vector(70);
      const exact = await new SqliteVectorIndex(sql).query(probe, {
        topK: 20,
        namespace: "t",
        filter: { k: "v" },
      });
      expect(ids(exact)).toContain("w0");
      expect(await new SqliteVectorIndex(sql).query(probe, { topK: 20, namespace: "t" })).toEqual(exact);
    });
  });

  it("stores a snapshot larger than a row in several parts and reads it back whole", async () => {
    await inObject(async (sql) => {
      const writer = new SqliteVectorIndex(sql, { decodeOnWrite: true, lists: { trainAt: 1e9 } });
      const dims = 80;
      const vectors = Array.from({ length: 4_000 }, (_, i) =>
        record(
          `v${i}`,
          Array.from({ length: dims }, (_, d) => Math.sin(i * 0.37 + d * 1.3)),
          { user: "" },
          "big",
        ),
      );
      for (let i = 0; i < vectors.length; i += 500) await writer.upsert(vectors.slice(i, i + 500));
      expect(writer.snapshotStale()).toBe(1);
      const parts = sql
        .exec<{ n: number }>("SELECT count(*) AS n FROM vector_snapshot_parts WHERE stream = 'columns'")
        .one().n;
      expect(parts).toBeGreaterThan(1);
      const probe = Array.from({ length: dims }, (_, d) => Math.cos(d * 0.7));
      const cold = await new SqliteVectorIndex(sql).query(probe, { topK: 30, namespace: "big" });
      const fromRows = await new SqliteVectorIndex(sql).query(probe, {
        topK: 30,
        namespace: "big",
        filter: { user: "" },
      });
      expect(cold).toEqual(fromRows);
    });
  });

  it("stores a snapshot a few parts a turn, read by no cold instance until its last, then read whole", async () => {
    await inObject(async (sql) => {
      const writer = new SqliteVectorIndex(sql, { decodeOnWrite: true, lists: { trainAt: 1e9 } });
      const dims = 80;
      const vector = (i: number) => Array.from({ length: dims }, (_, d) => Math.sin(i * 0.37 + d * 1.3));
      const write = (from: number, to: number) =>
        writer.upsert(
          Array.from({ length: to - from }, (_, k) =>
            record(`v${from + k}`, vector(from + k), { user: "" }, "big"),
          ),
        );
      for (let i = 0; i < 4_000; i += 500) await write(i, i + 500);
      // An earlier snapshot, then writes past a quarter of it: the next check stages a new one over it,
      // whose parts must never be read as the earlier one's.
      expect(writer.snapshotStale()).toBe(1);
      await write(0, 1_500);
      const probe = Array.from({ length: dims }, (_, d) => Math.cos(d * 0.7));
      const partBytes = () =>
        sql.exec<{ n: number }>("SELECT coalesce(sum(length(data)), 0) AS n FROM vector_snapshot_parts").one()
          .n;
      const heads = () => sql.exec("SELECT namespace FROM vector_snapshot_heads").toArray();
      let turns = 0;
      for (;;) {
        const { stored, more } = writer.snapshotTurn(1_000_000);
        turns++;
        if (!more) {
          expect(stored).toBe(1);
          break;
        }
        expect(stored).toBe(0);
        expect(writer.snapshotUnderway()).toBe(true);
        // Half written: no head, and a cold instance reads every row instead.
        expect(heads()).toEqual([]);
        await expectColdAnswer(sql, probe, "big", false);
        // A write between turns, of the vector nearest the probe, is noted against the snapshot being
        // staged: the cold instance reading it at the end reads that row again, and ranks it first.
        await writer.upsert([record(`near${turns}`, probe, { user: "" }, "big")]);
      }
      // 4,000 × 80 × 4 bytes of columns: a part of 1 MB in the first turn, the rest of them, the norms and
      // the labels in the second.
      expect(turns).toBe(2);
      expect(writer.snapshotUnderway()).toBe(false);
      expect(heads()).toEqual([{ namespace: "big" }]);
      expect(partBytes()).toBeLessThan(4_000 * (dims * 4 + 8) + 200_000);
      await expectColdAnswer(sql, probe, "big", true);
    });
  });

  it("notes what it wrote into the arrays being stored: a write rolled back between turns is read again", async () => {
    await runInDurableObject(
      env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID())),
      async (_o, state) => {
        const sql = state.storage.sql;
        const writer = new SqliteVectorIndex(sql, { decodeOnWrite: true, lists: { trainAt: 1e9 } });
        const dims = BIG_DIMS;
        await writeBig(writer, 0.29);
        const probe = Array.from({ length: dims }, (_, d) => Math.cos(d * 1.1));
        // The first part of the columns is written; then an upsert of a held row, rolled back.
        expect(writer.snapshotTurn(1_000_000).more).toBe(true);
        expect(() =>
          state.storage.transactionSync(() => {
            void writer.upsert([record("v3", probe, { user: "" }, "big")]);
            throw new Error("rolled back");
          }),
        ).toThrow("rolled back");
        while (writer.snapshotTurn(1_000_000).more);
        await expectColdAnswer(sql, probe, "big", true);
      },
    );
  });

  it("writes again, when a turn is tried again, the part whose write failed", async () => {
    await inObject(async (sql) => {
      let failures = 1;
      const { sql: failing } = recordedSql(sql, (query) => {
        if (failures > 0 && query.includes("INSERT INTO vector_snapshot_parts")) {
          failures--;
          throw new Error("SQLITE_FULL: database or disk is full");
        }
      });
      const writer = new SqliteVectorIndex(failing, { decodeOnWrite: true, lists: { trainAt: 1e9 } });
      const dims = BIG_DIMS;
      await writeBig(writer, 0.53);
      expect(() => writer.snapshotTurn(1_000_000)).toThrow("SQLITE_FULL");
      while (writer.snapshotTurn(1_000_000).more);
      const probe = Array.from({ length: dims }, (_, d) => Math.sin(d * 0.9));
      await expectColdAnswer(sql, probe, "big", true);
    });
  });

  it("leaves none of an earlier, larger snapshot's parts behind a smaller one", async () => {
    await inObject(async (sql) => {
      const writer = new SqliteVectorIndex(sql, { decodeOnWrite: true, lists: { trainAt: 1e9 } });
      const dims = BIG_DIMS;
      await writeBig(writer, 0.43);
      const columnParts = () =>
        sql
          .exec<{ n: number }>("SELECT count(*) AS n FROM vector_snapshot_parts WHERE stream = 'columns'")
          .one().n;
      expect(writer.snapshotStale()).toBe(1);
      expect(columnParts()).toBe(2);
      await writer.deleteByIds(
        "big",
        Array.from({ length: 3_000 }, (_, i) => `v${1_000 + i}`),
      );
      expect(writer.snapshotStale()).toBe(1);
      // 1,000 × 80 × 4 bytes: one part.
      expect(columnParts()).toBe(1);
      const probe = Array.from({ length: dims }, (_, d) => Math.cos(d * 0.3));
      await expectColdAnswer(sql, probe, "big", true);
    });
  });

  it("stages a snapshot again when the instance staging it stopped half way", async () => {
    await inObject(async (sql) => {
      const writerOf = () => new SqliteVectorIndex(sql, { decodeOnWrite: true, lists: { trainAt: 1e9 } });
      const writer = writerOf();
      const dims = BIG_DIMS;
      await writeBig(writer, 0.11);
      expect(writer.snapshotTurn(1_000_000).more).toBe(true);
      // A new instance over the same storage (the object restarted): the stage it finds is underway.
      const restarted = writerOf();
      expect(restarted.snapshotUnderway()).toBe(true);
      expect(restarted.snapshotStale()).toBe(1);
      expect(restarted.snapshotUnderway()).toBe(false);
      const probe = Array.from({ length: dims }, (_, d) => Math.sin(d));
      await expectColdAnswer(sql, probe, "big", true);
    });
  });

  it("scores sparse queries from its decoded copy exactly as from storage, ties at the cut included", async () => {
    await inObject(async (sql) => {
      const index = new SqliteVectorIndex(sql);
      // Mostly-zero vectors, as hashed text gives; every third one repeats another, so scores tie.
      const sparse = (i: number) =>
        Array.from({ length: 16 }, (_, d) => ((i * 7 + d * 3) % 5 === 0 ? Math.sin(i + d) : 0));
      await index.upsert(
        Array.from({ length: 60 }, (_, i) =>
          record(`v${String(i).padStart(2, "0")}`, sparse(i % 3 === 0 ? i + 1 : i), { k: "v" }, "t"),
        ).filter((r) => r.values.some((v) => v !== 0)),
      );
      for (const probe of [
        sparse(1),
        sparse(4),
        sparse(9),
        [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1],
      ]) {
        for (const topK of [1, 5, 17]) {
          const fromStorage = await index.query(probe, { topK, namespace: "t", filter: { k: "v" } });
          expect(await index.query(probe, { topK, namespace: "t" })).toEqual(fromStorage);
        }
      }
    });
  });

  it("scores hashed text from its decoded copy exactly as from storage, repeated texts tying at the cut", async () => {
    await inObject(async (sql) => {
      const index = new SqliteVectorIndex(sql);
      const embedder = new HashingEmbedder();
      const topics = ["billing", "search", "payments", "auth", "mobile launch", "analytics budget"];
      // Every text appears twice under different ids, so equal scores must be cut by id alone.
      const texts = Array.from(
        { length: 90 },
        (_, i) =>
          `We ${i % 2 ? "decided" : "discussed"} the ${topics[Math.floor(i / 2) % topics.length]} plan ${Math.floor(i / 4)}`,
      );
      const vectors = await embedder.embed(texts);
      await index.upsert(
        vectors.map((values, i) =>
          record(`m${String((i * 37) % 90).padStart(2, "0")}`, values, { k: "v" }, "t"),
        ),
      );
      const queries = ["what did we decide about billing?", "auth", "payments plan 7", "analytics"];
      const probes = await embedder.embed(queries);
      // The columns are summed four dimensions at a time: these queries leave 0, 1, 2 and 3 over.
      expect(probes.map((p) => p.filter((v) => v !== 0).length % 4)).toEqual([0, 1, 2, 3]);
      for (const probe of probes) {
        expect(probe.filter((v) => v !== 0).length).toBeGreaterThan(4);
        for (const topK of [1, 3, 10, 45, 100]) {
          const fromStorage = await index.query(probe, { topK, namespace: "t", filter: { k: "v" } });
          expect(fromStorage.length).toBe(Math.min(topK, 90));
          expect(await index.query(probe, { topK, namespace: "t" })).toEqual(fromStorage);
          expect(await new SqliteVectorIndex(sql).query(probe, { topK, namespace: "t" })).toEqual(
            fromStorage,
          );
        }
      }
    });
  });

  it("updates its decoded copy with its own upserts, answering exactly as storage does", async () => {
    await inObject(async (sql) => {
      const index = new SqliteVectorIndex(sql);
      const wave = (from: number, count: number) =>
        Array.from({ length: count }, (_, i) => {
          const n = from + i;
          return record(
            `v${n}`,
            [Math.sin(n), Math.cos(n), ((n * 5) % 7) - 3, n % 3 === 0 ? 0 : 1],
            {
              k: "v",
              n: String(n),
            },
            "t",
          );
        });
      await index.upsert(wave(0, 40));
      const probes = [
        [0.3, -0.2, 0.9, 0.1],
        [0, 1, 0, 0],
        [1, 0, -1, 0],
      ];
      const agree = async () => {
        for (const probe of probes) {
          for (const topK of [1, 7, 60]) {
            const fromStorage = await index.query(probe, { topK, namespace: "t", filter: { k: "v" } });
            expect(await index.query(probe, { topK, namespace: "t" })).toEqual(fromStorage);
            // A fresh instance decodes the namespace from storage alone.
            expect(await new SqliteVectorIndex(sql).query(probe, { topK, namespace: "t" })).toEqual(
              fromStorage,
            );
          }
        }
      };
      await agree();
      // New vectors, a replaced laid-out vector, then a replaced newly added one.
      await index.upsert(wave(40, 5));
      await agree();
      await index.upsert([record("v3", [0.3, -0.2, 0.9, 0.1], { k: "v", n: "3b" }, "t")]);
      await agree();
      await index.upsert([record("v41", [1, 0, -1, 0], { k: "v", n: "41b" }, "t")]);
      await agree();
      // Enough new vectors to be folded into the laid-out columns.
      await index.upsert(wave(100, 300));
      await agree();
      await index.deleteByIds("t", ["v41", "v150"]);
      await agree();
      // Deletes of laid-out rows and of vectors added since, a deleted id written again, then enough
      // deletes for the copy to fold them away.
      await index.upsert(wave(500, 10));
      await index.deleteByIds("t", ["v2", "v503", "v504", "never-stored"]);
      await agree();
      await index.upsert([record("v2", [0, 1, 0, 0], { k: "v", n: "2b" }, "t"), ...wave(503, 1)]);
      await agree();
      await index.deleteByIds(
        "t",
        Array.from({ length: 120 }, (_, i) => `v${100 + i * 2}`),
      );
      await agree();
      await index.upsert(wave(600, 3));
      await index.deleteByIds("t", ["v601"]);
      await agree();
    });
  });

  it("keeps its decoded copy across its own deletes instead of reading storage again", async () => {
    await inObject(async (sql) => {
      const index = new SqliteVectorIndex(sql);
      await index.upsert([
        record("a", [1, 0, 0, 0], { k: "v" }, "t"),
        record("b", [0.9, 0.1, 0, 0], { k: "v" }, "t"),
        record("c", [0, 1, 0, 0], { k: "v" }, "t"),
      ]);
      const probe = [1, 0, 0, 0];
      expect((await index.query(probe, { topK: 3, namespace: "t" })).map((m) => m.id)).toEqual([
        "a",
        "b",
        "c",
      ]);
      await index.deleteByIds("t", ["a"]);
      // Storage changed behind the index's back (no version bump): a copy decoded afresh would see it.
      sql.exec("UPDATE vector_index SET vec = ? WHERE id = 'c'", Float32Array.from([1, 0, 0, 0]).buffer);
      expect((await index.query(probe, { topK: 3, namespace: "t" })).map((m) => m.id)).toEqual(["b", "c"]);
      // Another instance, or a fresh one, reads storage as it is.
      expect(
        (await new SqliteVectorIndex(sql).query(probe, { topK: 3, namespace: "t" })).map((m) => m.id),
      ).toEqual(["c", "b"]);
    });
  });

  it("never answers from its copy with a vector whose write was rolled back", async () => {
    await runInDurableObject(
      env.THREADS.get(env.THREADS.idFromName(crypto.randomUUID())),
      async (_i, state) => {
        const index = new SqliteVectorIndex(state.storage.sql);
        await index.upsert([record("kept", [1, 0, 0, 0], { k: "v" }, "t")]);
        expect((await index.query([1, 0, 0, 0], { topK: 5, namespace: "t" })).map((m) => m.id)).toEqual([
          "kept",
        ]);
        expect(() =>
          state.storage.transactionSync(() => {
            void index.upsert([record("ghost", [1, 0, 0, 0.1], { k: "v" }, "t")]);
            throw new Error("abort");
          }),
        ).toThrow("abort");
        // Another writer's one write: were versions a counter, storage would now hold the number this copy
        // took for the rolled-back write, and the copy would pass for current.
        await new SqliteVectorIndex(state.storage.sql).upsert([
          record("other", [0, 1, 0, 0], { k: "v" }, "t"),
        ]);
        const ids = (await index.query([1, 0, 0, 0], { topK: 5, namespace: "t" })).map((m) => m.id);
        expect(ids).toEqual(["kept", "other"]);
      },
    );
  });

  it("enforces a configured dimension on an empty index", async () => {
    await inObject(async (sql) => {
      const index = new SqliteVectorIndex(sql, { dimensions: 8 });
      await expect(index.query([1, 0, 0, 0], { topK: 1, namespace: "t" })).rejects.toBeInstanceOf(
        VectorDimensionError,
      );
      await expect(index.upsert([record("x", [1, 0, 0, 0])])).rejects.toBeInstanceOf(VectorDimensionError);
    });
  });
});

describe("VectorizeVectorIndex specifics", () => {
  it("keeps stored ids and namespaces within Vectorize's 64-byte limits and readable when they fit", async () => {
    const binding = new InMemoryVectorize({ dimensions: 4 });
    const index = new VectorizeVectorIndex(binding);
    const longNamespace = `t-${"n".repeat(126)}`;
    await index.upsert([
      record("item-1", [1, 0, 0, 0], {}, "support-42"),
      record("i".repeat(80), [1, 0, 0, 0], {}, "support-42"),
      record("item-1", [1, 0, 0, 0], {}, longNamespace),
    ]);
    const stored = binding.stored();
    expect(stored.map((v) => v.id)).toContain("support-42:item-1");
    for (const v of stored) {
      expect(new TextEncoder().encode(v.id).byteLength).toBeLessThanOrEqual(64);
      expect(new TextEncoder().encode(v.namespace ?? "").byteLength).toBeLessThanOrEqual(64);
      expect(v.metadata?.[ORIGINAL_ID_KEY]).toBeTypeOf("string");
    }
    expect(new Set(stored.map((v) => v.id)).size).toBe(3);
    expect(await vectorId("a", "b:c")).not.toBe(await vectorId("a:b", "c"));
    expect(await vectorId(longNamespace, "x")).toBe(await vectorId(longNamespace, "x"));
  });

  it("queries with namespace, topK, filter and all metadata, and splits larger topK", async () => {
    const binding = new InMemoryVectorize({ dimensions: 4 });
    const index = new VectorizeVectorIndex(binding, { dimensions: 4 });
    await index.upsert([record("x", [1, 0, 0, 0], { type_tag: "decision" })]);
    await index.query([1, 0, 0, 0], { topK: 3, namespace: "thread-a", filter: { type_tag: "decision" } });
    await index.query([1, 0, 0, 0], { topK: 40, namespace: "thread-a" });
    const queries = binding.calls.filter((c) => c.method === "query").map((c) => c.args[1]);
    expect(queries).toEqual([
      { topK: 3, namespace: "thread-a", filter: { type_tag: "decision" }, returnMetadata: "all" },
      { topK: 40, namespace: "thread-a", returnMetadata: "none" },
    ]);
    expect(binding.calls.some((c) => c.method === "describe")).toBe(false);
    expect(binding.calls.filter((c) => c.method === "getByIds")).toHaveLength(1);
  });

  it("reads the dimension from either describe() shape and refuses a non-cosine index", async () => {
    const v2 = new InMemoryVectorize({ dimensions: 4 });
    v2.describe = async () =>
      ({ dimensions: 4, vectorCount: 0, processedUpToDatetime: 0, processedUpToMutation: 0 }) as never;
    await expect(
      new VectorizeVectorIndex(v2).query([1, 0, 0], { topK: 1, namespace: "t" }),
    ).rejects.toBeInstanceOf(VectorDimensionError);

    const euclidean = new VectorizeVectorIndex(new InMemoryVectorize({ dimensions: 4, metric: "euclidean" }));
    await expect(euclidean.query([1, 0, 0, 0], { topK: 1, namespace: "t" })).rejects.toThrow(
      "cosine is required",
    );
  });

  it("refuses metadata Vectorize cannot store and the reserved id field", async () => {
    const index = new VectorizeVectorIndex(new InMemoryVectorize({ dimensions: 4 }));
    const refused: Record<string, string>[] = [{ "a.b": "x" }, { $a: "x" }, { [ORIGINAL_ID_KEY]: "x" }];
    for (const metadata of refused) {
      await expect(index.upsert([record("x", [1, 0, 0, 0], metadata)])).rejects.toBeInstanceOf(
        VectorIndexInputError,
      );
    }
  });
});
