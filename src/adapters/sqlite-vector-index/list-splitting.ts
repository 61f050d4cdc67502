import { sphericalKMeans, splitSeeds } from "./kmeans";
import { centroidOf, type ListLayout, splitLayout } from "./list-layout";
import { decodedMembers, storePack } from "./list-packing";
import { readMembers, setList, writeCentroids } from "./list-storage";
import { sparse, unit } from "./sparse-vector";

/**
 * Rebalancing as a namespace grows: a list that grew past its size is split in two by 2-means over its
 * own members, so lists stay short (a query reads a few of them whole) and their number grows with
 * the namespace, with no retraining of the whole: the work is local and bounded (about 8 ms for a
 * 512-vector list: read it, 4 rounds of 2-means, move half of it, pack both halves).
 */

const SPLIT_ITERATIONS = 4;

/** Splits `list`: the larger half keeps its number, the other becomes a new list. The new layout. */
export function splitList(sql: SqlStorage, namespace: string, layout: ListLayout, list: number): ListLayout {
  const { dims } = layout;
  const members = decodedMembers(readMembers(sql, namespace, list), dims);
  const points = members.map((m) => unit(sparse(m.values)));
  const centroid = centroidOf(layout, list);
  let { centroids, assignment } = sphericalKMeans(
    points,
    dims,
    splitSeeds(points, centroid, dims),
    SPLIT_ITERATIONS,
  );
  let moving = assignment.filter((side) => side === 1).length;
  if (moving === 0 || moving === members.length) {
    // Members too alike to pull apart (copies of one text): halves in id order, on one centroid.
    assignment = Int32Array.from(members, (_, i) => (i < members.length / 2 ? 0 : 1));
    centroids = Float32Array.of(...centroid, ...centroid);
    moving = members.length - Math.ceil(members.length / 2);
  }
  // The larger half stays, so fewer rows are rewritten.
  const staying = moving * 2 <= members.length ? 0 : 1;
  // Lists are numbered in ascending order: the new one takes the next number.
  const added = (layout.lists.at(-1) as number) + 1;
  const stays = members.filter((_, i) => assignment[i] === staying);
  const leaves = members.filter((_, i) => assignment[i] !== staying);
  for (const member of leaves) setList(sql, namespace, member.id, added);
  storePack(sql, namespace, list, stays, dims);
  storePack(sql, namespace, added, leaves, dims);
  const row = (side: number) => centroids.slice(side * dims, (side + 1) * dims);
  const stamp = writeCentroids(sql, namespace, [
    { list, centroid: row(staying) },
    { list: added, centroid: row(1 - staying) },
  ]);
  return splitLayout(
    layout,
    stamp,
    { list, centroid: row(staying) },
    { list: added, centroid: row(1 - staying) },
  );
}
