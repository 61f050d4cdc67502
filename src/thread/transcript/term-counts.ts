import { matchExpression, RANKED_MATCH_BUDGET } from "../../retrieval/query-terms";

/** The two full-text indexes over messages: whole, and by passage. */
export type FtsTable = "episode_fts" | "passage_fts";

/** Terms whose count is held per table at most; past it the held counts are let go. */
export const HELD_TERM_COUNTS = 10_000;

/**
 * What the message search's ranking choice needs to know of an FTS table (query-terms.ts rankedTerms):
 * whether it holds more rows than the ranking budget, and each query term's matches, counted up to the
 * budget plus one. Both are held between compiles, because both only grow: FTS rows are never updated
 * or deleted, so a table past the budget stays past it, and a term found in more rows than the budget
 * stays so whatever is written (a saturated count is exact for good). Any other count holds only until
 * the next message is written. A write's rows are not certain until its transaction is in: from the
 * first `writing` to the `written` that ends it, nothing counted is held for good, as a rolled-back
 * write takes its rows with it.
 */
export class TermCounts {
  private readonly tables = new Map<FtsTable, HeldCounts>();
  private pending = false;

  constructor(private readonly sql: SqlStorage) {}

  /** Call in a transaction that adds FTS rows, before the first one. */
  writing(): void {
    this.pending = true;
    for (const held of this.tables.values()) held.counts.clear();
  }

  /** Call last in that transaction, once its rows are all added. */
  written(): void {
    this.pending = false;
  }

  /**
   * True when the table holds more rows than the ranking budget. FTS rowids only grow, so the largest
   * is a bound on the rows indexed, read from the index's end in one step.
   */
  large(table: FtsTable): boolean {
    const held = this.held(table);
    if (held.large) return true;
    const indexed = this.sql.exec<{ n: number }>(`SELECT coalesce(max(rowid), 0) AS n FROM ${table}`).one().n;
    const large = indexed > RANKED_MATCH_BUDGET;
    if (large && !this.pending) held.large = true;
    return large;
  }

  /**
   * Each term's matches in the table, up to the budget plus one; the terms not held are counted in one
   * statement.
   */
  count(table: FtsTable, terms: readonly string[]): number[] {
    const held = this.held(table);
    const known = (term: string) =>
      held.saturated.has(term) ? RANKED_MATCH_BUDGET + 1 : held.counts.get(term);
    const missing = [...new Set(terms.filter((term) => known(term) === undefined))];
    if (missing.length > 0) {
      const rows = this.sql.exec<{ i: number; n: number }>(
        `SELECT t.key AS i, (SELECT count(*) FROM (
           SELECT rowid FROM ${table} WHERE ${table} MATCH t.value LIMIT ?
         )) AS n FROM json_each(?) t`,
        RANKED_MATCH_BUDGET + 1,
        JSON.stringify(missing.map((term) => matchExpression([term]))),
      );
      if (held.counts.size + held.saturated.size + missing.length > HELD_TERM_COUNTS) {
        held.counts.clear();
        held.saturated.clear();
      }
      const counted = new Map<string, number>();
      for (const { i, n } of rows) counted.set(missing[i] as string, n);
      if (!this.pending) {
        for (const [term, n] of counted) {
          if (n > RANKED_MATCH_BUDGET) held.saturated.add(term);
          else held.counts.set(term, n);
        }
      }
      return terms.map((term) => known(term) ?? counted.get(term) ?? 0);
    }
    return terms.map((term) => known(term) ?? 0);
  }

  private held(table: FtsTable): HeldCounts {
    let held = this.tables.get(table);
    if (!held) {
      held = { large: false, saturated: new Set(), counts: new Map() };
      this.tables.set(table, held);
    }
    return held;
  }
}

interface HeldCounts {
  large: boolean;
  saturated: Set<string>;
  counts: Map<string, number>;
}
