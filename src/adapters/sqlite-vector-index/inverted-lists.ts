import { approximateCandidates } from "./approximate-search";
import { DECODED_LIMIT } from "./decoded-copy";
import { floats } from "./encoding";
import {
  dropLayoutSnapshot,
  layoutSnapshotStamp,
  readLayoutSnapshot,
  stagedLayoutSnapshots,
  stageLayoutSnapshot,
} from "./layout-snapshot";
import { codeOf } from "./list-codes";
import { type ListLayout, layoutOf, listFor } from "./list-layout";
import { repack } from "./list-packing";
import { splitList } from "./list-splitting";
import {
  assignList,
  countMembers,
  createListTables,
  dropLists,
  readCentroids,
  readStamp,
  readUnassigned,
} from "./list-storage";
import { trainLists } from "./list-training";
import { sparse } from "./sparse-vector";
import { countVectors, type Row } from "./storage";
import type { StagedParts } from "./stored-parts";

/**
 * Inverted lists (IVF) over a namespace's vectors, for approximate search of large namespaces. Each
 * vector is in one list, that of its nearest centroid, kept in the indexed `list` column; each list's
 * members are also kept as one pack of byte codes (list-codes.ts). A query ranks the centroids, reads
 * the nearest few lists' packs (and the few members written since), and scores exactly only the best
 * of them (approximate-search.ts).
 *
 * Upkeep is on the write path, bounded per write: a namespace that reaches `trainAt` vectors is
 * trained once (list-training.ts); after that each written vector is assigned as it is stored (one
 * comparison with every centroid: about 40 µs at 300 lists), each write assigns up to ASSIGN_CHUNK
 * vectors still without a list (those stored before training, or before lists existed), splits each
 * list it grew past `listSize` (list-splitting.ts, at most SPLITS_PER_WRITE) and packs again each list
 * with PACK_TAIL members or more written since it was packed (list-packing.ts, at most
 * REPACKS_PER_WRITE).
 */
export interface ListSettings {
  /** Namespaces holding more vectors than this are searched through their lists, once they have them. */
  approximateAbove: number;
  /** A namespace gets its lists once it holds this many vectors. */
  trainAt: number;
  /** A list holding more vectors than this is split in two. */
  listSize: number;
  /** Non-empty lists a query reads, nearest centroid first (more while they hold fewer than topK vectors). */
  probes: number;
}

export const DEFAULT_LIST_SETTINGS: ListSettings = {
  approximateAbove: DECODED_LIMIT,
  trainAt: 4096,
  listSize: 512,
  probes: 10,
};

/** Vectors without a list assigned per write at most: about 50 ms of work at 300 lists. */
const ASSIGN_CHUNK = 1000;
const SPLITS_PER_WRITE = 4;
/** Members written since a list was packed that make it worth packing again (each query reads them row by row). */
const PACK_TAIL = 32;
const REPACKS_PER_WRITE = 8;

export class InvertedLists {
  private readonly held = new Map<string, ListLayout>();

  constructor(
    private readonly sql: SqlStorage,
    readonly settings: ListSettings,
  ) {
    createListTables(sql);
  }

  /**
   * The namespace's lists for vectors of `dims` dimensions; undefined while it has none (or only lists
   * of another dimension, which its next write drops). Held in memory while the stored stamp matches.
   */
  layout(namespace: string, dims: number): ListLayout | undefined {
    const layout = this.stored(namespace);
    return layout?.dims === dims ? layout : undefined;
  }

  /** The list a vector is written in; null while the namespace has no lists. */
  listOf(layout: ListLayout | undefined, values: Float32Array): number | null {
    return layout ? listFor(layout, sparse(values)) : null;
  }

  /**
   * Upkeep after a write to the namespace that added vectors to the `touched` lists: training once it is
   * large enough, then assigning vectors without a list and splitting lists grown too long.
   */
  keepUp(namespace: string, dims: number, touched: Set<number>): void {
    const stored = this.stored(namespace);
    if (stored && stored.dims !== dims) dropLists(this.sql, namespace);
    if (!stored || stored.dims !== dims) {
      const { trainAt, listSize } = this.settings;
      if (countVectors(this.sql, namespace, trainAt) < trainAt) return;
      // Training is this write's upkeep; assignment starts with the next write.
      this.held.set(namespace, trainLists(this.sql, namespace, dims, listSize));
      return;
    }
    let layout = stored;
    for (const member of readUnassigned(this.sql, namespace, ASSIGN_CHUNK)) {
      const values = floats(member.vec, dims, member.id);
      const list = listFor(layout, sparse(values));
      assignList(this.sql, namespace, member.id, list, codeOf(values, member.norm, dims));
      touched.add(list);
    }
    const count = (which: "all" | "tail") => (list: number) => countMembers(this.sql, namespace, list, which);
    for (const list of largest(touched, count("all"), this.settings.listSize + 1, SPLITS_PER_WRITE)) {
      layout = splitList(this.sql, namespace, layout, list);
    }
    this.held.set(namespace, layout);
    // Lists just split were packed whole: their tails are empty.
    for (const list of largest(touched, count("tail"), PACK_TAIL, REPACKS_PER_WRITE)) {
      repack(this.sql, namespace, list, dims);
    }
  }

  /**
   * Starts storing the namespace's layout as its snapshot (layout-snapshot.ts), unless the stored one
   * already stands for it: the stage that writes its parts, or undefined. Off the write path: it writes
   * every centroid.
   */
  stageSnapshot(namespace: string, layout: ListLayout): StagedParts<string> | undefined {
    if (layoutSnapshotStamp(this.sql, namespace) === layout.stamp) return undefined;
    return stageLayoutSnapshot(this.sql, namespace, layout);
  }

  /** The namespaces whose layout snapshot was staged and not finished (by any instance). */
  stagedSnapshots(): string[] {
    return stagedLayoutSnapshots(this.sql);
  }

  /** Deletes the namespace's layout snapshot, if it has one. */
  dropSnapshot(namespace: string): void {
    dropLayoutSnapshot(this.sql, namespace);
  }

  /** The rows an approximate query of the namespace scores exactly (approximate-search.ts). */
  candidates(
    namespace: string,
    layout: ListLayout,
    vector: number[],
    topK: number,
    minScore?: number,
  ): Iterable<Row> {
    return approximateCandidates(this.sql, namespace, layout, vector, {
      topK,
      probes: this.settings.probes,
      ...(minScore === undefined ? {} : { minScore }),
    });
  }

  private stored(namespace: string): ListLayout | undefined {
    const stamp = readStamp(this.sql, namespace);
    if (stamp === 0) {
      this.held.delete(namespace);
      return undefined;
    }
    const held = this.held.get(namespace);
    if (held?.stamp === stamp) return held;
    const layout =
      readLayoutSnapshot(this.sql, namespace, stamp) ?? layoutOf(stamp, readCentroids(this.sql, namespace));
    this.held.set(namespace, layout);
    return layout;
  }
}

/** Up to `most` of the lists whose count is at least `least`, the largest first (lower numbers on a tie). */
function largest(lists: Set<number>, count: (list: number) => number, least: number, most: number): number[] {
  return [...lists]
    .map((list) => ({ list, n: count(list) }))
    .filter((entry) => entry.n >= least)
    .sort((a, b) => b.n - a.n || a.list - b.list)
    .slice(0, most)
    .map((entry) => entry.list);
}
