import { describe, expect, it } from "vitest";
import {
  centroidDots,
  centroidOf,
  layoutFrom,
  listFor,
  listsByNearness,
  splitLayout,
} from "../src/adapters/sqlite-vector-index/list-layout";
import { seededRandom } from "../src/adapters/sqlite-vector-index/seeded-random";
import { dotAt, nearestCentroid, sparse } from "../src/adapters/sqlite-vector-index/sparse-vector";

/** Every list by a full sort: nearest centroid first, the lower list number on a tie. */
function sortedOrder(lists: number[], centroids: Float32Array[], query: number[]): number[] {
  const dot = (c: Float32Array) => query.reduce((sum, v, d) => sum + v * (c[d] as number), 0);
  return lists
    .map((list, i) => ({ list, dot: dot(centroids[i] as Float32Array) }))
    .sort((a, b) => b.dot - a.dot || a.list - b.list)
    .map((entry) => entry.list);
}

describe("the order a query probes inverted lists in", () => {
  // 40 lists over 4 dimensions, in pairs with the same centroid (ties), numbered out of order.
  const dims = 4;
  const lists = Array.from({ length: 40 }, (_, i) => (i * 7) % 41);
  const centroids = lists.map((_, i) => {
    const angle = Math.floor(i / 2) * 0.15;
    return Float32Array.from([Math.cos(angle), Math.sin(angle), (i % 4) * 0.01, 0]);
  });
  const layout = layoutFrom(
    1,
    dims,
    lists.map((list, i) => ({ list, centroid: centroids[i] as Float32Array })),
  );
  const queries = [
    [1, 0, 0, 0],
    [0, 1, 0, 0],
    [0.3, 0.2, 0.9, 0],
    [-1, 0, 0, 0],
  ];

  it("is every list, nearest first, the lower number on a tie, whether or not it reaches past the nearest it picks out", () => {
    for (const query of queries) {
      const expected = sortedOrder(lists, centroids, query);
      expect([...listsByNearness(layout, query)]).toEqual(expected);
      expect([...listsByNearness(layout, query, 3)]).toEqual(expected);
      expect([...listsByNearness(layout, query, 1)]).toEqual(expected);
    }
  });

  it("gives the nearest first without ordering the rest when only they are read", () => {
    const query = queries[2] as number[];
    const order = listsByNearness(layout, query, 5);
    const firstFive = [0, 1, 2, 3, 4].map(() => order.next().value);
    expect(firstFive).toEqual(sortedOrder(lists, centroids, query).slice(0, 5));
  });
});

describe("centroids held dimension by dimension", () => {
  // 53 lists of 11 dimensions: the four-at-a-time loop and its remainder both run.
  const dims = 11;
  const random = seededRandom(7);
  const value = () => (random() < 0.3 ? 0 : random() * 2 - 1);
  const entries = Array.from({ length: 53 }, (_, i) => ({
    list: i * 3,
    centroid: Float32Array.from({ length: dims }, value),
  }));
  const rows = new Float32Array(entries.length * dims);
  for (const [i, entry] of entries.entries()) rows.set(entry.centroid, i * dims);
  const layout = layoutFrom(1, dims, entries);
  const queries = Array.from({ length: 30 }, () => Array.from({ length: dims }, value));

  it("give each centroid's dot product with a vector bit for bit as a row-by-row product does", () => {
    for (const query of queries) {
      const vector = sparse(query);
      const dots = centroidDots(layout, vector);
      expect([...dots]).toEqual(entries.map((_, i) => dotAt(vector, rows, i * dims)));
      expect(listFor(layout, vector)).toBe(entries[nearestCentroid(vector, rows, dims)]?.list);
    }
  });

  it("give back each centroid, and after a split hold what the split lists' centroids say", () => {
    for (const entry of entries) expect(centroidOf(layout, entry.list)).toEqual(entry.centroid);
    const replaced = Float32Array.from({ length: dims }, value);
    const added = { list: 500, centroid: Float32Array.from({ length: dims }, value) };
    const split = splitLayout(layout, 2, { list: 30, centroid: replaced }, added);
    const expected = layoutFrom(2, dims, [
      ...entries.map((entry) => (entry.list === 30 ? { list: 30, centroid: replaced } : entry)),
      added,
    ]);
    expect(split).toEqual(expected);
    // The layout split from is left as it was.
    expect(layout).toEqual(layoutFrom(1, dims, entries));
  });
});
