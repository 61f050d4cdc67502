import { floats } from "./encoding";
import { dotAt, nearestCentroid, type SparseVector, sparse } from "./sparse-vector";

/**
 * A namespace's inverted lists as held in memory: their numbers in ascending order and their unit
 * centroids row by row (Float32, exactly the stored bytes, so every instance assigns alike), with the
 * stamp of the stored layout they were read or written at.
 */
export interface ListLayout {
  stamp: number;
  dims: number;
  lists: number[];
  centroids: Float32Array;
}

/** The layout of these lists, given in ascending order, with their centroids. */
export function layoutFrom(
  stamp: number,
  dims: number,
  entries: { list: number; centroid: Float32Array }[],
): ListLayout {
  const centroids = new Float32Array(entries.length * dims);
  for (const [i, entry] of entries.entries()) centroids.set(entry.centroid, i * dims);
  return { stamp, dims, lists: entries.map((entry) => entry.list), centroids };
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
  return layout.lists[nearestCentroid(vector, layout.centroids, layout.dims)] as number;
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
  const query = sparse(vector);
  const { lists } = layout;
  const dots = new Float64Array(lists.length);
  for (let i = 0; i < lists.length; i++) dots[i] = dotAt(query, layout.centroids, i * layout.dims);
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

/** The centroid of one list, a view into the layout. */
export function centroidOf(layout: ListLayout, list: number): Float32Array {
  const i = layout.lists.indexOf(list);
  return layout.centroids.subarray(i * layout.dims, (i + 1) * layout.dims);
}
