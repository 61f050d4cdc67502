import { porterToken } from "./porter-stem";
import { varintSum } from "./sqlite-varints";

/**
 * A word's postings read from FTS5's own instance table, for held-bm25.ts: each row the word's token is
 * in, how many times, and the row's length in tokens.
 *
 * Why: asked for a word's rows, FTS5's bm25 reads each matching row's length from the docsize table, a
 * B-tree look-up per row, and that is most of its cost (at 100,000 messages, a word in 4,186 of them:
 * 7.7 ms to rank, 1.2 ms to list its instances, measured in Node over the same table). The rows' lengths
 * change only when rows are written, and the owner reports every write, so they are read once and held
 * (4 bytes a row, by rowid); a word's instances are then one scan of one term's entries.
 *
 * The instance table is keyed by the token, so a word is read this way only when its token is known
 * exactly (porter-stem.ts); whoever uses a list checks one of its rows against FTS5's bm25, which would
 * disagree were the token, the count of rows or a length wrong.
 */

/** Rows whose lengths are held at most (4 bytes each); a table with rowids past it is read by bm25. */
export const LENGTH_ROWS = 2_000_000;

/** Rows' lengths read a slice at most (some 3 ms), between requests. */
const LENGTH_SLICE = 5_000;

/**
 * Lengths read at once for a list, at most, when its rows are not held yet (written since the load,
 * or reported changed): past it, FTS5's own ranking costs no more.
 */
const UNKNOWN_LIMIT = 256;

export interface InstanceList {
  /** Rowids, ascending. */
  docs: Float64Array;
  /** The token's instances in each row, all columns. */
  freq: Uint32Array;
  /** Each row's length in tokens, all columns. */
  size: Uint32Array;
}

export class InstanceLists {
  /** Each row's length by rowid; 0 where not held (a row that holds a token is never empty). */
  private lengths = new Uint32Array(0);
  /** The last rowid the load has read through, and whether it has reached the end of the table once. */
  private loadedThrough = 0;
  private loaded = false;
  /** Rowids run past LENGTH_ROWS: nothing is read this way. */
  private tooLarge = false;
  /** Rows at or below loadedThrough whose lengths were forgotten (written since): read again by `load`. */
  private readonly forgotten = new Set<number>();

  /** The instance table could not be made or read: lists are read through bm25 only. */
  private unavailable = false;

  constructor(
    private readonly sql: SqlStorage,
    private readonly table: string,
    private readonly maxRows = LENGTH_ROWS,
    private readonly sliceRows = LENGTH_SLICE,
  ) {
    // An `fts5vocab` table stores nothing: it reads the full-text table's own index. Only speed depends
    // on it, so a runtime that refused it would still serve every search.
    try {
      sql.exec(
        `CREATE VIRTUAL TABLE IF NOT EXISTS "${table}_instance" USING fts5vocab("${table}", 'instance')`,
      );
    } catch (error) {
      console.error(`no instance table for ${table}; its lists are read through bm25`, error);
      this.unavailable = true;
    }
  }

  /** Whether lists can be read: every row's length was read once. */
  ready(): boolean {
    return this.loaded && !this.tooLarge && !this.unavailable;
  }

  /**
   * Reads a slice of the rows' lengths not held: those forgotten since (rows written again), then those
   * past the last row read. True while a full slice was read (more may follow).
   */
  load(): boolean {
    if (this.tooLarge || this.unavailable) return false;
    return this.guarded(false, () => this.loadSlice());
  }

  private loadSlice(): boolean {
    if (this.forgotten.size) {
      const docs: number[] = [];
      for (const doc of this.forgotten) {
        if (docs.length === this.sliceRows) break;
        docs.push(doc);
      }
      for (const doc of docs) this.forgotten.delete(doc);
      // A row deleted since has no length to read; it is in no list either.
      this.readLengths(docs);
      return true;
    }
    const row = this.sql
      .exec<{ packed: string | null; last: number | null; n: number }>(
        `SELECT group_concat(id || ',' || hex(sz), ';') AS packed, max(id) AS last, count(*) AS n FROM (
           SELECT id, sz FROM "${this.table}_docsize" WHERE id > ? ORDER BY id LIMIT ?
         )`,
        this.loadedThrough,
        this.sliceRows,
      )
      .one();
    if (row.last !== null && row.last >= this.maxRows) {
      this.tooLarge = true;
      this.lengths = new Uint32Array(0);
      return false;
    }
    if (row.packed) this.store(row.packed);
    if (row.last !== null) this.loadedThrough = row.last;
    if (row.n < this.sliceRows) this.loaded = true;
    return row.n === this.sliceRows;
  }

  /** Rows written, replaced or deleted: their lengths are read again, by `load` or when next needed. */
  forget(docs: Iterable<number>): void {
    for (const doc of docs) {
      if (doc >= this.lengths.length) continue;
      this.lengths[doc] = 0;
      if (doc <= this.loadedThrough) this.forgotten.add(doc);
    }
  }

  /** Lets every length go (a rolled-back write): they are loaded again. */
  reset(): void {
    this.lengths = new Uint32Array(0);
    this.forgotten.clear();
    this.loadedThrough = 0;
    this.loaded = false;
  }

  /** Whether `read` would try the phrase: a one-word phrase whose token is known here. */
  readable(phrase: string): boolean {
    return this.ready() && tokenOf(phrase) !== undefined;
  }

  /**
   * The postings of a one-word phrase (`"word"`, as query-terms.ts quotes a term), or undefined when the
   * word's token is not known here, the lengths are not loaded, or too many of its rows' lengths are not
   * held.
   */
  read(phrase: string): InstanceList | undefined {
    const token = tokenOf(phrase);
    if (!this.ready() || !token) return undefined;
    return this.guarded(undefined, () => this.readToken(token));
  }

  /**
   * Read in the turn of a write, the instance table makes FTS5 flush its pending rows and store its
   * counts (seen in Node's SQLite): answers stay exact, at the cost of a small segment to merge later.
   */
  private readToken(token: string): InstanceList | undefined {
    // One row per instance, in rowid order: one string, as a row handed over one by one costs more than
    // the scan.
    const packed =
      this.sql
        .exec<{ docs: string | null }>(
          `SELECT group_concat(doc, ',') AS docs FROM "${this.table}_instance" WHERE term = ?`,
          token,
        )
        .one().docs ?? "";
    const grouped = byRow(packed);
    if (!grouped) return undefined;
    const { docs, freq } = grouped;
    const unknown = docs.filter((doc) => !(this.lengths[doc] ?? 0));
    if (unknown.length > UNKNOWN_LIMIT) return undefined;
    if (unknown.length && !this.readLengths(unknown)) return undefined;
    const size = new Uint32Array(docs.length);
    for (let i = 0; i < docs.length; i++) size[i] = this.lengths[docs[i] as number] as number;
    return { docs: Float64Array.from(docs), freq: Uint32Array.from(freq), size };
  }

  /** Reads the lengths of `docs`; false when one is not a row (the caller reads by bm25). */
  private readLengths(docs: readonly number[]): boolean {
    const packed = this.sql
      .exec<{ packed: string | null }>(
        `SELECT group_concat(id || ',' || hex(sz), ';') AS packed FROM "${this.table}_docsize"
          WHERE id IN (SELECT value FROM json_each(?))`,
        JSON.stringify(docs),
      )
      .one().packed;
    if (packed) this.store(packed);
    return docs.every((doc) => (this.lengths[doc] ?? 0) > 0);
  }

  /**
   * `work`, or `otherwise` when reading the instance table or the lengths fails: only speed depends on
   * them, so the lists go back to bm25 for good rather than a search failing.
   */
  private guarded<T>(otherwise: T, work: () => T): T {
    try {
      return work();
    } catch (error) {
      console.error(`could not read the instances of ${this.table}; its lists are read through bm25`, error);
      this.unavailable = true;
      return otherwise;
    }
  }

  /** Holds the lengths of "rowid,hex(sz)" rows joined by ";". */
  private store(packed: string): void {
    for (const entry of packed.split(";")) {
      const comma = entry.indexOf(",");
      const doc = Number(entry.slice(0, comma));
      if (doc >= this.maxRows) continue;
      if (doc >= this.lengths.length) this.grow(doc);
      this.lengths[doc] = varintSum(entry.slice(comma + 1));
    }
  }

  private grow(doc: number): void {
    const size = Math.min(this.maxRows, Math.max(1024, this.lengths.length * 2, doc + 1));
    const grown = new Uint32Array(size);
    grown.set(this.lengths);
    this.lengths = grown;
  }
}

/** The token of a one-word phrase (`"word"`), when porter-stem.ts knows it. */
function tokenOf(phrase: string): string | undefined {
  const word = /^"([^"]*)"$/.exec(phrase)?.[1];
  return word === undefined ? undefined : porterToken(word);
}

/**
 * "rowid,rowid,…" (one per instance) as each row and its count, read in one pass (a common word's list is
 * thousands of numbers); undefined unless the rowids ascend, as FTS5 lists a token's instances.
 */
function byRow(packed: string): { docs: number[]; freq: number[] } | undefined {
  const docs: number[] = [];
  const freq: number[] = [];
  if (!packed) return { docs, freq };
  let value = 0;
  let last = -1;
  for (let i = 0; i <= packed.length; i++) {
    const c = i < packed.length ? packed.charCodeAt(i) : 44;
    if (c === 44) {
      if (value === last) freq[freq.length - 1] = (freq[freq.length - 1] as number) + 1;
      else if (value < last) return undefined;
      else {
        docs.push(value);
        freq.push(1);
        last = value;
      }
      value = 0;
    } else if (c >= 48 && c <= 57) value = value * 10 + (c - 48);
    else return undefined;
  }
  return { docs, freq };
}
