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

/** Every list, nearest centroid first (the lower list number on a tie): the order a query probes. */
export function listsByNearness(layout: ListLayout, vector: ArrayLike<number>): number[] {
  const query = sparse(vector);
  const dots = layout.lists.map((_, i) => dotAt(query, layout.centroids, i * layout.dims));
  return layout.lists
    .map((list, i) => ({ list, dot: dots[i] as number }))
    .sort((a, b) => b.dot - a.dot || a.list - b.list)
    .map((entry) => entry.list);
}

/** The centroid of one list, a view into the layout. */
export function centroidOf(layout: ListLayout, list: number): Float32Array {
  const i = layout.lists.indexOf(list);
  return layout.centroids.subarray(i * layout.dims, (i + 1) * layout.dims);
}
