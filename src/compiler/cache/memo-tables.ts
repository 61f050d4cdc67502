/**
 * The containers CompilerMemos (./memos.ts) builds its tables from, and every table's size limit. They
 * know no compiler types, so the modules that read a table can import them without depending on
 * CompilerMemos: each of those declares the slice of it that it reads.
 */

/** How many entries a bounded table holds before it is emptied; a limit per table, in one place. */
export const MEMO_LIMITS = {
  /** Figures per text (hygiene). */
  figures: 50_000,
  /** Figures outside its asides, per live claim (hygiene, ownFigures). */
  asideFreeFigures: 50_000,
  /** Verdicts per dead list on texts, and per live list on values (hygiene). */
  verdicts: 50_000,
  /** Merged lists per dead list, one per set of values messages retired (hygiene, withRetired). */
  mergedLists: 64,
  /** Masked texts per dead list (hygiene, maskClaims). */
  maskedTexts: 50_000,
  /** Parsed timestamps (pass 5). */
  instants: 50_000,
  /** Terms and their counts per text (lexical relevance). */
  documents: 20_000,
  /** Bulleted lines by body (pass 7). */
  bullets: 20_000,
  /** Undated forms of message lines, per token counter (pass 7). */
  undatedForms: 20_000,
  /** Days in words by timestamp (date-grouped transcript lines). */
  days: 20_000,
  /** Redacted lines, per clearance (pass 8). */
  redacted: 20_000,
} as const;

/**
 * A memo table that is simply emptied when full: entries are cheap to remake, and a warm thread's
 * working set is far below the limit, so eviction order would buy nothing.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly limit: number) {
    super();
  }

  /** Sets the entry, after emptying the table if it is full. */
  remember(key: K, value: V): V {
    if (this.size >= this.limit) this.clear();
    this.set(key, value);
    return value;
  }
}

/**
 * The memo a table keeps for one list, made on first use. Lists the compiler memoises by are never
 * changed once made, so whatever is worked out against one stays true for as long as the list lives.
 */
export function perList<K extends object, T>(tables: WeakMap<K, T>, list: K, make: () => T): T {
  let table = tables.get(list);
  if (table === undefined) {
    table = make();
    tables.set(list, table);
  }
  return table;
}
