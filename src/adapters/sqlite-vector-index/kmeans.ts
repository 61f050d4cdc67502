import { dotAt, nearestCentroid, type SparseVector } from "./sparse-vector";

/**
 * Spherical k-means: unit centroids, each point assigned to the centroid of highest cosine. It trains a
 * namespace's first lists and splits a list that grew too long (k = 2). Deterministic: the seeds are
 * the caller's, ties go to the lower centroid, and sums run in the points' order.
 *
 * Cost: points × k × non-zero dimensions multiply-adds per iteration (about 140 non-zero of 384 for
 * hashed chat text): 4,096 points, 16 centroids and 6 iterations are 55 M, some 60 ms of JavaScript.
 */
export interface Clustering {
  /** k unit centroids, row by row, each `dims` wide; a centroid no point chose keeps its last value. */
  centroids: Float32Array;
  /** The centroid of each point, against the final centroids. */
  assignment: Int32Array;
  /** Points per centroid. */
  sizes: Int32Array;
}

/** Clusters unit `points`, starting from the points at `seeds` (one centroid each). */
export function sphericalKMeans(
  points: readonly SparseVector[],
  dims: number,
  seeds: readonly number[],
  iterations: number,
): Clustering {
  const centroids = new Float32Array(seeds.length * dims);
  for (const [c, seed] of seeds.entries()) scatter(points[seed] as SparseVector, centroids, c * dims);
  const assignment = new Int32Array(points.length);
  for (let round = 0; round < iterations; round++) {
    assign(points, centroids, dims, assignment);
    recenter(points, dims, assignment, centroids);
  }
  assign(points, centroids, dims, assignment);
  const sizes = new Int32Array(seeds.length);
  for (const c of assignment) sizes[c] = (sizes[c] as number) + 1;
  return { centroids, assignment, sizes };
}

/**
 * Two seeds that pull a list apart: the point least like the list's centroid, then the point least
 * like that one (the lower index on a tie).
 */
export function splitSeeds(
  points: readonly SparseVector[],
  centroid: Float32Array,
  dims: number,
): [number, number] {
  const first = leastLike(points, centroid);
  const dense = new Float32Array(dims);
  scatter(points[first] as SparseVector, dense, 0);
  return [first, leastLike(points, dense)];
}

function leastLike(points: readonly SparseVector[], dense: Float32Array): number {
  let found = 0;
  let lowest = Number.POSITIVE_INFINITY;
  points.forEach((point, i) => {
    const dot = dotAt(point, dense, 0);
    if (dot < lowest) {
      found = i;
      lowest = dot;
    }
  });
  return found;
}

function scatter(point: SparseVector, dense: Float32Array, offset: number): void {
  point.dims.forEach((d, i) => {
    dense[offset + d] = point.values[i] as number;
  });
}

function assign(
  points: readonly SparseVector[],
  centroids: Float32Array,
  dims: number,
  into: Int32Array,
): void {
  points.forEach((point, i) => {
    into[i] = nearestCentroid(point, centroids, dims);
  });
}

/** Each centroid becomes the normalised sum of its points; one with none (or a zero sum) stays. */
function recenter(
  points: readonly SparseVector[],
  dims: number,
  assignment: Int32Array,
  centroids: Float32Array,
): void {
  const sums = new Float64Array(centroids.length);
  points.forEach((point, i) => {
    const offset = (assignment[i] as number) * dims;
    point.dims.forEach((d, j) => {
      sums[offset + d] = (sums[offset + d] as number) + (point.values[j] as number);
    });
  });
  for (let offset = 0; offset < centroids.length; offset += dims) {
    let squared = 0;
    for (let d = 0; d < dims; d++) squared += (sums[offset + d] as number) ** 2;
    if (squared === 0) continue;
    const length = Math.sqrt(squared);
    for (let d = 0; d < dims; d++) centroids[offset + d] = (sums[offset + d] as number) / length;
  }
}
