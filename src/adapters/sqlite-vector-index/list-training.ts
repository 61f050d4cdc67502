import { floats } from "./encoding";
import { sphericalKMeans } from "./kmeans";
import { type ListLayout, layoutFrom } from "./list-layout";
import { readIds, readPlacedRows, writeCentroids } from "./list-storage";
import { samplePositions, seededRandom } from "./seeded-random";
import { sparse, unit } from "./sparse-vector";

/**
 * A namespace's first lists: spherical k-means over a seeded sample of its vectors, once it holds
 * enough of them. Its vectors are not assigned here but by the next writes, a chunk at a time.
 *
 * Bounded cost, once per namespace: the namespace's ids read (only large when it was stored before
 * lists existed: some tens of milliseconds at 100,000), then at most TRAINING_SAMPLE vectors
 * (by id), and k-means with at most MAX_TRAINED_LISTS centroids for TRAINING_ITERATIONS rounds: at
 * most 2,048 × 32 × ~140 non-zero dimensions × 7 assignments = 64 M multiply-adds. A namespace trained
 * at 4,096 vectors gets 16 lists; measured, its whole write takes about 0.1 s (0.2 s on a busy 2-core
 * machine). Splits add lists as it grows.
 */

/** Vectors k-means trains on at most: 64 or more a list. */
const TRAINING_SAMPLE = 2048;
const TRAINING_ITERATIONS = 6;
/** Lists trained at most; a namespace already far larger (stored before lists existed) gets more by splits. */
const MAX_TRAINED_LISTS = 32;
/** Fixed, so the sample, and so the lists, depend only on what the namespace holds. */
const SAMPLE_SEED = 0x1157_5eed;

/** Trains and stores the namespace's lists, about `listSize / 2` sampled vectors each; their layout. */
export function trainLists(sql: SqlStorage, namespace: string, dims: number, listSize: number): ListLayout {
  const ids = readIds(sql, namespace);
  const sample = samplePositions(ids.length, TRAINING_SAMPLE, seededRandom(SAMPLE_SEED)).map(
    (position) => ids[position] as string,
  );
  const stored = new Map(readPlacedRows(sql, namespace, sample).map((row) => [row.id, row.vec]));
  const points = sample.map((id) => unit(sparse(floats(stored.get(id) as ArrayBuffer, dims, id))));
  const count = Math.max(1, Math.min(MAX_TRAINED_LISTS, Math.round(ids.length / (listSize / 2))));
  // The sample is in drawn (random) order, so its first points are random seeds.
  const seeds = Array.from({ length: Math.min(count, points.length) }, (_, i) => i);
  const { centroids, sizes } = sphericalKMeans(points, dims, seeds, TRAINING_ITERATIONS);
  // Lists no sampled vector chose are left out, so none starts empty.
  const kept = seeds.filter((c) => (sizes[c] as number) > 0);
  const entries = kept.map((c, list) => ({ list, centroid: centroids.slice(c * dims, (c + 1) * dims) }));
  return layoutFrom(writeCentroids(sql, namespace, entries), dims, entries);
}
