import type { MessageRecord } from "../compiler/types";
import type { Embedder } from "../ports/embedder";
import type { VectorIndex } from "../ports/vector-index";
import { MAX_TOP_K } from "../ports/vector-index";
import { ftsMatchExpression } from "../retrieval/query-terms";

/**
 * The thread's episodic index over its raw messages: an FTS5 table (porter stemming over unicode61
 * tokens, ranked by bm25) written in the same transaction as each message, and message embeddings in
 * the thread's VectorIndex, computed lazily at query time so ingestion never waits on an embedder and
 * a change of embedder re-embeds on its own (each embedder has its own namespace and bookkeeping).
 */
export const EPISODE_SCHEMA = [
  `CREATE VIRTUAL TABLE IF NOT EXISTS episode_fts USING fts5(
     id UNINDEXED, speaker, content, tokenize = 'porter unicode61')`,
  `CREATE TABLE IF NOT EXISTS episode_embedded (embedder TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (embedder, id))`,
];

const BACKFILLED = "episode_index_backfilled";
/** Messages embedded per compile at most, so a first query on a huge thread stays bounded. */
export const EMBED_PER_QUERY = 2_000;
const EMBED_BATCH = 100;

export type EpisodeRow = MessageRecord;

export class EpisodeIndex {
  /**
   * Embedder namespaces this instance found fully embedded; a new message clears it. Messages are
   * written only through this object, so the check query need not scan the transcript every compile.
   */
  private readonly embedded = new Set<string>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly vectors: VectorIndex,
  ) {
    for (const statement of EPISODE_SCHEMA) sql.exec(statement);
    // Threads that predate the index get their messages indexed once.
    const done = sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", BACKFILLED).toArray()[0];
    if (!done) {
      sql.exec("INSERT INTO episode_fts (id, speaker, content) SELECT id, speaker, content FROM messages");
      sql.exec("INSERT INTO meta (k, v) VALUES (?, 'true')", BACKFILLED);
    }
  }

  /** Call inside the transaction that inserts the message, only when the insert took effect. */
  add(message: { id: string; speaker: string | null; content: string }): void {
    this.embedded.clear();
    this.sql.exec(
      "INSERT INTO episode_fts (id, speaker, content) VALUES (?, ?, ?)",
      message.id,
      message.speaker,
      message.content,
    );
  }

  /** Message ids by bm25, best first; any query text is safe. */
  lexical(query: string, limit: number): string[] {
    const match = ftsMatchExpression(query);
    if (!match) return [];
    return this.sql
      .exec<{ id: string }>(
        "SELECT id FROM episode_fts WHERE episode_fts MATCH ? ORDER BY bm25(episode_fts) LIMIT ?",
        match,
        limit,
      )
      .toArray()
      .map((r) => r.id);
  }

  /** Nearest messages to the query by embedding, after embedding what is not embedded yet. */
  async semantic(
    query: string,
    embedder: Embedder,
    namespace: string,
    limit: number,
  ): Promise<{ id: string; score: number }[]> {
    await this.embedPending(embedder, namespace);
    const [vector] = await embedder.embed([query]);
    if (!vector || vector.every((v) => v === 0)) return [];
    const matches = await this.vectors.query(vector, { topK: Math.min(limit, MAX_TOP_K), namespace });
    return matches.map((m) => ({ id: m.id, score: m.score }));
  }

  private async embedPending(embedder: Embedder, namespace: string): Promise<void> {
    const done = `${embedder.name}\u0000${namespace}`;
    if (this.embedded.has(done)) return;
    const pending = this.sql
      .exec<{ id: string; content: string }>(
        `SELECT m.id, m.content FROM messages m
         WHERE NOT EXISTS (SELECT 1 FROM episode_embedded e WHERE e.embedder = ? AND e.id = m.id)
         ORDER BY m.ts, m.id LIMIT ?`,
        embedder.name,
        EMBED_PER_QUERY,
      )
      .toArray();
    for (let start = 0; start < pending.length; start += EMBED_BATCH) {
      const batch = pending.slice(start, start + EMBED_BATCH);
      const vectors = await embedder.embed(batch.map((m) => m.content));
      // A blank message embeds as the zero vector, which the index refuses; it is marked done anyway.
      await this.vectors.upsert(
        batch
          .map((m, i) => ({ id: m.id, namespace, values: vectors[i] ?? [], metadata: { kind: "message" } }))
          .filter((r) => r.values.some((v) => v !== 0)),
      );
      for (const m of batch) {
        this.sql.exec(
          "INSERT INTO episode_embedded (embedder, id) VALUES (?, ?) ON CONFLICT DO NOTHING",
          embedder.name,
          m.id,
        );
      }
    }
    if (pending.length < EMBED_PER_QUERY) this.embedded.add(done);
  }

  /** Full records (with extraction's scope) of the given messages. */
  records(ids: readonly string[]): Map<string, EpisodeRow> {
    const found = new Map<string, EpisodeRow>();
    const unique = [...new Set(ids)];
    for (let start = 0; start < unique.length; start += 50) {
      const chunk = unique.slice(start, start + 50);
      const rows = this.sql
        .exec<EpisodeRow & Record<string, SqlStorageValue>>(
          `SELECT m.id, m.ts, m.role, m.speaker, m.content, m.line, m.tokens, s.scope, s.scope_id
           FROM messages m LEFT JOIN message_scopes s ON s.id = m.id
           WHERE m.id IN (${chunk.map(() => "?").join(", ")})`,
          ...chunk,
        )
        .toArray();
      for (const row of rows) found.set(row.id, row);
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
    // Row values seek messages_order (ts, id) directly; the equivalent OR of two ranges made SQLite
    // merge both and sort, reading much of the transcript for every hit.
    const close = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) <= sessionGapMs;
    for (const m of records) {
      const previous = this.sql
        .exec<{ id: string; ts: string }>(
          "SELECT id, ts FROM messages WHERE (ts, id) < (?, ?) ORDER BY ts DESC, id DESC LIMIT 1",
          m.ts,
          m.id,
        )
        .toArray()[0];
      const next = this.sql
        .exec<{ id: string; ts: string }>(
          "SELECT id, ts FROM messages WHERE (ts, id) > (?, ?) ORDER BY ts, id LIMIT 1",
          m.ts,
          m.id,
        )
        .toArray()[0];
      adjacency.set(m.id, {
        ...(previous && close(previous.ts, m.ts) ? { previous: previous.id } : {}),
        ...(next && close(next.ts, m.ts) ? { next: next.id } : {}),
      });
    }
    return adjacency;
  }
}
