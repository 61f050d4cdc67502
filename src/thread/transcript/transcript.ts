import type { MessageEventInput } from "../../api/schemas";
import type { MessageRecord, MessageScreen } from "../../compiler/types";
import { type DetailForms, detailForms } from "../../detail-forms/detail-forms";
import type { Identity } from "../../domain/identity";
import type { MessageScope } from "../../items/types";
import type { Embedder } from "../../ports/embedder";
import type { VectorIndex } from "../../ports/vector-index";
import { compareBinary } from "../binary-collation";
import type { SqlHost } from "../host";
import type { ThreadMeta } from "../thread-meta";
import { EpisodeIndex, type EpisodeIndexOptions, writtenTailRecord } from "./episode-index";
import { addArrivalSequence, TRANSCRIPT_SCHEMA } from "./transcript-schema";
import { TurnScreens } from "./turn-screens";

export type StampedMessage = MessageEventInput & { id: string; ts: string };

/** A message with everything computed that can fail (its line, counts, detail forms), before any write. */
export interface PreparedMessage {
  message: StampedMessage;
  prefix: string;
  line: string;
  tokens: number;
  forms: DetailForms;
}

/** Renders and counts messages: pure, so a batch is prepared whole before anything is stored. */
export function prepareMessages(
  messages: readonly StampedMessage[],
  countTokens: (text: string) => number,
): PreparedMessage[] {
  return messages.map((m) => {
    const prefix = `[${m.ts}] ${m.speaker ? `${m.speaker} (${m.role})` : m.role}: `;
    const line = `${prefix}${m.content}`;
    return {
      message: m,
      prefix,
      line,
      tokens: countTokens(line),
      forms: detailForms(m.content, countTokens, prefix),
    };
  });
}

/** A position in the transcript's (ts, id) order, such as extraction's watermark. */
export interface TranscriptPosition {
  ts: string;
  id: string;
}

/** A message with its arrival sequence, as extraction reads it. */
export type ArrivedMessage = StoredMessage & { seq: number };

/** A message as extraction and the thread's read views see it. */
export interface StoredMessage {
  id: string;
  ts: string;
  role: string;
  speaker: string | null;
  content: string;
}

/** Ids per IN (...) list, well under SQLite's bound-parameter limit. */
const ID_CHUNK = 90;
/** Past this many ids, `timesOf` scans every message's (id, ts) once instead of asking in chunks. */
const WHOLE_SCAN_AFTER = 1_000;
const BACKFILLED = "episode_index_backfilled";
const PASSAGES_BACKFILLED = "passage_index_backfilled";

/**
 * The thread's transcript: the single writer of its messages, their detail forms, the scopes extraction
 * gives them, their screening verdicts and their episodic index (FTS5 and embeddings). Ingest appends
 * inside its transaction; extraction rescopes inside its own; compiles read the tail and retrieve.
 */
export class Transcript {
  readonly episodes: EpisodeIndex;
  private readonly screens: TurnScreens;
  private readonly sql: SqlStorage;
  /** Messages appended in the open transaction, for `appended` to hand to the held copies. */
  private inserted: { id: string; ts: string }[] = [];
  /** The last arrival sequence number given, read once; a rolled-back number is simply skipped. */
  private lastSeq: number | undefined;

  constructor(host: SqlHost, meta: ThreadMeta, vectors: VectorIndex, options: EpisodeIndexOptions = {}) {
    this.sql = host.sql;
    for (const statement of TRANSCRIPT_SCHEMA) this.sql.exec(statement);
    addArrivalSequence(this.sql);
    this.episodes = new EpisodeIndex(this.sql, vectors, options);
    // Threads that predate the index get their messages indexed once.
    if (meta.raw(BACKFILLED) === undefined) {
      this.episodes.backfill();
      meta.set(BACKFILLED, true);
    }
    if (meta.raw(PASSAGES_BACKFILLED) === undefined) {
      this.episodes.backfillPassages();
      meta.set(PASSAGES_BACKFILLED, true);
    }
    this.screens = new TurnScreens(this.sql);
  }

  /**
   * Writes messages not stored yet, with their detail forms and index entries, then screens the user
   * turns among them against every turn before. Call inside a transaction, and `appended` last in it.
   */
  append(
    messages: readonly PreparedMessage[],
    identity: Identity,
    countTokens: (text: string) => number,
  ): { accepted: number; duplicates: number } {
    let accepted = 0;
    let duplicates = 0;
    const userTurns: { id: string; ts: string; content: string; prefix: string }[] = [];
    this.inserted = [];
    for (const { message: m, prefix, line, tokens, forms } of messages) {
      const cursor = this.sql.exec(
        "INSERT INTO messages (id, ts, role, speaker, content, line, tokens, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        m.id,
        m.ts,
        m.role,
        m.speaker ?? null,
        m.content,
        line,
        tokens,
        this.nextSeq(),
      );
      if (cursor.rowsWritten === 0) {
        duplicates++;
        continue;
      }
      accepted++;
      this.sql.exec(
        "INSERT OR REPLACE INTO message_forms (id, summary, summary_tokens, micro, micro_tokens) VALUES (?, ?, ?, ?, ?)",
        m.id,
        forms.summary,
        forms.summaryTokens,
        forms.micro,
        forms.microTokens,
      );
      const speaker = m.speaker ?? null;
      this.episodes.add({
        id: m.id,
        speaker,
        content: m.content,
        record: writtenTailRecord(
          { id: m.id, ts: m.ts, role: m.role, speaker, content: m.content, line, tokens },
          forms,
        ),
      });
      this.inserted.push({ id: m.id, ts: m.ts });
      if (m.role === "user") userTurns.push({ id: m.id, ts: m.ts, content: m.content, prefix });
    }
    // After the batch is in, so each turn is weighed against every turn before it.
    for (const turn of userTurns) this.screens.screen(turn, identity, countTokens);
    return { accepted, duplicates };
  }

  /**
   * Call last in the transaction that appended: the in-memory copies take the new messages only once
   * every statement is in, so they never hold what a rolled-back transaction did not write.
   */
  appended(): void {
    const inserted = this.inserted;
    this.inserted = [];
    this.episodes.added(inserted);
  }

  /** Call when the transaction that appended rolled back: what it began in memory is let go. */
  rolledBack(): void {
    this.inserted = [];
    this.episodes.rolledBack();
  }

  /** Stores the scopes extraction gave messages. Call inside extraction's commit transaction. */
  rescope(scopes: readonly MessageScope[]): void {
    for (const m of scopes) {
      this.sql.exec(
        "INSERT INTO message_scopes (id, scope, scope_id) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET scope = excluded.scope, scope_id = excluded.scope_id",
        m.id,
        m.scope,
        m.scope_id,
      );
    }
    this.episodes.rescoped(scopes);
  }

  /**
   * Turns spoken inside an adopted scope ("let's go with that") become the session's ordinary turns.
   * Call inside extraction's commit, after `rescope`.
   */
  adopt(scopeIds: readonly string[]): void {
    const ids = scopeIds.flatMap((scopeId) =>
      this.sql
        .exec<{ id: string }>("SELECT id FROM message_scopes WHERE scope_id = ?", scopeId)
        .toArray()
        .map((row) => row.id),
    );
    this.rescope(ids.map((id) => ({ id, scope: "session", scope_id: null })));
  }

  /** The last `limit` messages, oldest first, frozen records in the caller's own array. */
  tail(limit: number): MessageRecord[] {
    return this.episodes.tail(limit);
  }

  /** Screening verdicts of the given messages, by id. */
  screensOf(ids: readonly string[]): Map<string, MessageScreen> {
    return this.screens.of(ids);
  }

  /** The next arrival sequence number. */
  private nextSeq(): number {
    this.lastSeq ??= this.sql.exec<{ n: number }>("SELECT coalesce(max(seq), 0) AS n FROM messages").one().n;
    this.lastSeq++;
    return this.lastSeq;
  }

  /**
   * The first `limit` messages to arrive after arrival number `seq`, returned in (ts, id) order, the
   * order a conversation is read in.
   */
  arrivedAfter<T extends ArrivedMessage & Record<string, SqlStorageValue>>(seq: number, limit: number): T[] {
    return this.sql
      .exec<T>(
        "SELECT id, ts, role, speaker, content, seq FROM messages WHERE seq > ? ORDER BY seq LIMIT ?",
        seq,
        limit,
      )
      .toArray()
      .sort((a, b) => compareBinary(a.ts, b.ts) || compareBinary(a.id, b.id));
  }

  /** How many messages arrived after arrival number `seq`. */
  countArrivedAfter(seq: number): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages WHERE seq > ?", seq).one().n;
  }

  /**
   * The arrival number up to which every message lies at or before (ts, id) `position`: how far a
   * watermark kept as a position (before arrival numbers existed) had read.
   */
  arrivedThrough(position: TranscriptPosition): number {
    const firstAfter = this.sql
      .exec<{ n: number | null }>(
        "SELECT min(seq) AS n FROM messages WHERE (ts, id) > (?, ?)",
        position.ts,
        position.id,
      )
      .one().n;
    return firstAfter === null
      ? this.sql.exec<{ n: number }>("SELECT coalesce(max(seq), 0) AS n FROM messages").one().n
      : firstAfter - 1;
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages").one().n;
  }

  /** The newest message's position, if any. */
  last(): TranscriptPosition | null {
    const last = this.sql
      .exec<{ ts: string; id: string }>("SELECT ts, id FROM messages ORDER BY ts DESC, id DESC LIMIT 1")
      .toArray()[0];
    return last ? { ts: last.ts, id: last.id } : null;
  }

  /** The given messages in (ts, id) order. */
  messages(ids: readonly string[]): StoredMessage[] {
    if (ids.length === 0) return [];
    return this.sql
      .exec<StoredMessage & Record<string, SqlStorageValue>>(
        `SELECT id, ts, role, speaker, content FROM messages WHERE id IN (${ids.map(() => "?").join(", ")}) ORDER BY ts, id`,
        ...ids,
      )
      .toArray();
  }

  /** When each of the given messages was said, by id; ids with no message are left out. */
  timesOf(ids: readonly string[]): Map<string, string> {
    const times = new Map<string, string>();
    const unique = [...new Set(ids)];
    if (unique.length > WHOLE_SCAN_AFTER) {
      // Many ids (a cold read of every claim): one index-only scan of messages_order beats chunks.
      const wanted = new Set(unique);
      for (const row of this.sql.exec<{ id: string; ts: string }>(
        "SELECT id, ts FROM messages ORDER BY ts, id",
      )) {
        if (wanted.has(row.id)) times.set(row.id, row.ts);
      }
      return times;
    }
    for (let i = 0; i < unique.length; i += ID_CHUNK) {
      const chunk = unique.slice(i, i + ID_CHUNK);
      const rows = this.sql
        .exec<{ id: string; ts: string }>(
          `SELECT id, ts FROM messages WHERE id IN (${chunk.map(() => "?").join(", ")})`,
          ...chunk,
        )
        .toArray();
      for (const row of rows) times.set(row.id, row.ts);
    }
    return times;
  }

  /** Messages the message index has not embedded yet (EpisodeIndex.unembeddedCount). */
  unindexed(embedder: Embedder): number {
    return this.episodes.unembeddedCount(embedder);
  }

  /** Embeds messages not embedded yet (the write path's index upkeep); true when some may remain. */
  embedPending(embedder: Embedder, namespace: string): Promise<boolean> {
    return this.episodes.embedPending(embedder, namespace);
  }
}
