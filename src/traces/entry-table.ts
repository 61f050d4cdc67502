/**
 * A compact, lossless form for a trace's entry lists when they are stored.
 *
 * A large thread's trace lists thousands of omitted objects, and nearly all of them repeat their
 * neighbour's fields except the id ("fact, superseded", "fact, over_budget, background"...). Stored
 * flat, every entry repeats its keys and those values: about 75 bytes for a 20-character id, and
 * 700 KB for one compile of a 10,000-object thread, which is near D1's limit for a single value and
 * costs the compile's Worker milliseconds of JSON work. Here each distinct set of keys is written once,
 * and a run of consecutive entries that differ only in their id is written as one row of values plus
 * its ids. Order, key order, absent keys and every value are kept, so decoding gives back the very list.
 */

/** Each entry starts with its id; the rest of its keys are one of `shapes`. */
export interface TraceEntry {
  object_id: string;
  [field: string]: unknown;
}

export interface EntryTable {
  /** The keys after `object_id`, in the entries' own order, one list per distinct set. */
  shapes: string[][];
  /** [shape index, values in that shape's order, ids of the consecutive entries sharing them]. */
  runs: [number, unknown[], string[]][];
}

export function encodeEntries(entries: readonly TraceEntry[]): EntryTable {
  const shapes: string[][] = [];
  const shapeIndex = new Map<string, number>();
  const runs: [number, unknown[], string[]][] = [];
  let last: [number, unknown[], string[]] | undefined;
  for (const entry of entries) {
    const { object_id: id, ...rest } = entry;
    if (typeof id !== "string") throw new TypeError("a trace entry needs a string object_id");
    const keys = Object.keys(rest);
    const signature = keys.join("\u0000");
    let shape = shapeIndex.get(signature);
    if (shape === undefined) {
      shape = shapes.length;
      shapes.push(keys);
      shapeIndex.set(signature, shape);
    }
    const values = keys.map((key) => rest[key]);
    if (last && last[0] === shape && sameValues(last[1], values)) {
      last[2].push(id);
    } else {
      last = [shape, values, [id]];
      runs.push(last);
    }
  }
  return { shapes, runs };
}

export function decodeEntries(table: EntryTable): TraceEntry[] {
  const entries: TraceEntry[] = [];
  for (const [shape, values, ids] of table.runs) {
    const keys = table.shapes[shape];
    if (!keys) throw new RangeError(`a stored trace run names shape ${shape}, which is not stored`);
    for (const id of ids) {
      const entry: TraceEntry = { object_id: id };
      // Entries of one run share plain values only (see sameValues), so none shares an array or object.
      for (const [i, key] of keys.entries()) entry[key] = values[i];
      entries.push(entry);
    }
  }
  return entries;
}

/** Only plain values merge runs; an array or object (refs...) starts a new run rather than being compared deeply. */
function sameValues(a: unknown[], b: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (x !== b[i] || (typeof x === "object" && x !== null)) return false;
  }
  return true;
}
