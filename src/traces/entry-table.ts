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
  let lastKeys: string[] = [];
  for (const entry of entries) {
    const id = entry.object_id;
    if (typeof id !== "string") throw new TypeError("a trace entry needs a string object_id");
    // Neighbours nearly always share their keys, so the shape is looked up only when they change.
    const keys = Object.keys(entry);
    let shape = last?.[0];
    if (shape === undefined || !sameKeys(keys, lastKeys)) {
      const own = keys.filter((key) => key !== "object_id");
      const signature = own.join("\u0000");
      shape = shapeIndex.get(signature);
      if (shape === undefined) {
        shape = shapes.length;
        shapes.push(own);
        shapeIndex.set(signature, shape);
      }
      lastKeys = keys;
    }
    const shapeKeys = shapes[shape] as string[];
    if (last && last[0] === shape && sameValues(last[1], entry, shapeKeys)) {
      last[2].push(id);
    } else {
      last = [shape, shapeKeys.map((key) => entry[key]), [id]];
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

function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Only plain values merge runs; an array or object (refs...) starts a new run rather than being compared deeply. */
function sameValues(values: unknown[], entry: TraceEntry, keys: string[]): boolean {
  for (let i = 0; i < keys.length; i++) {
    const x = values[i];
    if (x !== entry[keys[i] as string] || (typeof x === "object" && x !== null)) return false;
  }
  return true;
}
