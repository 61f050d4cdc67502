import { floats } from "./encoding";
import { type SparseVector, sparse } from "./sparse-vector";

/**
 * A namespace's inverted lists as held in memory: their numbers in ascending order and their unit
 * centroids (Float32, exactly the stored bytes, so every instance assigns alike), with the stamp of the
 * stored layout they were read or written at. The centroids are held dimension by dimension (`columns`:
 * dimension d of the c-th list's centroid at d × lists + c): comparing a vector with every centroid
 * (each query, and each vector written) then reads memory in order rather than gathering the vector's
 * non-zero dimensions from each centroid in turn, three times faster at 6,000 lists (1,000,000 vectors).
 */
export interface ListLayout {
  stamp: number;
  dims: number;
  lists: number[];
  columns: Float32Array;
}

/** The layout of these lists, given in ascending order, with their centroids. */
export function layoutFrom(
  stamp: number,
  dims: number,
  entries: { list: number; centroid: Float32Array }[],
): ListLayout {
  const count = entries.length;
  const columns = new Float32Array(count * dims);
  for (const [c, { centroid }] of entries.entries()) {
    for (let d = 0; d < dims; d++) columns[d * count + c] = centroid[d] as number;
  }
  return { stamp, dims, lists: entries.map((entry) => entry.list), columns };
}

/**
 * The layout after a split: `list`'s centroid replaced and `added` (numbered past every list) appended
 * with its own.
 */
export function splitLayout(
  layout: ListLayout,
  stamp: number,
  split: { list: number; centroid: Float32Array },
  added: { list: number; centroid: Float32Array },
): ListLayout {
  const { dims, lists, columns } = layout;
  const count = lists.length;
  const at = lists.indexOf(split.list);
  const next = new Float32Array((count + 1) * dims);
  for (let d = 0; d < dims; d++) {
    next.set(columns.subarray(d * count, (d + 1) * count), d * (count + 1));
    next[d * (count + 1) + at] = split.centroid[d] as number;
    next[d * (count + 1) + count] = added.centroid[d] as number;
  }
  return { stamp, dims, lists: [...lists, added.list], columns: next };
}

/**
 * The vector's dot product with every centroid, in list order. Each sum adds the vector's non-zero
 * dimensions in order, as a row-by-row dot product does, so each is the same number; four dimensions
 * are added per pass over the lists, so the sums are read and written a quarter as often (1.8 times
 * faster than one dimension per pass, which was no faster than gathering from rows).
 */
export function centroidDots(layout: ListLayout, vector: SparseVector): Float64Array {
  const count = layout.lists.length;
  const dots = new Float64Array(count);
  const { columns } = layout;
  const { dims, values } = vector;
  let k = 0;
  for (; k + 4 <= dims.length; k += 4) {
    const [w0, w1, w2, w3] = values.slice(k, k + 4) as [number, number, number, number];
    const [a0, a1, a2, a3] = dims.slice(k, k + 4).map((d) => d * count) as [number, number, number, number];
    for (let c = 0; c < count; c++) {
      let dot = dots[c] as number;
      dot += w0 * (columns[a0 + c] as number);
      dot += w1 * (columns[a1 + c] as number);
      dot += w2 * (columns[a2 + c] as number);
      dot += w3 * (columns[a3 + c] as number);
      dots[c] = dot;
    }
  }
  for (; k < dims.length; k++) {
    const weight = values[k] as number;
    const at = (dims[k] as number) * count;
    for (let c = 0; c < count; c++) dots[c] = (dots[c] as number) + weight * (columns[at + c] as number);
  }
  return dots;
}

/** The layout of stored centroids, given in ascending list order. */
export function layoutOf(stamp: number, rows: { list: number; centroid: ArrayBuffer }[]): ListLayout {
  const dims = (rows[0]?.centroid.byteLength ?? 0) / 4;
  return layoutFrom(
    stamp,
    dims,
    rows.map((row) => ({ list: row.list, centroid: floats(row.centroid, dims, `centroid ${row.list}`) })),
  );
}

/** The list a vector goes in: its nearest centroid's (the lowest list number on a tie). */
export function listFor(layout: ListLayout, vector: SparseVector): number {
  const dots = centroidDots(layout, vector);
  let best = 0;
  for (let c = 1; c < dots.length; c++) if ((dots[c] as number) > (dots[best] as number)) best = c;
  return layout.lists[best] as number;
}

/**
 * Every list, nearest centroid first (the lower list number on a tie): the order a query probes. A query
 * reads the first few (its probes, and more only past empty lists), so the nearest `head` are picked out
 * as they are scored and the rest sorted only when asked for: at 3,600 lists, sorting them all was most
 * of the ordering's cost.
 */
export function* listsByNearness(
  layout: ListLayout,
  vector: ArrayLike<number>,
  head = 32,
): Generator<number> {
  const { lists } = layout;
  const dots = centroidDots(layout, sparse(vector));
  const before = (a: number, b: number) =>
    (dots[a] as number) > (dots[b] as number) ||
    (dots[a] === dots[b] && (lists[a] as number) < (lists[b] as number));
  // The nearest `head`, in order: each list goes in by binary search unless it comes after the last kept.
  const nearest: number[] = [];
  for (let i = 0; i < lists.length; i++) {
    if (nearest.length === head && !before(i, nearest[head - 1] as number)) continue;
    let low = 0;
    let high = nearest.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (before(i, nearest[mid] as number)) high = mid;
      else low = mid + 1;
    }
    nearest.splice(low, 0, i);
    if (nearest.length > head) nearest.pop();
  }
  for (const i of nearest) yield lists[i] as number;
  if (nearest.length === lists.length) return;
  const picked = new Set(nearest);
  const rest = lists.map((_, i) => i).filter((i) => !picked.has(i));
  rest.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  for (const i of rest) yield lists[i] as number;
}

/** The centroid of one list, copied out of the layout's columns. */
export function centroidOf(layout: ListLayout, list: number): Float32Array {
  const { dims, lists, columns } = layout;
  const at = lists.indexOf(list);
  return Float32Array.from({ length: dims }, (_, d) => columns[d * lists.length + at] as number);
}
