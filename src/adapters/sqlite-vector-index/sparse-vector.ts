/**
 * Vectors as their non-zero dimensions, scored against dense centroids. Hashed text vectors have about
 * a third of their 384 slots non-zero, so skipping the zeros makes each comparison about three times
 * cheaper, and comparing against every centroid is what both writes (assignment) and training do.
 */
export interface SparseVector {
  /** Plain arrays: V8 allocates them far faster than small typed arrays, and there is one per vector. */
  dims: number[];
  values: number[];
}

export function sparse(values: ArrayLike<number>): SparseVector {
  const vector: SparseVector = { dims: [], values: [] };
  for (let d = 0; d < values.length; d++) {
    const value = values[d] as number;
    if (value === 0) continue;
    vector.dims.push(d);
    vector.values.push(value);
  }
  return vector;
}

/** The vector scaled to unit length (left as it is when zero), so every vector weighs alike in a mean. */
export function unit(vector: SparseVector): SparseVector {
  let squared = 0;
  for (const v of vector.values) squared += v * v;
  const length = Math.sqrt(squared);
  return length > 0 ? { dims: vector.dims, values: vector.values.map((v) => v / length) } : vector;
}

/** The dot product with the dense vector stored at `offset` of `dense`. */
export function dotAt(vector: SparseVector, dense: Float32Array, offset: number): number {
  const { dims, values } = vector;
  let dot = 0;
  for (let i = 0; i < dims.length; i++)
    dot += (values[i] as number) * (dense[offset + (dims[i] as number)] as number);
  return dot;
}

/**
 * The index of the centroid (rows of `centroids`, `dims` wide) with the largest dot product, the lowest
 * index on a tie. Centroids are unit vectors, so this is also the one of highest cosine.
 */
export function nearestCentroid(vector: SparseVector, centroids: Float32Array, dims: number): number {
  let best = 0;
  let bestDot = Number.NEGATIVE_INFINITY;
  for (let c = 0, offset = 0; offset < centroids.length; c++, offset += dims) {
    const dot = dotAt(vector, centroids, offset);
    if (dot > bestDot) {
      best = c;
      bestDot = dot;
    }
  }
  return best;
}
