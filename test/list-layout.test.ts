import { describe, expect, it } from "vitest";
import { layoutFrom, listsByNearness } from "../src/adapters/sqlite-vector-index/list-layout";

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
