import type { VectorMatch } from "../../ports/vector-index";
import type { Decoded, Entry } from "./decoded-copy";
import { floats } from "./encoding";
import type { Row } from "./storage";

/**
 * Exact nearest-neighbour scoring: cosine against every candidate, keeping the best `topK` (ties
 * broken by id, so results are deterministic). The decoded copy and the stored rows give the same
 * score to the same vector, bit for bit.
 */

/** The best `topK` of a decoded copy: its rows not dropped, then its added vectors. */
export function scoreDecoded(
  held: Decoded,
  vector: number[],
  queryNorm: number,
  topK: number,
): VectorMatch[] {
  // Scores equal the storage path's bit for bit: see columnDots.
  const { columns, ids, norms } = held;
  const count = ids.length;
  const dots = columnDots(vector, columns, count);
  const best = new TopK(topK);
  const { dropped } = held;
  for (let row = 0; row < count; row++) {
    if (dropped[row]) continue;
    best.offer(ids[row] as string, cosine(dots[row] as number, queryNorm, norms[row] as number), row);
  }
  if (held.added.length) {
    const nonZero = vector.flatMap((weight, d) => (weight === 0 ? [] : [d]));
    for (const [i, entry] of held.added.entries()) {
      // The same products added in the same (dimension) order as the columns' loop.
      let dot = 0;
      for (const d of nonZero) dot += (vector[d] as number) * (entry.values[d] as number);
      best.offer(entry.id, cosine(dot, queryNorm, entry.norm), -i - 1);
    }
  }
  return best.entries().map(({ id, score, at }) => ({
    id,
    score,
    metadata: JSON.parse(at >= 0 ? (held.metadata[at] as string) : (held.added[-at - 1] as Entry).metadata),
  }));
}

/** The best `topK` of stored rows, each decoded from its BLOB as it is read. */
export function scoreRows(
  rows: Iterable<Row>,
  vector: number[],
  dims: number,
  queryNorm: number,
  topK: number,
): VectorMatch[] {
  const best = new TopK(topK);
  const metadata: string[] = [];
  for (const row of rows) {
    const values = floats(row.vec, dims, row.id);
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += (vector[i] as number) * (values[i] as number);
    best.offer(row.id, cosine(dot, queryNorm, row.norm), metadata.push(row.metadata) - 1);
  }
  return best
    .entries()
    .map(({ id, score, at }) => ({ id, score, metadata: JSON.parse(metadata[at] as string) }));
}

/** Cosine from a dot product and both norms, clamped to [-1, 1]; 0 against a zero vector. */
function cosine(dot: number, queryNorm: number, rowNorm: number): number {
  const denominator = queryNorm * rowNorm;
  return denominator > 0 ? Math.max(-1, Math.min(1, dot / denominator)) : 0;
}

/**
 * Each row's dot product with the query over dimension-major columns. Only the query's non-zero
 * dimensions contribute: hashed text vectors are sparse (a short query touches a fraction of the slots).
 * Each row adds the same products in the same (dimension) order as the row-by-row loop, so each dot
 * is the same number; four dimensions are added per pass over the rows (in order, into one running sum)
 * so the sums are read and written a quarter as often.
 */
function columnDots(vector: readonly number[], columns: Float32Array, count: number): Float64Array {
  const dots = new Float64Array(count);
  const nonZero = vector.flatMap((weight, d) => (weight === 0 ? [] : [d]));
  let k = 0;
  for (; k + 4 <= nonZero.length; k += 4) {
    const [d0, d1, d2, d3] = nonZero.slice(k, k + 4) as [number, number, number, number];
    const w0 = vector[d0] as number;
    const w1 = vector[d1] as number;
    const w2 = vector[d2] as number;
    const w3 = vector[d3] as number;
    const c0 = columns.subarray(d0 * count, d0 * count + count);
    const c1 = columns.subarray(d1 * count, d1 * count + count);
    const c2 = columns.subarray(d2 * count, d2 * count + count);
    const c3 = columns.subarray(d3 * count, d3 * count + count);
    for (let row = 0; row < count; row++) {
      let dot = dots[row] as number;
      dot += w0 * (c0[row] as number);
      dot += w1 * (c1[row] as number);
      dot += w2 * (c2[row] as number);
      dot += w3 * (c3[row] as number);
      dots[row] = dot;
    }
  }
  for (; k < nonZero.length; k++) {
    const d = nonZero[k] as number;
    const w = vector[d] as number;
    const c = columns.subarray(d * count, d * count + count);
    for (let row = 0; row < count; row++) dots[row] = (dots[row] as number) + w * (c[row] as number);
  }
  return dots;
}

/**
 * The best `limit` offers by score descending, then id, each with a caller's tag. An offer that cannot
 * enter is refused by two comparisons, with nothing allocated: most rows of a query are refused.
 */
export class TopK {
  private readonly kept: { id: string; score: number; at: number }[] = [];

  constructor(private readonly limit: number) {}

  offer(id: string, score: number, at: number): void {
    const kept = this.kept;
    if (kept.length >= this.limit) {
      const last = kept[kept.length - 1] as { id: string; score: number };
      if (score < last.score || (score === last.score && id >= last.id)) return;
    }
    // Binary search for the first kept entry this one goes before.
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = kept[mid] as { id: string; score: number };
      if (score > other.score || (score === other.score && id < other.id)) high = mid;
      else low = mid + 1;
    }
    kept.splice(low, 0, { id, score, at });
    if (kept.length > this.limit) kept.pop();
  }

  entries(): readonly { id: string; score: number; at: number }[] {
    return this.kept;
  }
}
