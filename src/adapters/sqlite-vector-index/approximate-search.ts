import { approximateScores, unpack } from "./list-codes";
import { type ListLayout, listsByNearness } from "./list-layout";
import {
  readPack,
  readPacks,
  readPlacedRows,
  readTailRows,
  readTailRowsOf,
  readUnassignedRows,
} from "./list-storage";
import { TopK } from "./scoring";
import { type SparseVector, sparse } from "./sparse-vector";
import type { Row } from "./storage";

/**
 * The rows an approximate query scores exactly. Lists are read nearest centroid first until `probes`
 * non-empty lists and at least `topK` vectors were seen: of each, its pack (one row) ranks its packed
 * members by code, and its tail (members written since it was packed) is read row by row (the first
 * `probes` lists' packs and tails in one statement each). The best
 * packed members by code, RERANK_FACTOR × topK + RERANK_EXTRA of them, are read again by id, so each
 * is scored from its stored values like the tails and any vector not yet in a list. Rows are yielded
 * as they are read: a namespace whose vectors are still being assigned (after an upgrade) can have
 * most of them outside any list, and those are streamed, never held all at once.
 */

/**
 * Codes rank the packed members closely enough that 1.5 × topK + 20 of them, read again, lose nothing
 * against twice topK (`npm run bench:vectors`, 100,000 vectors: recall@10 0.989 and recall@100 0.974 with
 * either, 50 fewer rows read a query at top 100).
 */
const RERANK_FACTOR = 1.5;
const RERANK_EXTRA = 20;

export function* approximateCandidates(
  sql: SqlStorage,
  namespace: string,
  layout: ListLayout,
  vector: number[],
  limits: { topK: number; probes: number; minScore?: number },
): Generator<Row> {
  let seen = 0;
  for (const row of readUnassignedRows(sql, namespace)) {
    seen++;
    yield row;
  }
  const query = sparse(vector);
  const byCode = new TopK(Math.ceil(limits.topK * RERANK_FACTOR) + RERANK_EXTRA);
  // The packs read, in order: a ranked entry's tag is its pack's position times PACK_SLOT plus its own.
  const read: { list: number; factors: Float32Array }[] = [];
  let probed = 0;
  const order = listsByNearness(layout, vector);
  // The nearest `probes` lists are always read (a list counts only once read), so their tails and packs
  // are asked for together, one statement each; any further list, one by one.
  const first = take(order, limits.probes);
  const tails = readTailRowsOf(sql, namespace, first);
  const packs = readPacks(sql, namespace, first);
  let k = 0;
  for (const list of chain(first, order)) {
    if (probed >= limits.probes && seen >= limits.topK) break;
    const batched = k++ < first.length;
    const tail = batched ? (tails.get(list) ?? []) : readTailRows(sql, namespace, list);
    yield* tail;
    const stored = batched ? packs.get(list) : readPack(sql, namespace, list);
    const pack = stored && unpack(JSON.parse(stored.ids), stored.codes, layout.dims);
    if (pack) {
      const scores = approximateScores(pack, query, layout.dims);
      const { ids } = pack;
      const at = read.push({ list, factors: pack.factors }) - 1;
      for (let i = 0; i < ids.length; i++)
        byCode.offer(ids[i] as string, scores[i] as number, at * PACK_SLOT + i);
    }
    const found = tail.length + (pack?.ids.length ?? 0);
    if (found > 0) probed++;
    seen += found;
  }
  const reaches = reachable(query, limits.minScore);
  // A pack entry counts only while its row is still in that list and packed: a vector written since is
  // in a tail (or gone), so its entry, made from older values, is skipped.
  const packedIn = new Map<string, number[]>();
  for (const { id, score, at } of byCode.entries()) {
    const { list, factors } = read[Math.floor(at / PACK_SLOT)] as { list: number; factors: Float32Array };
    if (!reaches(score, factors[at % PACK_SLOT] as number)) continue;
    packedIn.set(id, [...(packedIn.get(id) ?? []), list]);
  }
  for (const row of readPlacedRows(sql, namespace, [...packedIn.keys()])) {
    if (row.packed === 1 && row.list !== null && packedIn.get(row.id)?.includes(row.list)) yield row;
  }
}

/** The next `n` values of an iterator (fewer when it ends first), leaving it open for the rest. */
function take<T>(iterator: Iterator<T>, n: number): T[] {
  const taken: T[] = [];
  while (taken.length < n) {
    const next = iterator.next();
    if (next.done) break;
    taken.push(next.value);
  }
  return taken;
}

/** The values of `head`, then the rest of `tail`. */
function* chain<T>(head: readonly T[], tail: Iterator<T>): Generator<T> {
  yield* head;
  for (let next = tail.next(); !next.done; next = tail.next()) yield next.value;
}

/** Members per pack at most in a ranked entry's tag (lists are split past a few hundred). */
const PACK_SLOT = 2 ** 24;

/**
 * Whether a packed member ranked by its code (`score`: its code's dot product with the query times its
 * pack factor) can score `minScore` or more, so that it is worth reading again. Rounding moves each
 * code by half a step at most, so the code's dot product is off the values' by at most half a step
 * times the query's L1 norm, and the score by half the factor times that: the bound is exact, and a
 * margin covers floating-point rounding. Always true without a minimum.
 */
function reachable(
  query: SparseVector,
  minScore: number | undefined,
): (score: number, factor: number) => boolean {
  if (minScore === undefined) return () => true;
  let l1 = 0;
  let squares = 0;
  for (const value of query.values) {
    l1 += Math.abs(value);
    squares += value * value;
  }
  const queryNorm = Math.sqrt(squares);
  if (queryNorm === 0) return () => true;
  return (score, factor) =>
    (score + 0.5 * factor * l1 + Math.abs(score) * 1e-6) / queryNorm + 1e-6 >= minScore;
}
