/**
 * Stored records as CompileCache compares and keeps them: plain data (strings, numbers, booleans, null,
 * arrays and plain objects), compared by value, copied when kept, and recognised when deeply frozen.
 */

/**
 * Whether a value and everything it holds are frozen, and so can never change again. `found` holds the
 * values already found so (a thread hands in the same frozen records compile after compile).
 */
export function deeplyFrozen(value: unknown, found: WeakSet<object>): boolean {
  if (typeof value !== "object" || value === null) return true;
  if (found.has(value)) return true;
  if (!Object.isFrozen(value)) return false;
  // for…in rather than Object.keys: no array of keys per record, and a large project's compile is
  // handed hundreds of records it has not seen as objects (plain data inherits nothing enumerable).
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (typeof field === "object" && field !== null && !deeplyFrozen(field, found)) return false;
  }
  found.add(value);
  return true;
}

/**
 * Records are plain data: strings, numbers, booleans, null, arrays and plain objects. A snapshot is
 * kept rather than the caller's record, so a caller that later mutates its record cannot make a stale
 * entry look current.
 */
export function snapshot<T>(record: T): T {
  if (typeof record !== "object" || record === null) return record;
  if (Array.isArray(record)) return record.map(snapshot) as T;
  // Spread, not key-by-key assignment: a record of forty columns built one key at a time ends up in
  // V8's slow dictionary mode, and entries are read on every compile.
  const copy = { ...record } as Record<string, unknown>;
  for (const key in copy) {
    const value = copy[key];
    if (typeof value === "object" && value !== null) copy[key] = snapshot(value);
  }
  return copy as T;
}

/** Deep equality over plain data. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    const x = left[key];
    const y = right[key];
    // Most fields are strings, numbers or null: compared in place, without a call.
    if (x !== y && (typeof x !== "object" || x === null || !sameData(x, y))) return false;
    keys++;
  }
  for (const _ in right) keys--;
  return keys === 0;
}
