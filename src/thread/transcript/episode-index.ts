import type { MessageRecord } from "../../compiler/types";
import type { MessageScope } from "../../items/types";
import type { Embedder } from "../../ports/embedder";
import type { VectorIndex } from "../../ports/vector-index";
import { MAX_TOP_K } from "../../ports/vector-index";
import { HeldBm25 } from "../../retrieval/held-bm25";
import { LONG_MESSAGE_CHARS, passages } from "../../retrieval/passages";
import { matchExpression, queryTerms, quotedPhrases, rankedTerms } from "../../retrieval/query-terms";
import { compareBinary } from "../binary-collation";
import { embedIntoIndex } from "../retrieval/embed-into-index";
import { type FtsTable, TermCounts } from "./term-counts";
import { TranscriptOrder } from "./transcript-order";

/**
 * The thread's episodic index over its raw messages: an FTS5 table (porter stemming over unicode61
 * tokens, ranked by bm25) written in the same transaction as each message, and message embeddings in
 * the thread's VectorIndex, computed in the background after writes (src/thread/upkeep.ts) so ingestion
 * never waits on an embedder and a change of embedder re-embeds on its own (each embedder has its own
 * namespace and bookkeeping).
 */
export const EPISODE_SCHEMA = [
  `CREATE VIRTUAL TABLE IF NOT EXISTS episode_fts USING fts5(
     id UNINDEXED, speaker, content, tokenize = 'porter unicode61')`,
  // Every message by passage (src/retrieval/passages.ts): a short message is one passage, a long one
  // (code, a document, a log) several, so bm25 weighs a long message's relevant passage against other
  // turns on one scale instead of diluting it in the whole message's length.
  `CREATE VIRTUAL TABLE IF NOT EXISTS passage_fts USING fts5(
     id UNINDEXED, part UNINDEXED, content, tokenize = 'porter unicode61')`,
  `CREATE TABLE IF NOT EXISTS episode_embedded (embedder TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (embedder, id))`,
];

/** Messages embedded per call at most: a pass calls again while some remain, each call after the requests in progress. */
export const EMBED_PER_QUERY = 100;
/** Messages whose (ts, id) order is held in memory at most (about 100 bytes each). */
export const ORDER_LIMIT = 50_000;
/** Message records kept decoded between compiles at most, least recently used dropped first. */
export const RECORD_CACHE_LIMIT = 10_000;
/**
 * Postings each full-text index's held bm25 lists keep at most (16 bytes each: 1.6 MB a table). A
 * ranked term matches at most RANKED_MATCH_BUDGET messages, so this holds a score of common words.
 */
export const HELD_MESSAGE_POSTINGS = 100_000;

export type EpisodeRow = MessageRecord;

export interface EpisodeIndexOptions {
  orderLimit?: number;
  recordCacheLimit?: number;
  heldPostings?: number;
}

export class EpisodeIndex {
  /**
   * Embedder namespaces this instance found fully embedded, each with the messages added since, which
   * are all it still has to embed. Messages are written only through this object, so after one scan
   * of the transcript a new message costs its own embedding, not another scan.
   */
  private readonly embedded = new Map<string, Set<string>>();
  /**
   * Scans of the transcript in progress, by namespace: the (ts, id) the last call reached, and the
   * messages added since the scan began (one may sort before where it reached). A scan goes on from
   * where it reached, not from the start: it embeds EMBED_PER_QUERY messages a call, and starting over
   * would step over every message embedded so far, each call, quadratic in the thread's length.
   */
  private readonly scans = new Map<string, { reached?: { ts: string; id: string }; arriving: Set<string> }>();
  private readonly order: TranscriptOrder;
  /** What the message search's choice of terms needs of each FTS table, held while it stays exact. */
  private readonly termCounts: TermCounts;
  /**
   * Records read before, by id. A message never changes once written except for the scope extraction
   * gives it, which `rescoped` applies, so an entry stays exact without re-reading.
   */
  private readonly cached = new Map<string, EpisodeRow>();
  private readonly recordCacheLimit: number;
  /**
   * Message ids of FTS rows `lexical` ranked, by rowid. FTS rows are never updated or deleted, but a
   * rolled-back insert's rowid is given to the next one, so every `add` drops them all.
   */
  private readonly ftsIds = new Map<number, string>();
  /** The same for passage_fts's rows. */
  private readonly passageIds = new Map<number, string>();
  /**
   * Each table's bm25 ranking from per-term lists held between compiles (src/retrieval/held-bm25.ts):
   * FTS5 ranks every match of the ranked terms, up to RANKED_MATCH_BUDGET of them a table, the larger
   * part of a question's message search in a long thread, and questions share their common words. Rows
   * are only ever appended (`add`), or taken back with a rolled-back transaction (`rolledBack`).
   */
  private readonly rankings: Record<FtsTable, HeldBm25>;
  /**
   * The transcript's last messages with their detail forms and scope, as `tail` last read them. A
   * message, its forms and its scope are written only through this object's `add` and `rescoped`, which
   * keep it exact: a new turn is appended once its transaction is in (see `added`), a new scope replaces
   * the held record's; anything else drops it, and the next compile reads it again.
   */
  private heldTail: HeldTail | undefined;
  /**
   * While a transaction adds messages: the tail held before its first `add`, and the records added so
   * far. A rolled-back transaction leaves them behind; its records then never match the next `added`.
   */
  private tailBeforeAdd: HeldTail | undefined;
  private addedRecords: MessageRecord[] = [];

  constructor(
    private readonly sql: SqlStorage,
    private readonly vectors: VectorIndex,
    options: EpisodeIndexOptions = {},
  ) {
    this.order = new TranscriptOrder(sql, options.orderLimit ?? ORDER_LIMIT);
    this.termCounts = new TermCounts(sql);
    this.recordCacheLimit = options.recordCacheLimit ?? RECORD_CACHE_LIMIT;
    const heldPostings = options.heldPostings ?? HELD_MESSAGE_POSTINGS;
    this.rankings = {
      episode_fts: new HeldBm25(sql, "episode_fts", heldPostings),
      passage_fts: new HeldBm25(sql, "passage_fts", heldPostings),
    };
    for (const statement of EPISODE_SCHEMA) sql.exec(statement);
  }

  /** Indexes every stored message: once, for a thread whose messages predate the index. */
  backfill(): void {
    this.sql.exec("INSERT INTO episode_fts (id, speaker, content) SELECT id, speaker, content FROM messages");
    this.rankings.episode_fts.appended();
  }

  /** Indexes every stored message by passage: once, for a thread whose messages predate that index. */
  backfillPassages(): void {
    this.sql.exec(
      "INSERT INTO passage_fts (id, part, content) SELECT id, 0, content FROM messages WHERE length(content) <= ?",
      LONG_MESSAGE_CHARS,
    );
    const long = this.sql.exec<{ id: string; content: string }>(
      "SELECT id, content FROM messages WHERE length(content) > ?",
      LONG_MESSAGE_CHARS,
    );
    for (const { id, content } of long) this.addPassages(id, content);
    this.rankings.passage_fts.appended();
  }

  private addPassages(id: string, content: string): void {
    passages(content).forEach((text, part) => {
      this.sql.exec("INSERT INTO passage_fts (id, part, content) VALUES (?, ?, ?)", id, part, text);
    });
  }

  /**
   * Call inside the transaction that inserts the message, only when the insert took effect. `record` is
   * the message as `tail` would read it back (frozen, forms included, no scope yet); without it, the
   * held tail is read again by the next compile.
   */
  add(message: { id: string; speaker: string | null; content: string; record?: MessageRecord }): void {
    // A message whose insert rolls back is not found when its turn to be embedded comes.
    for (const added of this.embedded.values()) added.add(message.id);
    for (const scan of this.scans.values()) scan.arriving.add(message.id);
    if (this.heldTail) {
      // Set aside until the transaction is in: until then `tail` reads storage, new turn included.
      this.tailBeforeAdd = this.heldTail;
      this.addedRecords = [];
      this.heldTail = undefined;
    }
    if (message.record) this.addedRecords.push(message.record);
    else this.tailBeforeAdd = undefined;
    this.ftsIds.clear();
    this.passageIds.clear();
    this.termCounts.writing();
    this.rankings.episode_fts.appended();
    this.rankings.passage_fts.appended();
    this.sql.exec(
      "INSERT INTO episode_fts (id, speaker, content) VALUES (?, ?, ?)",
      message.id,
      message.speaker,
      message.content,
    );
    this.addPassages(message.id, message.content);
  }

  /**
   * Call when a transaction that called `add` rolled back: its rows are gone, so the term counts may be
   * held again, and the tail it set aside is read afresh by the next compile.
   */
  rolledBack(): void {
    this.termCounts.written();
    // The rolled-back rows' rowids go to the next rows written: no held list can tell them apart.
    this.rankings.episode_fts.reset();
    this.rankings.passage_fts.reset();
    this.tailBeforeAdd = undefined;
    this.addedRecords = [];
  }

  /**
   * Call last in the transaction that inserted these messages (only those whose insert took effect), so
   * the in-memory order never holds a message a rolled-back transaction did not write.
   */
  added(messages: readonly { id: string; ts: string }[]): void {
    this.order.added(messages);
    this.termCounts.written();
    const before = this.tailBeforeAdd;
    const records = this.addedRecords;
    this.tailBeforeAdd = undefined;
    this.addedRecords = [];
    // Exactly this transaction's messages, none read back meanwhile, all after the held tail's last
    // turn: the tail is then the held one with them appended. Anything else is read again.
    if (
      !before ||
      this.heldTail ||
      records.length !== messages.length ||
      records.some((record, i) => record.id !== messages[i]?.id)
    ) {
      return;
    }
    const sorted = [...records].sort(byTranscriptOrder);
    const last = before.records[before.records.length - 1];
    const first = sorted[0];
    if (last && first && byTranscriptOrder(last, first) >= 0) return;
    this.heldTail = { limit: before.limit, records: [...before.records, ...sorted].slice(-before.limit) };
  }

  /** Call last in the transaction that wrote these message scopes (extraction's commit). */
  rescoped(scopes: readonly MessageScope[]): void {
    if (scopes.length) this.tailBeforeAdd = undefined;
    const held = this.heldTail;
    if (held && scopes.length) {
      const given = new Map(scopes.map((s) => [s.id, s]));
      this.heldTail = {
        limit: held.limit,
        records: held.records.map((record) => {
          const s = given.get(record.id);
          return s ? Object.freeze({ ...record, scope: s.scope, scope_id: s.scope_id }) : record;
        }),
      };
    }
    for (const { id, scope, scope_id } of scopes) {
      const held = this.cached.get(id);
      if (held) this.cached.set(id, Object.freeze({ ...held, scope, scope_id }));
    }
  }

  /**
   * The last `limit` messages by (ts, id), oldest first, with their detail forms and extraction's scope.
   * The records are frozen and shared between compiles; the array is the caller's own.
   */
  tail(limit: number): MessageRecord[] {
    if (this.heldTail?.limit !== limit) {
      const records = this.sql
        .exec<TailRow>(
          `SELECT m.id, m.ts, m.role, m.speaker, m.content, m.line, m.tokens, s.scope, s.scope_id,
                  f.summary, f.summary_tokens, f.micro, f.micro_tokens
           FROM messages m LEFT JOIN message_scopes s ON s.id = m.id LEFT JOIN message_forms f ON f.id = m.id
           ORDER BY m.ts DESC, m.id DESC LIMIT ?`,
          limit,
        )
        .toArray()
        .reverse()
        .map(tailRecord);
      this.heldTail = { limit, records };
      this.tailBeforeAdd = undefined;
      this.addedRecords = [];
    }
    return [...this.heldTail.records];
  }

  /**
   * Message ids by bm25, best first; any query text is safe. The ranking asks for FTS rowids only: a
   * stored column would be read for every match, not just the `limit` kept (SQLite computes a row's
   * result before its sorter decides to keep it), while a rowid is free. Ranked rows' ids are then
   * read once and held.
   */
  lexical(query: string, limit: number): string[] {
    return this.ranked("episode_fts", this.ftsIds, query, limit);
  }

  /**
   * Message ids by their best passage's bm25, best first, each once: a long message ranks by the part
   * that answers, weighed against short turns in the same index.
   */
  passageLexical(query: string, limit: number): string[] {
    // A message's passages can fill several of the ranked rows; twice the limit leaves room for that.
    return [...new Set(this.ranked("passage_fts", this.passageIds, query, limit * 2))].slice(0, limit);
  }

  /** Ids of one FTS table's rows by bm25 (see `lexical`); `held` remembers ids by rowid. */
  private ranked(table: FtsTable, held: Map<number, string>, query: string, limit: number): string[] {
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    // A thread with fewer rows than the ranking budget ranks every term: no OR of them can match
    // more. A longer one counts each term's matches up to the budget and ranks the rarer terms, so the
    // cost stays bounded however long the thread (query-terms.ts rankedTerms; what is counted is held
    // while it stays exact, term-counts.ts).
    const counts = this.termCounts.large(table) ? this.termCounts.count(table, terms) : undefined;
    const choice = counts ? rankedTerms(terms, counts) : { ranked: terms, newest: false };
    if (choice.ranked.length === 0) return [];
    const rowids = choice.newest
      ? this.sql
          .exec<{ r: number }>(
            `SELECT rowid AS r FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT ?`,
            matchExpression(choice.ranked),
            limit,
          )
          .toArray()
          .map((row) => row.r)
      : this.rankings[table]
          .rank(
            quotedPhrases(choice.ranked),
            limit,
            counts && choice.ranked.map((term) => counts[terms.indexOf(term)] ?? 0),
          )
          .rows.map((row) => row.doc);
    const unknown = rowids.filter((r) => !held.has(r));
    if (held.size + unknown.length > this.recordCacheLimit) held.clear();
    for (const row of this.byIds<{ r: number; id: string }>(
      (list) => `SELECT rowid AS r, id FROM ${table} WHERE rowid IN (${list})`,
      unknown,
    )) {
      held.set(row.r, row.id);
    }
    return rowids.map((r) => held.get(r) as string);
  }

  /**
   * Reads a slice of the full-text lists message searches wanted and did not hold, off the question's
   * path (src/retrieval/held-bm25.ts `prepare`); true while some are still wanted.
   */
  prepareRanking(): boolean {
    if (this.rankings.episode_fts.prepare()) return true;
    return this.rankings.passage_fts.prepare();
  }

  /** Postings the held full-text lists keep now, over both tables (trace.held). */
  heldPostings(): number {
    return this.rankings.episode_fts.size() + this.rankings.passage_fts.size();
  }

  /**
   * Nearest messages to the query's vector (from the same embedder), among those embedded so far
   * (`embedPending` brings the index up to date on the write path), scoring `minScore` or more.
   */
  async semantic(
    vector: number[],
    namespace: string,
    limit: number,
    minScore?: number,
  ): Promise<{ id: string; score: number }[]> {
    if (vector.every((v) => v === 0)) return [];
    const matches = await this.vectors.query(vector, {
      topK: Math.min(limit, MAX_TOP_K),
      namespace,
      ...(minScore === undefined ? {} : { minScore }),
    });
    return matches.map((m) => ({ id: m.id, score: m.score }));
  }

  /**
   * Embeds messages not embedded yet under this embedder's namespace: those added since a full scan, or
   * up to EMBED_PER_QUERY found by scanning. True when some may remain for another call.
   */
  async embedPending(embedder: Embedder, namespace: string): Promise<boolean> {
    const done = `${embedder.name}\u0000${namespace}`;
    const added = this.embedded.get(done);
    if (added) {
      if (added.size === 0) return false;
      // What is known to be pending now, EMBED_PER_QUERY at most (a bulk import adds tens of thousands,
      // seconds of work the pass splits between requests); messages arriving while this awaits the
      // embedder wait their turn.
      const known: string[] = [];
      for (const id of added) {
        if (known.length === EMBED_PER_QUERY) break;
        known.push(id);
      }
      const pending = this.contents(known);
      await this.embedMessages(embedder, namespace, pending);
      for (const m of pending) added.delete(m.id);
      // Ids with no stored message (their insert rolled back) have nothing to embed, unless one was
      // written again meanwhile; checked with no await before the deletion.
      const found = new Set(pending.map((m) => m.id));
      const missing = known.filter((id) => !found.has(id));
      const stored = new Set(this.contents(missing).map((m) => m.id));
      for (const id of missing) if (!stored.has(id)) added.delete(id);
      return added.size > 0;
    }
    let scan = this.scans.get(done);
    if (!scan) {
      scan = { arriving: new Set() };
      this.scans.set(done, scan);
    }
    const { reached } = scan;
    const pending = this.sql
      .exec<{ id: string; content: string; ts: string }>(
        `SELECT m.id, m.content, m.ts FROM messages m
         WHERE (m.ts, m.id) > (?2, ?3)
           AND NOT EXISTS (SELECT 1 FROM episode_embedded e WHERE e.embedder = ?1 AND e.id = m.id)
         ORDER BY m.ts, m.id LIMIT ?4`,
        embedder.name,
        reached?.ts ?? "",
        reached?.id ?? "",
        EMBED_PER_QUERY,
      )
      .toArray();
    // A failed call leaves the scan where it was, to read the same messages again.
    await this.embedMessages(embedder, namespace, pending);
    const last = pending.at(-1);
    if (last) scan.reached = { ts: last.ts, id: last.id };
    if (pending.length >= EMBED_PER_QUERY) return true;
    // The whole transcript is read: what arrived meanwhile and is not embedded yet is all that is left.
    this.scans.delete(done);
    const left = new Set(this.unembedded(embedder, [...scan.arriving]));
    this.embedded.set(done, left);
    return left.size > 0;
  }

  /**
   * How many messages have no vector yet under this embedder: a bulk import's backlog, which the write
   * path embeds a batch at a time between requests after extraction. Every message is marked once
   * embedded (a blank one too) and none is ever deleted, so it is the difference of two counts.
   */
  unembeddedCount(embedder: Embedder): number {
    return this.sql
      .exec<{ n: number }>(
        `SELECT max(0, (SELECT count(*) FROM messages)
           - (SELECT count(*) FROM episode_embedded WHERE embedder = ?)) AS n`,
        embedder.name,
      )
      .one().n;
  }

  /** The ids among `ids` not embedded yet by this embedder. */
  private unembedded(embedder: Embedder, ids: string[]): string[] {
    if (ids.length === 0) return [];
    return this.sql
      .exec<{ id: string }>(
        `SELECT value AS id FROM json_each(?1)
         WHERE NOT EXISTS (SELECT 1 FROM episode_embedded e WHERE e.embedder = ?2 AND e.id = value)`,
        JSON.stringify(ids),
        embedder.name,
      )
      .toArray()
      .map((r) => r.id);
  }

  private async embedMessages(
    embedder: Embedder,
    namespace: string,
    pending: { id: string; content: string }[],
  ): Promise<void> {
    const entries = pending.map((m) => ({ id: m.id, text: m.content }));
    await embedIntoIndex(embedder, this.vectors, namespace, "message", entries, (ids) => {
      for (const id of ids) {
        this.sql.exec(
          "INSERT INTO episode_embedded (embedder, id) VALUES (?, ?) ON CONFLICT DO NOTHING",
          embedder.name,
          id,
        );
      }
    });
  }

  /** Stored messages among the ids, with their text. */
  private contents(ids: string[]): { id: string; content: string }[] {
    return this.byIds<{ id: string; content: string }>(
      (list) => `SELECT id, content FROM messages WHERE id IN (${list})`,
      ids,
    );
  }

  /**
   * Rows of `query` for the ids, all in one statement: `list` is a subquery over the ids passed as one
   * JSON parameter (each looked up by its index, as `IN (?, ?, …)` would be), since a statement's own
   * cost in the Durable Object's SQL API outweighs a few lookups.
   */
  private byIds<T extends Record<string, SqlStorageValue>>(
    query: (list: string) => string,
    ids: readonly SqlStorageValue[],
  ): T[] {
    if (ids.length === 0) return [];
    return this.sql.exec<T>(query("SELECT value FROM json_each(?)"), JSON.stringify(ids)).toArray();
  }

  /** Full records (with extraction's scope) of the given messages; ids with no message are left out. */
  records(ids: readonly string[]): Map<string, EpisodeRow> {
    const found = new Map<string, EpisodeRow>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const held = this.cached.get(id);
      if (!held) {
        missing.push(id);
        continue;
      }
      // Refreshed as most recently used.
      this.cached.delete(id);
      this.cached.set(id, held);
      found.set(id, held);
    }
    const rows = this.byIds<EpisodeRow & Record<string, SqlStorageValue>>(
      (list) => `SELECT m.id, m.ts, m.role, m.speaker, m.content, m.line, m.tokens, s.scope, s.scope_id
                 FROM messages m LEFT JOIN message_scopes s ON s.id = m.id WHERE m.id IN (${list})`,
      missing,
    );
    for (const row of rows) {
      // Frozen: the same object is handed to every later compile.
      const record = Object.freeze({ ...row }) as EpisodeRow;
      found.set(record.id, record);
      this.cached.set(record.id, record);
    }
    // The oldest go, in one pass over the keys: a fresh iterator per eviction would step over every
    // entry deleted before it (a Map keeps them until it next rehashes), quadratic in the evictions.
    let excess = this.cached.size - this.recordCacheLimit;
    for (const id of this.cached.keys()) {
      if (excess-- <= 0) break;
      this.cached.delete(id);
    }
    return found;
  }

  /**
   * The previous and next message of each given one, when no more than `sessionGapMs` apart: a longer
   * silence starts a new session, and a turn across it answers nothing.
   */
  adjacency(
    records: Iterable<EpisodeRow>,
    sessionGapMs: number,
  ): Map<string, { previous?: string; next?: string }> {
    const adjacency = new Map<string, { previous?: string; next?: string }>();
    const close = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) <= sessionGapMs;
    const unheld: EpisodeRow[] = [];
    for (const m of records) {
      const held = this.order.within(m.ts, m.id, sessionGapMs);
      if (held) adjacency.set(m.id, held);
      else unheld.push(m);
    }
    for (const [i, { previous, next }] of this.seek(unheld).entries()) {
      const m = unheld[i] as EpisodeRow;
      adjacency.set(m.id, {
        ...(previous && close(previous.ts, m.ts) ? { previous: previous.id } : {}),
        ...(next && close(next.ts, m.ts) ? { next: next.id } : {}),
      });
    }
    return adjacency;
  }

  /**
   * The same neighbours from SQL, for a transcript too long to hold in memory: one statement for every
   * message, each side a seek of messages_order (ts, id) by row value (the equivalent OR of two ranges
   * made SQLite merge both and sort). One statement rather than two per message: a statement's own
   * cost in the Durable Object's SQL API was most of the seeks' (about 300 messages a compile at
   * 100,000 messages).
   */
  private seek(
    positions: readonly { ts: string; id: string }[],
  ): { previous?: { id: string; ts: string }; next?: { id: string; ts: string } }[] {
    if (positions.length === 0) return [];
    const found = positions.map(
      (): { previous?: { id: string; ts: string }; next?: { id: string; ts: string } } => ({}),
    );
    // Each side is read from the index alone (it covers id and ts), never from the message's row.
    const rows = this.sql.exec<{ i: number; previous: string | null; next: string | null }>(
      `SELECT h.key AS i,
         (SELECT json_array(id, ts) FROM messages WHERE (ts, id) < (h.value ->> 0, h.value ->> 1)
          ORDER BY ts DESC, id DESC LIMIT 1) AS previous,
         (SELECT json_array(id, ts) FROM messages WHERE (ts, id) > (h.value ->> 0, h.value ->> 1)
          ORDER BY ts, id LIMIT 1) AS next
       FROM json_each(?) h`,
      JSON.stringify(positions.map((m) => [m.ts, m.id])),
    );
    const side = (json: string | null) => {
      if (json === null) return undefined;
      const [id, ts] = JSON.parse(json) as [string, string];
      return { id, ts };
    };
    for (const row of rows) {
      const entry = found[row.i];
      if (!entry) continue;
      const previous = side(row.previous);
      const next = side(row.next);
      if (previous) entry.previous = previous;
      if (next) entry.next = next;
    }
    return found;
  }
}

interface HeldTail {
  limit: number;
  records: readonly MessageRecord[];
}

/** ORDER BY ts, id (BINARY collation). */
const byTranscriptOrder = (a: MessageRecord, b: MessageRecord) =>
  compareBinary(a.ts, b.ts) || compareBinary(a.id, b.id);

/**
 * A just-written message as `tail` reads it back: the same fields in the same order (the envelope's
 * bytes follow them), no scope until extraction gives one.
 */
export function writtenTailRecord(
  message: Omit<MessageRecord, "forms" | "scope" | "scope_id" | "screen">,
  forms: MessageRecord["forms"],
): MessageRecord {
  return tailRecord({
    id: message.id,
    ts: message.ts,
    role: message.role,
    speaker: message.speaker,
    content: message.content,
    line: message.line,
    tokens: message.tokens,
    scope: null,
    scope_id: null,
    summary: forms ? forms.summary : null,
    summary_tokens: forms ? forms.summaryTokens : null,
    micro: forms ? forms.micro : null,
    micro_tokens: forms ? forms.microTokens : null,
  } as TailRow);
}

type TailRow = Omit<MessageRecord, "forms"> & {
  summary: string | null;
  summary_tokens: number | null;
  micro: string | null;
  micro_tokens: number | null;
} & Record<string, SqlStorageValue>;

function tailRecord(row: TailRow): MessageRecord {
  const { summary, summary_tokens, micro, micro_tokens, ...message } = row;
  const forms =
    summary === null
      ? null
      : Object.freeze({
          summary,
          summaryTokens: summary_tokens ?? 0,
          micro: micro ?? "",
          microTokens: micro_tokens ?? 0,
        });
  return Object.freeze({ ...message, forms });
}
