// `npm run bench:vectors [-- --sizes 10000,100000] [--queries 100] [--top-k 10]`
//
// The offline vector index (src/adapters/sqlite-vector-index) at 10,000 and 100,000 vectors of one
// namespace: hashing-embedder vectors (384 dimensions) of generated, varied chat-like sentences
// (test/support/chat-sentences.ts), queried with other such sentences. For each size it builds two
// indexes from the same vectors, written in batches of 100 as the thread's upkeep writes them:
//  - exact: inverted lists switched off, so queries take today's exact path (the decoded copy held in
//    memory up to 20,000 vectors, else a scan of every stored row);
//  - ANN: the default list settings, except that approximate search starts above 4,096 vectors rather
//    than 20,000, so that the 10,000 figures show it too (the index itself searches 10,000 exactly).
// It prints the build cost (writes of both, and the largest single write: the bound on a stall, which
// includes training and list splits), query p50/p95 of both, recall@10 of ANN against exact, rows
// read per ANN query, and memory: what each path holds between queries (computed from the sizes: the
// decoded copy is vectors × dims × 4 bytes plus ids, the lists hold their centroids), and the database
// file's size.
//
// It runs the index outside workerd, in Node 22 over `node:sqlite` (scripts/lib/node-sql-storage.ts),
// the same SQLite engine Durable Objects use but not workerd's bindings: per-row read costs differ a
// little (this machine's shared cores make every figure a little slower than a deployed object's).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { HashingEmbedder } from "../src/adapters/hashing-embedder";
import { DECODED_LIMIT } from "../src/adapters/sqlite-vector-index/decoded-copy";
import {
  SqliteVectorIndex,
  type SqliteVectorIndexOptions,
} from "../src/adapters/sqlite-vector-index/sqlite-vector-index";
import type { VectorMatch } from "../src/ports/vector-index";
import { chatSentences } from "../test/support/chat-sentences";
import { recallAt } from "../test/support/recall";
import { percentile, sorted } from "./lib/bench-http";
import { nodeSqlStorage } from "./lib/node-sql-storage";

const { values: options } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    queries: { type: "string", default: "100" },
    "top-k": { type: "string", default: "10" },
    probes: { type: "string" },
  },
});
const SIZES = options.sizes.split(",").map((n) => Number(n.replaceAll("_", "")));
const QUERIES = Math.max(1, Number(options.queries) || 100);
const TOP_K = Math.min(100, Math.max(1, Number(options["top-k"]) || 10));
const BATCH = 100;
const DIMS = 384;
const NAMESPACE = "thread-bench/messages/hashing-v1-384";
const MiB = 1024 * 1024;

const EXACT: SqliteVectorIndexOptions = {
  lists: { approximateAbove: Number.MAX_SAFE_INTEGER, trainAt: Number.MAX_SAFE_INTEGER },
};
const ANN: SqliteVectorIndexOptions = {
  lists: { approximateAbove: 4096, ...(options.probes ? { probes: Number(options.probes) } : {}) },
};

const progress = (text: string) => console.error(`  … ${text}`);
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;

interface Built {
  index: SqliteVectorIndex;
  sql: SqlStorage;
  rowsRead: Map<string, number>;
  file: string;
  writeMs: number;
  largestWriteMs: number;
}

async function build(vectors: number[][], settings: SqliteVectorIndexOptions, dir: string, name: string) {
  const file = path.join(dir, `${name}.sqlite`);
  const { sql, rowsRead, transaction } = nodeSqlStorage(file);
  const index = new SqliteVectorIndex(sql, settings);
  let writeMs = 0;
  let largestWriteMs = 0;
  for (let start = 0; start < vectors.length; start += BATCH) {
    const batch = vectors.slice(start, start + BATCH).map((values, i) => ({
      id: `m${String(start + i).padStart(7, "0")}`,
      namespace: NAMESPACE,
      values,
      metadata: { kind: "message" },
    }));
    const began = performance.now();
    await transaction(() => index.upsert(batch));
    const took = performance.now() - began;
    writeMs += took;
    largestWriteMs = Math.max(largestWriteMs, took);
  }
  return { index, sql, rowsRead, file, writeMs, largestWriteMs } satisfies Built;
}

/** Each query's matches and latency, after a few unmeasured queries (statement preparation, decoding). */
async function timed(index: SqliteVectorIndex, probes: number[][]) {
  for (const probe of probes.slice(0, 3)) await index.query(probe, { topK: TOP_K, namespace: NAMESPACE });
  const answers: VectorMatch[][] = [];
  const latencies: number[] = [];
  for (const probe of probes) {
    const began = performance.now();
    answers.push(await index.query(probe, { topK: TOP_K, namespace: NAMESPACE }));
    latencies.push(performance.now() - began);
  }
  return { answers, p50: percentile(sorted(latencies), 50), p95: percentile(sorted(latencies), 95) };
}

function listStats(sql: SqlStorage) {
  const sizes = sql
    .exec<{ n: number }>("SELECT count(*) AS n FROM vector_index WHERE list IS NOT NULL GROUP BY list")
    .toArray()
    .map((row) => row.n);
  const unassigned = sql
    .exec<{ n: number }>("SELECT count(*) AS n FROM vector_index WHERE list IS NULL")
    .one().n;
  return { lists: sizes.length, largest: Math.max(0, ...sizes), unassigned };
}

/** Vector rows read so far (a query's candidates), by any statement that reads `vec` and `metadata`. */
function totalRows(rowsRead: Map<string, number>): number {
  let total = 0;
  for (const [query, rows] of rowsRead) if (query.startsWith("SELECT id, vec, norm, metadata")) total += rows;
  return total;
}

async function main() {
  const embedder = new HashingEmbedder({ dimensions: DIMS });
  const probes = chatSentences(QUERIES, 2).map((text) => embedder.embedOne(text));
  console.log(
    `bench:vectors: ${DIMS}-dim hashing-embedder vectors of generated chat sentences, one namespace, ${QUERIES} queries, top ${TOP_K}, Node ${process.version} over node:sqlite`,
  );
  for (const size of SIZES) {
    const dir = mkdtempSync(path.join(tmpdir(), "bench-vectors-"));
    try {
      let began = performance.now();
      const vectors = chatSentences(size, 1).map((text) => embedder.embedOne(text));
      progress(`${size}: embedded in ${((performance.now() - began) / 1000).toFixed(1)} s`);
      const exact = await build(vectors, EXACT, dir, "exact");
      progress(`${size}: exact index built`);
      const ann = await build(vectors, ANN, dir, "ann");
      progress(`${size}: ANN index built`);
      began = performance.now();
      const truth = await timed(exact.index, probes);
      const readBefore = totalRows(ann.rowsRead);
      const approximate = await timed(ann.index, probes);
      const rowsPerQuery = (totalRows(ann.rowsRead) - readBefore) / (probes.length + 3);
      progress(`${size}: queried in ${((performance.now() - began) / 1000).toFixed(1)} s`);
      const recalls = approximate.answers.map((answer, q) => recallAt(TOP_K, answer, truth.answers[q] ?? []));
      const recall = recalls.reduce((sum, r) => sum + r, 0) / recalls.length;
      const { lists, largest, unassigned } = listStats(ann.sql);
      const decoded = size <= DECODED_LIMIT;
      const exactHeld = decoded ? (size * (DIMS * 4 + 8 + 40)) / MiB : 0;
      const centroids = (lists * DIMS * 4) / 1024;
      const fileMiB = (file: string) => (statSync(file).size / MiB).toFixed(1);
      console.log(`\n${size.toLocaleString("en")} vectors`);
      console.log(
        `  build    exact: ${((exact.writeMs / size) * 1000).toFixed(0)} µs/vector, largest write ${ms(exact.largestWriteMs)}` +
          ` | ANN: ${((ann.writeMs / size) * 1000).toFixed(0)} µs/vector, largest write ${ms(ann.largestWriteMs)}` +
          ` (${lists} lists, largest ${largest}, ${unassigned} unassigned)`,
      );
      console.log(
        `  query    exact (${decoded ? "decoded copy" : "storage scan"}): p50 ${ms(truth.p50)}, p95 ${ms(truth.p95)}` +
          ` | ANN: p50 ${ms(approximate.p50)}, p95 ${ms(approximate.p95)}, ${rowsPerQuery.toFixed(0)} rows read a query`,
      );
      console.log(
        `  recall@${TOP_K} ANN vs exact: ${recall.toFixed(3)} (lowest query ${Math.min(...recalls).toFixed(1)})`,
      );
      console.log(
        `  memory   exact holds ${decoded ? `${exactHeld.toFixed(1)} MiB (decoded copy)` : "nothing (streams rows)"}` +
          ` | ANN holds ${centroids.toFixed(0)} KiB of centroids` +
          ` | database file exact ${fileMiB(exact.file)} MiB, ANN ${fileMiB(ann.file)} MiB`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

await main();
