import { type InstanceList, InstanceLists } from "./instance-lists";
import { varintSum, varints } from "./sqlite-varints";

/**
 * FTS5's bm25 ranking of an OR of phrases, computed from postings held in memory between queries.
 *
 * Why: FTS5 ranks at a microsecond or two per matching row (bm25 reads each match's length and its
 * phrases' instances), so a question with a common word ("team", "things") spends most of its search
 * there, and questions share their common words. bm25 adds one term per phrase, and each term depends
 * only on that phrase's frequency in the row, the row's length and table-wide counts:
 *
 *   score(row) = Σ over phrases p, in the expression's order, of
 *                idf(p) × f(p, row) × (k1 + 1) / (f(p, row) + k1 × (1 − b + b × length(row) / avgdl))
 *
 * So each phrase's (row, frequency, length) list is read once from FTS5 itself and held; a later query
 * sums the held lists with the table's counts as they are then. FTS5 does not hand out a phrase's
 * frequency in a row, but a one-phrase bm25 is that one term, so the frequency is solved from it (and
 * checked: the held list is refused when the term recomputed from it is not the one FTS5 gave). Most
 * words are read more cheaply from FTS5's instance table, with the rows' lengths held
 * (instance-lists.ts), each such list checked against FTS5's bm25 for one of its rows.
 *
 * What it answers is FTS5's `ORDER BY bm25(table) LIMIT n` for the same expression: the same rows in the
 * same order, equal scores going to the lower rowid as SQLite's sorter gives them. The one difference
 * possible is in the last bit of an idf (JavaScript's `Math.log` and the C library's may round apart),
 * which could only reorder two rows whose different sums fall within a unit in the last place.
 *
 * Held lists stay exact through writes because the table's owner reports every row it writes or deletes
 * (`changed`) and rows added past every held one (`appended`): before a held list is used again, the
 * rows reported since it was read are read again for its phrase. Counts that move while nothing was
 * reported make it let go of every list. Memory is bounded by `maxPostings` over all held lists.
 */

/** FTS5's bm25 constants (fts5_aux.c), and the idf it gives a phrase in half the rows or more. */
const K1 = 1.2;
const B = 0.75;
const IDF_FLOOR = 1e-6;

/** Rows reported since the oldest held list was read, at most; past it every list is let go. */
const JOURNAL_LIMIT = 20_000;

/**
 * Rows a ranking reads itself, over the phrases it does not hold, before it leaves the question to FTS5:
 * a rare phrase's list costs less to read than FTS5's ranking of the common ones beside it.
 */
const INLINE_ROWS = 256;

/**
 * Rows `prepare` reads a slice at most (some 2 ms): a request that arrives meanwhile waits for the slice,
 * and a common word's list runs to tens of thousands of rows.
 */
export const PREPARE_ROWS = 1_000;

/** Phrases waiting to be read, and phrases known too large to hold, at most. */
const WANTED_LIMIT = 256;

/** Phrases remembered as asked for once (`want`), at most; the longest-remembered are forgotten first. */
const SEEN_LIMIT = 4_096;

/** Held postings for a table's rankings: at most this many (row, frequency, length) triples, 16 bytes each. */
export const HELD_POSTINGS = 200_000;

/** A phrase's rows (ascending), its instances in each and each row's length in tokens (every column). */
interface Postings extends InstanceList {
  /** The journal's sequence number when last brought up to date. */
  syncedAt: number;
}

/** One ranked row: FTS5's rowid and its bm25 as FTS5 gives it (negative, lower is better). */
export interface RankedRow {
  doc: number;
  score: number;
}

/** The table-wide counts bm25 weighs by, from FTS5's averages record. */
interface TableCounts {
  rows: number;
  tokens: number;
}

export class HeldBm25 {
  private readonly held = new Map<string, Postings>();
  /** Phrases rankings asked for and did not find held, for `prepare`. */
  private readonly wanted = new Set<string>();
  /** Phrases a ranking wanted once, not yet twice (`want`). */
  private readonly seen = new Set<string>();
  /** Phrases whose list is too large to hold (`keep`): FTS5 ranks them, and they are not read again. */
  private readonly unheld = new Set<string>();
  private heldPostings = 0;
  private seq = 0;
  /** Rows written or deleted, by rowid, with the sequence number of their last report. */
  private readonly touched = new Map<number, number>();
  /**
   * The counts at the last ranking from held lists (found live then), and the sequence number then:
   * counts that move with nothing reported since void the lists.
   */
  private lastCounts: (TableCounts & { seq: number }) | undefined;
  /**
   * The list `prepare` is reading, a slice at a time in rowid order: the phrase's rows counted when it
   * began, the sequence number then (a write reported since makes it start again), the last rowid read
   * and the parts read so far.
   */
  private reading:
    | { phrase: string; total: number; seq: number; after: number; parts: Postings[] }
    | undefined;

  /** Lists read from FTS5's instance table with the rows' lengths held (instance-lists.ts). */
  private readonly instances: InstanceLists;

  constructor(
    private readonly sql: SqlStorage,
    private readonly table: string,
    private readonly maxPostings = HELD_POSTINGS,
    private readonly sliceRows = PREPARE_ROWS,
    instances = new InstanceLists(sql, table),
  ) {
    this.instances = instances;
  }

  /** Call when rows were inserted, replaced or deleted (their rowids), in or after their transaction. */
  changed(docs: Iterable<number>): void {
    this.seq++;
    const rows = [...docs];
    for (const doc of rows) this.touched.set(doc, this.seq);
    this.instances.forget(rows);
    if (this.touched.size > JOURNAL_LIMIT) this.prune();
  }

  /** Whether the phrase's list is held. */
  holds(phrase: string): boolean {
    return this.held.has(phrase);
  }

  /** Call when rows were added with rowids past every row the table held (FTS5's own rowids). */
  appended(): void {
    this.seq++;
  }

  /**
   * Reads, at most `sliceRows` rows at a time, the lists rankings wanted and did not hold; true while
   * some are still to read. The owner calls it off the question's path, between requests.
   */
  prepare(): boolean {
    // The rows' lengths first (a slice at a time), then those of rows written since.
    if (this.instances.load()) return true;
    const counts = this.counts();
    if (!this.reading) {
      const [phrase] = this.wanted;
      if (phrase === undefined) return false;
      this.wanted.delete(phrase);
      if (counts.rows > 0 && !this.held.has(phrase)) {
        const list = this.fromInstances(phrase, counts);
        if (list) this.keep(phrase, list);
        else this.beginReading(phrase);
      }
      if (!this.reading) return this.wanted.size > 0;
    }
    const reading = this.reading;
    if (reading.seq !== this.seq) {
      // Rows were written since it began: it begins again, with the rows counted afresh.
      this.reading = undefined;
      if (this.wanted.size < WANTED_LIMIT) this.wanted.add(reading.phrase);
      return true;
    }
    const rows = this.rows(reading.phrase, "AND rowid > CAST(? AS INTEGER)", [reading.after], this.sliceRows);
    const part = this.solved(rows, reading.total - rows.length, counts);
    if (!part) {
      // FTS5's stored counts are not yet the ones it ranks by (a write's turn): read once asked again.
      this.reading = undefined;
      this.remember(reading.phrase);
      return this.wanted.size > 0;
    }
    reading.parts.push(part);
    if (part.docs.length) reading.after = part.docs[part.docs.length - 1] as number;
    if (rows.length < this.sliceRows) {
      this.reading = undefined;
      const list = { ...merged(reading.parts), syncedAt: reading.seq };
      if (list.docs.length === reading.total) this.keep(reading.phrase, list);
    }
    return this.reading !== undefined || this.wanted.size > 0;
  }

  /** Starts reading a phrase's list, unless it is too large to hold. */
  private beginReading(phrase: string): void {
    const table = `"${this.table}"`;
    const total = this.sql
      .exec<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`, phrase)
      .one().n;
    if (total > this.maxPostings / 4) {
      this.markUnheld(phrase);
      return;
    }
    this.reading = { phrase, total, seq: this.seq, after: 0, parts: [] };
  }

  /** Lets every held list go (a rolled-back write, a rebuilt table). */
  reset(): void {
    this.instances.reset();
    this.letListsGo();
  }

  /** Lets every held list go, keeping the rows' lengths. */
  private letListsGo(): void {
    // Phrases held were in demand: the next question that wants one has it read again.
    for (const phrase of this.held.keys()) this.remember(phrase);
    this.reading = undefined;
    this.held.clear();
    this.wanted.clear();
    this.unheld.clear();
    this.heldPostings = 0;
    this.touched.clear();
    this.lastCounts = undefined;
  }

  /** Postings held now, over every phrase (for traces and tests). */
  size(): number {
    return this.heldPostings;
  }

  /**
   * The best `limit` rows for the OR of `phrases` (each a quoted FTS5 phrase, in the expression's order),
   * as `ORDER BY bm25(table) LIMIT limit` gives them. `held` says whether they came from held lists; when
   * a list cannot be read exactly, or the table's counts as stored are not yet the ones FTS5 ranks by
   * (FTS5 stores them when a transaction ends, so a ranking in the same turn as a write sees older ones),
   * FTS5 ranks them itself.
   */
  rank(
    phrases: readonly string[],
    limit: number,
    matches?: readonly number[],
  ): { rows: RankedRow[]; held: boolean } {
    if (phrases.length === 0 || limit <= 0) return { rows: [], held: true };
    const counts = this.counts();
    // The phrases not held are read now: from the instance table when their tokens are known and the
    // rows' lengths held (a fraction of FTS5's ranking), else through bm25 when the caller knows they
    // are rare. Otherwise FTS5 ranks, and their lists are read between requests (`prepare`) once a
    // second question wants them: read through bm25, a list costs two or three times FTS5's ranking.
    const missing = () => phrases.filter((phrase) => !this.held.has(phrase));
    let read = new Map<string, Postings>();
    if (missing().length && !this.readSmall(phrases, matches, counts)) {
      // What readSmall read before it gave up stays held: only the rest is read again.
      const lists = this.readByInstances(missing(), counts);
      if (!lists) {
        for (const phrase of missing()) this.want(phrase);
        return { rows: this.ranked(phrases, limit), held: false };
      }
      read = lists;
    }
    const lists: Postings[] = [];
    for (const phrase of phrases) {
      const list = read.get(phrase) ?? (counts.rows > 0 ? this.postings(phrase, counts) : undefined);
      if (!list) {
        // Not brought up to date (counts not yet stored): read again after.
        if (!this.held.has(phrase) && this.wanted.size < WANTED_LIMIT) this.wanted.add(phrase);
        return { rows: this.ranked(phrases, limit), held: false };
      }
      lists.push(list);
    }
    // A list read from the instance table was just checked against FTS5 with these counts (`agrees`),
    // which is what `verified` would check again.
    if (read.size === 0 && !this.verified(phrases, lists, counts))
      return { rows: this.ranked(phrases, limit), held: false };
    this.lastCounts = { ...counts, seq: this.seq };
    const rows = topRows(lists, counts, limit);
    // A list read for this ranking is held once a second question wants it, as `prepare` would read
    // it (held after the ranking, so that no list it uses is let go before).
    for (const [phrase, list] of read) {
      if (this.seen.delete(phrase) || list.docs.length <= INLINE_ROWS) this.keep(phrase, list);
      else this.remember(phrase);
    }
    return { rows, held: true };
  }

  /**
   * The lists of `phrases` from FTS5's instance table, each checked against FTS5's bm25 for one of its
   * rows; undefined when one cannot be read so.
   */
  private readByInstances(
    phrases: readonly string[],
    counts: TableCounts,
  ): Map<string, Postings> | undefined {
    if (counts.rows === 0 || !phrases.every((phrase) => this.instances.readable(phrase))) return undefined;
    const lists = new Map<string, Postings>();
    for (const phrase of phrases) {
      const list = this.fromInstances(phrase, counts);
      if (!list) return undefined;
      lists.set(phrase, list);
    }
    return lists;
  }

  /** A phrase's list from the instance table, when it agrees with FTS5 (instance-lists.ts). */
  private fromInstances(phrase: string, counts: TableCounts): Postings | undefined {
    const list = this.instances.read(phrase);
    if (!list || !this.agrees(phrase, list, counts)) return undefined;
    return { ...list, syncedAt: this.seq };
  }

  /**
   * Reads the lists of the phrases not held when the caller knows they match at most INLINE_ROWS rows
   * together (`matches`, each phrase's count); true when every phrase is then held.
   */
  private readSmall(
    phrases: readonly string[],
    matches: readonly number[] | undefined,
    counts: TableCounts,
  ): boolean {
    if (!matches || counts.rows === 0) return false;
    let rows = 0;
    phrases.forEach((phrase, i) => {
      if (!this.held.has(phrase))
        rows += this.unheld.has(phrase) ? Number.POSITIVE_INFINITY : (matches[i] ?? 0);
    });
    if (!(rows <= INLINE_ROWS)) return false;
    for (const phrase of phrases) {
      if (this.held.has(phrase)) continue;
      const list = this.read(phrase, "", [], 0, counts);
      if (!list) return false;
      this.keep(phrase, list);
      if (!this.held.has(phrase)) return false;
    }
    return true;
  }

  /**
   * A phrase is read (`prepare`) once a second question wants it: in a long thread most of a question's
   * rarer words come up once, and a list of thousands of rows read for nothing costs the requests
   * waiting behind it more than FTS5's ranking saved.
   */
  private want(phrase: string): void {
    if (this.unheld.has(phrase) || this.wanted.size >= WANTED_LIMIT) return;
    if (this.seen.delete(phrase)) {
      this.wanted.add(phrase);
      return;
    }
    this.remember(phrase);
  }

  private remember(phrase: string): void {
    this.seen.add(phrase);
    if (this.seen.size > SEEN_LIMIT) {
      for (const oldest of this.seen) {
        this.seen.delete(oldest);
        break;
      }
    }
  }

  /** FTS5's own ranking. */
  private ranked(phrases: readonly string[], limit: number): RankedRow[] {
    const table = `"${this.table}"`;
    return this.sql
      .exec<{ doc: number; score: number }>(
        `SELECT rowid AS doc, bm25(${table}) AS score FROM ${table} WHERE ${table} MATCH ?
          ORDER BY bm25(${table}) LIMIT ?`,
        phrases.join(" OR "),
        limit,
      )
      .toArray()
      .map(({ doc, score }) => ({ doc, score }));
  }

  /**
   * Whether the counts read are the ones FTS5 ranks by now: one held row of the shortest list is scored
   * by FTS5 and by the held lists, which must agree. (A list's own rows are kept exact by the reports;
   * what can lag are the stored counts.)
   */
  private verified(phrases: readonly string[], lists: readonly Postings[], counts: TableCounts): boolean {
    let best = -1;
    lists.forEach((list, i) => {
      if (list.docs.length && (best < 0 || list.docs.length < (lists[best] as Postings).docs.length))
        best = i;
    });
    if (best < 0) return true;
    return this.agrees(phrases[best] as string, lists[best] as Postings, counts);
  }

  /**
   * Whether FTS5 scores the first row of `list` as the list does: the row matches the phrase, with the
   * list's frequency and length, and the phrase matches as many rows as the list holds (bm25's idf
   * counts them). An empty list agrees when the phrase matches no row.
   */
  private agrees(phrase: string, list: InstanceList, counts: TableCounts): boolean {
    const table = `"${this.table}"`;
    if (list.docs.length === 0) {
      return (
        this.sql.exec(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? LIMIT 1`, phrase).toArray()
          .length === 0
      );
    }
    const stored = this.sql
      .exec<{ score: number }>(
        `SELECT bm25(${table}) AS score FROM ${table} WHERE ${table} MATCH ? AND rowid = CAST(? AS INTEGER)`,
        phrase,
        list.docs[0] as number,
      )
      .toArray()[0]?.score;
    if (stored === undefined) return false;
    const idf = inverseFrequency(counts.rows, list.docs.length);
    const mine = -term(idf, list.freq[0] as number, list.size[0] as number, counts.tokens / counts.rows);
    if (!(Math.abs(mine - stored) <= 1e-12 * Math.abs(stored))) return false;
    // In half the rows or more, a phrase's idf is the same floor whatever its count: counted instead.
    return idf > IDF_FLOOR || this.matchCount(phrase) === list.docs.length;
  }

  private matchCount(phrase: string): number {
    const table = `"${this.table}"`;
    return this.sql
      .exec<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`, phrase)
      .one().n;
  }

  private counts(): TableCounts {
    const row = this.sql
      .exec<{ block: ArrayBuffer }>(`SELECT block FROM "${this.table}_data" WHERE id = 1`)
      .toArray()[0];
    const values = row ? varints(new Uint8Array(row.block)) : [];
    const counts = { rows: values[0] ?? 0, tokens: values.slice(1).reduce((sum, n) => sum + n, 0) };
    const last = this.lastCounts;
    if (last && last.seq === this.seq && (last.rows !== counts.rows || last.tokens !== counts.tokens)) {
      // The table changed since counts were last found live, and nobody reported it: nothing held can
      // be trusted.
      this.reset();
    }
    return counts;
  }

  /** The phrase's list, read or brought up to date; undefined when FTS5's scores do not solve exactly. */
  private postings(phrase: string, counts: TableCounts): Postings | undefined {
    let list = this.held.get(phrase);
    if (list && list.syncedAt < this.seq) {
      const refreshed = this.refresh(phrase, list, counts);
      this.drop(phrase);
      list = refreshed;
      if (list) this.keep(phrase, list);
    } else if (list) {
      // Most recently used last.
      this.held.delete(phrase);
      this.held.set(phrase, list);
    } else {
      list = this.read(phrase, "", [], 0, counts);
      if (list) this.keep(phrase, list);
    }
    return list;
  }

  /** The rows reported since the list was read are read again; rows past its last are read new. */
  private refresh(phrase: string, list: Postings, counts: TableCounts): Postings | undefined {
    const since = new Set<number>();
    for (const [doc, seq] of this.touched) if (seq > list.syncedAt) since.add(doc);
    const last = list.docs.length ? (list.docs[list.docs.length - 1] as number) : 0;
    const kept = keepRows(list, (doc) => !since.has(doc));
    const earlier = [...since].filter((doc) => doc <= last);
    // One statement, so that bm25's idf (which counts the phrase's rows as they are now) is the kept
    // rows and the ones it reads.
    const read = earlier.length
      ? this.read(
          phrase,
          "AND (rowid > CAST(? AS INTEGER) OR rowid IN (SELECT value FROM json_each(?)))",
          [last, JSON.stringify(earlier)],
          kept.docs.length,
          counts,
        )
      : this.read(phrase, "AND rowid > CAST(? AS INTEGER)", [last], kept.docs.length, counts);
    if (!read) return undefined;
    // After most writes the phrase gains no row: the kept list goes on as it is.
    return { ...(read.docs.length ? merged([kept, read]) : kept), syncedAt: this.seq };
  }

  /**
   * The phrase's rows matching `where`, with their frequency solved from FTS5's one-phrase bm25 and
   * their length from its docsize table; `others` is how many of the phrase's rows are not among them
   * (bm25's idf counts all).
   */
  private read(
    phrase: string,
    where: string,
    params: unknown[],
    others: number,
    counts: TableCounts,
  ): Postings | undefined {
    return this.solved(this.rows(phrase, where, params, -1), others, counts);
  }

  /**
   * The phrase's rows matching `where`, the first `limit` by rowid (-1: all), each as
   * "rowid,bm25,hex(docsize)".
   * One statement and one string: a row handed to JavaScript one by one costs more than FTS5's own work
   * for it.
   */
  private rows(phrase: string, where: string, params: unknown[], limit: number): string[] {
    const table = `"${this.table}"`;
    const packed =
      this.sql
        .exec<{ packed: string | null }>(
          `SELECT group_concat(doc || ',' || score || ',' || hex(size), ';') AS packed FROM (
             SELECT rowid AS doc, bm25(${table}) AS score,
               (SELECT sz FROM "${this.table}_docsize" WHERE id = ${table}.rowid) AS size
             FROM ${table} WHERE ${table} MATCH ? ${where} ORDER BY rowid LIMIT ?
           )`,
          phrase,
          ...params,
          limit,
        )
        .toArray()[0]?.packed ?? "";
    return packed ? packed.split(";") : [];
  }

  /** `rows` as a list, frequencies solved and checked against the scores FTS5 gave. */
  private solved(rows: readonly string[], others: number, counts: TableCounts): Postings | undefined {
    const idf = inverseFrequency(counts.rows, others + rows.length);
    const avgdl = counts.tokens / counts.rows;
    const docs = new Float64Array(rows.length);
    const freq = new Uint32Array(rows.length);
    const size = new Uint32Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const [doc, score, hex] = (rows[i] as string).split(",") as [string, string, string];
      const length = varintSum(hex);
      const norm = K1 * (1 - B + (B * length) / avgdl);
      const given = -Number(score);
      const f = Math.round((given * norm) / (idf * (K1 + 1) - given));
      // The text of a score carries 15 significant digits.
      if (!(f >= 1) || Math.abs(term(idf, f, length, avgdl) - given) > 1e-9 * Math.abs(given))
        return undefined;
      docs[i] = Number(doc);
      freq[i] = f;
      size[i] = length;
    }
    const list = { docs, freq, size, syncedAt: this.seq };
    return isAscending(docs) ? list : sortedByDoc(list);
  }

  private keep(phrase: string, list: Postings): void {
    // A list read again replaces the one held (a ranking and `prepare` can both read a phrase).
    this.drop(phrase);
    const n = list.docs.length;
    // A list larger than a quarter of the bound would push out the rest: not held.
    if (n > this.maxPostings / 4) {
      this.markUnheld(phrase);
      return;
    }
    this.held.set(phrase, list);
    this.heldPostings += n;
    for (const [oldest] of this.held) {
      if (this.heldPostings <= this.maxPostings) break;
      this.drop(oldest);
    }
  }

  private markUnheld(phrase: string): void {
    if (this.unheld.size >= WANTED_LIMIT) this.unheld.clear();
    this.unheld.add(phrase);
  }

  private drop(phrase: string): void {
    const list = this.held.get(phrase);
    if (!list) return;
    this.held.delete(phrase);
    this.heldPostings -= list.docs.length;
  }

  /** Forgets reports every held list has seen; when that is not enough, lets everything go. */
  private prune(): void {
    let oldest = this.seq;
    for (const list of this.held.values()) oldest = Math.min(oldest, list.syncedAt);
    for (const [doc, seq] of this.touched) if (seq <= oldest) this.touched.delete(doc);
    // Every row reported was forgotten by the lengths too: only the lists are let go.
    if (this.touched.size > JOURNAL_LIMIT) this.letListsGo();
  }
}

/** One phrase's bm25 term for a row, as fts5_aux.c computes it. */
function term(idf: number, f: number, length: number, avgdl: number): number {
  return idf * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * length) / avgdl)));
}

/** FTS5's idf: never zero or below, so a word in most rows still counts a little. */
function inverseFrequency(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0 ? IDF_FLOOR : idf;
}

/**
 * The best `limit` rows: each row's terms summed in phrase order (as FTS5 sums them), the lists walked
 * together by rowid. A row that only ties the last kept one is refused: SQLite's sorter keeps the first
 * of equal rows, and FTS5 hands rows over by ascending rowid.
 */
function topRows(lists: readonly Postings[], counts: TableCounts, limit: number): RankedRow[] {
  const avgdl = counts.tokens / counts.rows;
  const idf = lists.map((list) => inverseFrequency(counts.rows, list.docs.length));
  const at = new Array<number>(lists.length).fill(0);
  const kept: RankedRow[] = [];
  for (;;) {
    let doc = Number.POSITIVE_INFINITY;
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i] as Postings;
      const j = at[i] as number;
      if (j < list.docs.length) doc = Math.min(doc, list.docs[j] as number);
    }
    if (doc === Number.POSITIVE_INFINITY) break;
    let sum = 0;
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i] as Postings;
      const j = at[i] as number;
      if (j >= list.docs.length || list.docs[j] !== doc) continue;
      const f = list.freq[j] as number;
      const length = list.size[j] as number;
      sum += term(idf[i] as number, f, length, avgdl);
      at[i] = j + 1;
    }
    const score = -1 * sum;
    if (kept.length === limit && score >= (kept[limit - 1] as RankedRow).score) continue;
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((kept[mid] as RankedRow).score <= score) low = mid + 1;
      else high = mid;
    }
    kept.splice(low, 0, { doc, score });
    if (kept.length > limit) kept.pop();
  }
  return kept;
}

function keepRows(list: Postings, keep: (doc: number) => boolean): Postings {
  const indexes: number[] = [];
  for (let i = 0; i < list.docs.length; i++) if (keep(list.docs[i] as number)) indexes.push(i);
  // Lists are never changed in place, so one that loses no row is shared, not copied.
  if (indexes.length === list.docs.length) return list;
  return {
    docs: Float64Array.from(indexes, (i) => list.docs[i] as number),
    freq: Uint32Array.from(indexes, (i) => list.freq[i] as number),
    size: Uint32Array.from(indexes, (i) => list.size[i] as number),
    syncedAt: list.syncedAt,
  };
}

/** Lists of distinct rows merged by rowid. */
function merged(lists: readonly Postings[]): Omit<Postings, "syncedAt"> {
  const n = lists.reduce((sum, list) => sum + list.docs.length, 0);
  const all = { docs: new Float64Array(n), freq: new Uint32Array(n), size: new Uint32Array(n), syncedAt: 0 };
  let k = 0;
  for (const list of lists) {
    all.docs.set(list.docs, k);
    all.freq.set(list.freq, k);
    all.size.set(list.size, k);
    k += list.docs.length;
  }
  return isAscending(all.docs) ? all : sortedByDoc(all);
}

function isAscending(docs: Float64Array): boolean {
  for (let i = 1; i < docs.length; i++) if ((docs[i] as number) <= (docs[i - 1] as number)) return false;
  return true;
}

function sortedByDoc(list: Postings): Postings {
  const order = Array.from(list.docs.keys()).sort(
    (a, b) => (list.docs[a] as number) - (list.docs[b] as number),
  );
  return {
    docs: Float64Array.from(order, (i) => list.docs[i] as number),
    freq: Uint32Array.from(order, (i) => list.freq[i] as number),
    size: Uint32Array.from(order, (i) => list.size[i] as number),
    syncedAt: list.syncedAt,
  };
}
