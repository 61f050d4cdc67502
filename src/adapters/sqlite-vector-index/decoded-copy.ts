import type { VectorRecord } from "../../ports/vector-index";
import { norm } from "./encoding";

/**
 * A namespace's vectors decoded once and kept in memory, so an unfiltered query need not read and
 * copy every BLOB (that was most of its cost). The copy is valid while the namespace's stored version
 * is the one it was made or last updated at; this instance's own writes update it in place: upserts
 * as added vectors, deletions as dropped rows, both folded into the columns once they pile up.
 */

/** Namespaces up to this many vectors are kept decoded in memory between unfiltered queries (6 MiB at 4,000 × 384). */
export const DECODED_LIMIT = 20_000;

export interface Decoded {
  version: number;
  dims: number;
  ids: string[];
  norms: Float64Array;
  metadata: string[];
  /**
   * Dimension-major: dimension d of row r at `d * ids.length + r`. A sparse query then reads one
   * contiguous run of rows per non-zero dimension instead of a scattered slot in every vector.
   */
  columns: Float32Array;
  /** Vectors this instance added since the columns were laid out, scored row by row. */
  added: { id: string; values: Float32Array; norm: number; metadata: string }[];
  /** Where each id is: a row of the columns (n ≥ 0), or entry -n - 1 of `added`. */
  rowOf: Map<string, number>;
  /** Rows of the columns deleted since they were laid out (1), skipped by queries until the next fold. */
  dropped: Uint8Array;
  droppedCount: number;
}

/** Added vectors are folded into the columns once there are this many, or an eighth of the rows. */
const ADDED_FOLD = 256;

export interface Entry {
  id: string;
  values: Float32Array;
  norm: number;
  metadata: string;
}

/** The copy laid out from its entries: every vector a row of the columns, none added or dropped. */
export function laidOut(version: number, dims: number, entries: Entry[]): Decoded {
  const count = entries.length;
  const decoded: Decoded = {
    version,
    dims,
    ids: entries.map((e) => e.id),
    norms: Float64Array.from(entries, (e) => e.norm),
    metadata: entries.map((e) => e.metadata),
    columns: new Float32Array(count * dims),
    added: [],
    rowOf: new Map(entries.map((e, i) => [e.id, i])),
    dropped: new Uint8Array(count),
    droppedCount: 0,
  };
  entries.forEach((entry, i) => {
    for (let d = 0; d < dims; d++) decoded.columns[d * count + i] = entry.values[d] as number;
  });
  return decoded;
}

/** The copy of vectors already laid out by dimension (a stored snapshot's), none added or dropped. */
export function laidOutColumns(
  version: number,
  dims: number,
  laid: Pick<Decoded, "ids" | "metadata" | "norms" | "columns">,
): Decoded {
  return {
    version,
    dims,
    ...laid,
    added: [],
    rowOf: new Map(laid.ids.map((id, i) => [id, i])),
    dropped: new Uint8Array(laid.ids.length),
    droppedCount: 0,
  };
}

/** The copy with nothing added or dropped since its columns were laid out: itself, or folded. */
export function compacted(held: Decoded): Decoded {
  return held.added.length || held.droppedCount ? folded(held) : held;
}

/** How many vectors the copy holds. */
export function heldCount(held: Decoded): number {
  return held.ids.length - held.droppedCount + held.added.length;
}

/**
 * The copy with its added vectors laid into the columns and its dropped rows left out: the rows kept,
 * in their order, then the added vectors, in theirs. Copied a dimension at a time, each run of kept
 * rows as one block, rather than taken apart into vectors and laid out again: a bulk write folds every
 * few hundred vectors, and folding a 10,000-row copy so took some 440 ms in Node, against 60 now.
 */
function folded(held: Decoded): Decoded {
  const { dims, dropped } = held;
  const count = held.ids.length;
  // Runs of rows kept, as [start, end) pairs: one run when nothing was dropped.
  const runs: number[] = [];
  for (let row = 0; row < count; ) {
    while (row < count && dropped[row]) row++;
    const start = row;
    while (row < count && !dropped[row]) row++;
    if (row > start) runs.push(start, row);
  }
  const ids: string[] = [];
  const metadata: string[] = [];
  const norms: number[] = [];
  for (let r = 0; r < runs.length; r += 2) {
    for (let row = runs[r] as number; row < (runs[r + 1] as number); row++) {
      ids.push(held.ids[row] as string);
      metadata.push(held.metadata[row] as string);
      norms.push(held.norms[row] as number);
    }
  }
  const kept = ids.length;
  for (const entry of held.added) {
    ids.push(entry.id);
    metadata.push(entry.metadata);
    norms.push(entry.norm);
  }
  const total = ids.length;
  const columns = new Float32Array(total * dims);
  for (let d = 0; d < dims; d++) {
    const from = d * count;
    let to = d * total;
    for (let r = 0; r < runs.length; r += 2) {
      const start = runs[r] as number;
      const end = runs[r + 1] as number;
      columns.set(held.columns.subarray(from + start, from + end), to);
      to += end - start;
    }
    for (const [i, entry] of held.added.entries()) columns[d * total + kept + i] = entry.values[d] as number;
  }
  return laidOutColumns(held.version, dims, { ids, metadata, norms: Float64Array.from(norms), columns });
}

/** Removes one deleted id from the copy: its row is marked dropped, or its added entry taken out. */
export function drop(held: Decoded, id: string): void {
  const at = held.rowOf.get(id);
  if (at === undefined) return;
  held.rowOf.delete(id);
  if (at >= 0) {
    held.dropped[at] = 1;
    held.droppedCount++;
    return;
  }
  const index = -at - 1;
  held.added.splice(index, 1);
  // Added entries after it moved up by one.
  for (let i = index; i < held.added.length; i++) held.rowOf.set((held.added[i] as Entry).id, -i - 1);
}

/** Writes one upserted record into the copy: over its row when held, else as an added vector. */
export function place(held: Decoded, record: VectorRecord): void {
  const values = Float32Array.from(record.values);
  placeEntry(held, { id: record.id, values, norm: norm(values), metadata: JSON.stringify(record.metadata) });
}

/** `place` for a vector already decoded, as stored (its values in Float32, its norm theirs). */
export function placeEntry(held: Decoded, entry: Entry): void {
  const at = held.rowOf.get(entry.id);
  if (at === undefined) {
    held.rowOf.set(entry.id, -held.added.length - 1);
    held.added.push(entry);
  } else if (at < 0) {
    held.added[-at - 1] = entry;
  } else {
    const count = held.ids.length;
    for (let d = 0; d < held.dims; d++) held.columns[d * count + at] = entry.values[d] as number;
    held.norms[at] = entry.norm;
    held.metadata[at] = entry.metadata;
  }
}

/** The copy brought to a write's version, folded once its additions or deletions pile up. */
export function settled(held: Decoded, version: number): Decoded {
  held.version = version;
  const pile = Math.max(ADDED_FOLD, held.ids.length / 8);
  return held.added.length >= pile || held.droppedCount >= pile ? folded(held) : held;
}
