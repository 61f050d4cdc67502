import { floats } from "./encoding";
import { approximateScores, type Pack, packIds, packOfCodes, unpack } from "./list-codes";
import { type ListLayout, listsByNearness } from "./list-layout";
import {
  type PlacedRow,
  readPack,
  readPacks,
  readPlacedRows,
  readTailCodesOf,
  readUnassignedRows,
  type TailCode,
} from "./list-storage";
import { TopK } from "./scoring";
import { type SparseVector, sparse } from "./sparse-vector";
import type { Row } from "./storage";

/**
 * The rows an approximate query scores exactly. Lists are read nearest centroid first until `probes`
 * non-empty lists and at least `topK` vectors were seen: of each, its pack (one row) and its tail's
 * codes (members written since it was packed, each with its own code, read from one index in list
 * order), the first `probes` lists' in one statement each. Every member is ranked by how high its code
 * says its score can be, and the best RERANK_FACTOR × topK + RERANK_EXTRA of them are the candidates.
 * Candidates are read again by id, best first and a batch at a time, so each is scored from its stored
 * values, until no candidate left can beat the topK-th score read so far: a code bounds its vector's
 * score within half a step per dimension, so the ones left unread cannot enter the answer. Vectors not
 * yet in a list (after an upgrade, or while upkeep catches up) and tail members stored before codes
 * existed are read whole; the first are streamed, never held all at once.
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
  const { dims } = layout;
  const query = sparse(vector);
  const bound = scoreBound(query);
  const floor = limits.minScore === undefined ? Number.NEGATIVE_INFINITY : limits.minScore * bound.queryNorm;
  // The rows read so far by their exact score (in the codes' unit), to know when to stop reading.
  const best = new TopK(limits.topK);
  const offered = (row: Row) => best.offer(row.id, exactScore(row, query, dims), 0);
  let seen = 0;
  for (const row of readUnassignedRows(sql, namespace)) {
    seen++;
    offered(row);
    yield row;
  }
  const byBound = new TopK(Math.ceil(limits.topK * RERANK_FACTOR) + RERANK_EXTRA);
  // The packs and tails ranked, in order: a ranked entry's tag is its group's position times PACK_SLOT
  // plus its own. A group's entries count only while their rows are still where the group says.
  const groups: Placement[] = [];
  const rank = (pack: Pack, placement: Placement) => {
    const scores = approximateScores(pack, query, dims);
    const { ids, factors } = pack;
    const at = groups.push(placement) - 1;
    for (let i = 0; i < ids.length; i++) {
      const upper = bound.upper(scores[i] as number, factors[i] as number);
      if (upper >= floor) byBound.offer(ids[i] as string, upper, at * PACK_SLOT + i);
    }
  };
  // Tail members stored before codes existed: read whole, with the first candidates.
  const uncoded: { id: string; placement: Placement }[] = [];
  let probed = 0;
  const order = listsByNearness(layout, vector);
  // The nearest `probes` lists are always read (a list counts only once read), so their tails and packs
  // are asked for together, one statement each; any further list, one by one.
  const first = take(order, limits.probes);
  const tails = readTailCodesOf(sql, namespace, first);
  const packs = readPacks(sql, namespace, first);
  let k = 0;
  for (const list of chain(first, order)) {
    if (probed >= limits.probes && seen >= limits.topK) break;
    const batched = k++ < first.length;
    const tail = (batched ? tails : readTailCodesOf(sql, namespace, [list])).get(list) ?? [];
    const inTail: Placement = { list, packed: 0 };
    const coded = tail.filter((member): member is Coded => member.code !== null);
    if (coded.length > 0) rank(packOfCodes(coded, dims), inTail);
    for (const member of tail) if (member.code === null) uncoded.push({ id: member.id, placement: inTail });
    const stored = batched ? packs.get(list) : readPack(sql, namespace, list);
    const pack = stored && unpack(packIds(stored.ids), stored.codes, dims);
    if (pack) rank(pack, { list, packed: 1 });
    const found = tail.length + (pack?.ids.length ?? 0);
    if (found > 0) probed++;
    seen += found;
  }
  const candidates = byBound.entries();
  let next = 0;
  for (let batch = 0; ; batch++) {
    const wanted = new Map<string, Placement[]>();
    const want = (id: string, placement: Placement) => wanted.set(id, [...(wanted.get(id) ?? []), placement]);
    if (batch === 0) for (const { id, placement } of uncoded) want(id, placement);
    // Candidates are in descending bound: once one cannot beat the topK-th score read, none after can.
    const kth = best.entries().length >= limits.topK ? (best.entries().at(-1)?.score as number) : undefined;
    const size = batch === 0 ? limits.topK : Math.max(BATCH_LEAST, Math.ceil(limits.topK / 2));
    for (let taken = 0; next < candidates.length && taken < size; taken++) {
      const { id, score, at } = candidates[next] as { id: string; score: number; at: number };
      if (kth !== undefined && score < kth) {
        next = candidates.length;
        break;
      }
      want(id, groups[Math.floor(at / PACK_SLOT)] as Placement);
      next++;
    }
    if (wanted.size === 0) return;
    for (const row of readPlacedRows(sql, namespace, [...wanted.keys()])) {
      if (!wanted.get(row.id)?.some((p) => isAt(row, p))) continue;
      offered(row);
      yield row;
    }
  }
}

/** Where a ranked entry's code was read: a list's pack (packed 1) or its tail (packed 0). */
type Placement = { list: number; packed: 0 | 1 };
type Coded = TailCode & { code: ArrayBuffer };

/** Candidates read again per statement after the first batch (of topK), at least. */
const BATCH_LEAST = 8;

/** Whether a row read again is still where its code was read: a code of older values is not its own. */
function isAt(row: PlacedRow, placement: Placement): boolean {
  return row.list === placement.list && row.packed === placement.packed;
}

/** A row's score in the codes' unit: its dot product with the query over its norm (cosine × query norm). */
function exactScore(row: Row, query: SparseVector, dims: number): number {
  if (row.norm === 0) return 0;
  const values = floats(row.vec, dims, row.id);
  let dot = 0;
  for (let j = 0; j < query.dims.length; j++)
    dot += (query.values[j] as number) * (values[query.dims[j] as number] as number);
  return dot / row.norm;
}

/** The values of `head`, then the rest of `tail`. */
function* chain<T>(head: readonly T[], tail: Iterator<T>): Generator<T> {
  yield* head;
  for (let next = tail.next(); !next.done; next = tail.next()) yield next.value;
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

/** Members per group at most in a ranked entry's tag (lists are split past a few hundred). */
const PACK_SLOT = 2 ** 24;

/**
 * The highest score a vector can have given its code's score (`score`: the code's dot product with the
 * query times its factor) and factor, in the same unit (cosine × query norm). Rounding moves each code
 * by half a step at most, so the code's dot product is off the values' by at most half a step times the
 * query's L1 norm, and the score by half the factor times that: the bound is exact, and a margin covers
 * floating-point rounding.
 */
function scoreBound(query: SparseVector): {
  queryNorm: number;
  upper: (score: number, factor: number) => number;
} {
  let l1 = 0;
  let squares = 0;
  for (const value of query.values) {
    l1 += Math.abs(value);
    squares += value * value;
  }
  const queryNorm = Math.sqrt(squares);
  return {
    queryNorm,
    upper: (score, factor) => score + 0.5 * factor * l1 + Math.abs(score) * 1e-6 + queryNorm * 1e-6,
  };
}
