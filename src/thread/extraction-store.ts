import type { StatedClaims, StateItemRecord } from "../compiler/types";
import type { MessageClaim } from "../extraction/run-extraction";
import { computeUid } from "../state/items";
import { renderItemLine } from "../state/render";
import type { MessageScope, RetiredValue, StateItem } from "../state/types";

/**
 * The thread's extraction state in its own SQLite: state items, the per-run log, dead jobs, and the
 * watermark with the scope still open at its position. Everything here is written in the same
 * storage transaction as the watermark, so a crash never advances one without the other.
 */
export const EXTRACTION_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS state_items (
     uid TEXT PRIMARY KEY, type_tag TEXT NOT NULL, status TEXT NOT NULL, last_seen_at TEXT NOT NULL,
     item_json TEXT NOT NULL, line TEXT NOT NULL, tokens INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS extraction_runs (
     id TEXT PRIMARY KEY, finished_at TEXT NOT NULL, result_json TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS message_claims (
     message_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (message_id, key))`,
  `CREATE TABLE IF NOT EXISTS message_retired (
     message_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (message_id, key, value))`,
  `CREATE TABLE IF NOT EXISTS message_scopes (id TEXT PRIMARY KEY, scope TEXT NOT NULL, scope_id TEXT)`,
  `CREATE TABLE IF NOT EXISTS dead_jobs (message_id TEXT PRIMARY KEY, attempts INTEGER NOT NULL, recorded_at TEXT NOT NULL)`,
];

export interface WatermarkPosition {
  ts: string;
  id: string;
}

export interface ExtractResult {
  id: string;
  extractor: string;
  started_at: string;
  duration_ms: number;
  messages: number;
  through: WatermarkPosition | null;
  items_extracted: number;
  items_merged: number;
  items_conflicted: number;
  items_superseded: number;
  items_dropped: number;
  facts_extracted: number;
  skipped_reason: string | null;
}

export class ExtractionStore {
  constructor(private readonly sql: SqlStorage) {
    for (const statement of EXTRACTION_SCHEMA) sql.exec(statement);
  }

  private meta(key: string): string | undefined {
    return this.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", key).toArray()[0]?.v;
  }

  private setMeta(key: string, value: unknown): void {
    this.sql.exec(
      "INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
      key,
      JSON.stringify(value),
    );
  }

  watermark(): WatermarkPosition | null {
    const raw = this.meta("extracted_through");
    return raw ? (JSON.parse(raw) as WatermarkPosition) : null;
  }

  openScope(): { scope: StateItem["scope"]; scope_id: string | null } | null {
    const raw = this.meta("open_scope");
    return raw ? (JSON.parse(raw) as { scope: StateItem["scope"]; scope_id: string | null } | null) : null;
  }

  slotAliases(): Record<string, string> {
    const raw = this.meta("slot_aliases");
    return raw ? (JSON.parse(raw) as Record<string, string>) : {};
  }

  /** The slot values the given messages stated or retired, with their times, by message id. */
  statedClaims(messageIds: string[]): Map<string, StatedClaims> {
    const out = new Map<string, StatedClaims>();
    const ids = [...new Set(messageIds)];
    for (let i = 0; i < ids.length; i += 90) {
      const part = ids.slice(i, i + 90);
      const rows = this.sql
        .exec<{ id: string; ts: string; key: string; value: string }>(
          `SELECT c.message_id AS id, m.ts AS ts, c.key AS key, c.value AS value
           FROM message_claims c JOIN messages m ON m.id = c.message_id
           WHERE c.message_id IN (${part.map(() => "?").join(", ")})`,
          ...part,
        )
        .toArray();
      for (const row of rows) {
        const entry = out.get(row.id) ?? { ts: row.ts, claims: [] };
        entry.claims.push({ key: row.key, value: row.value });
        out.set(row.id, entry);
      }
      const retired = this.sql
        .exec<{ id: string; ts: string; value: string }>(
          `SELECT r.message_id AS id, m.ts AS ts, r.value AS value
           FROM message_retired r JOIN messages m ON m.id = r.message_id
           WHERE r.message_id IN (${part.map(() => "?").join(", ")})`,
          ...part,
        )
        .toArray();
      for (const row of retired) {
        const entry = out.get(row.id) ?? { ts: row.ts, claims: [] };
        entry.retired = [...(entry.retired ?? []), row.value];
        out.set(row.id, entry);
      }
    }
    return out;
  }

  /** Messages after the watermark, by the (created_at, id) tie-breaker of seed 002. */
  pendingMessages<T extends Record<string, SqlStorageValue>>(limit: number): T[] {
    const mark = this.watermark();
    const query = mark
      ? this.sql.exec<T>(
          "SELECT id, ts, role, speaker, content FROM messages WHERE ts > ? OR (ts = ? AND id > ?) ORDER BY ts, id LIMIT ?",
          mark.ts,
          mark.ts,
          mark.id,
          limit,
        )
      : this.sql.exec<T>(
          "SELECT id, ts, role, speaker, content FROM messages ORDER BY ts, id LIMIT ?",
          limit,
        );
    return query.toArray();
  }

  pendingCount(): number {
    const mark = this.watermark();
    return mark
      ? this.sql
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM messages WHERE ts > ? OR (ts = ? AND id > ?)",
            mark.ts,
            mark.ts,
            mark.id,
          )
          .one().n
      : this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages").one().n;
  }

  activeItems(): StateItem[] {
    return this.sql
      .exec<{ item_json: string }>(
        "SELECT item_json FROM state_items WHERE status != 'superseded' ORDER BY last_seen_at DESC",
      )
      .toArray()
      .map((r) => JSON.parse(r.item_json) as StateItem);
  }

  /** Items for a compile, superseded ones included so the trace can account for them. */
  itemRecords(limit = 500): StateItemRecord[] {
    return this.sql
      .exec<{ item_json: string; line: string; tokens: number }>(
        "SELECT item_json, line, tokens FROM state_items ORDER BY last_seen_at DESC, uid LIMIT ?",
        limit,
      )
      .toArray()
      .map((r) => ({ item: JSON.parse(r.item_json) as StateItem, line: r.line, tokens: r.tokens }));
  }

  allItems(): StateItem[] {
    return this.sql
      .exec<{ item_json: string }>("SELECT item_json FROM state_items ORDER BY last_seen_at DESC, uid")
      .toArray()
      .map((r) => JSON.parse(r.item_json) as StateItem);
  }

  item(uid: string): StateItem | undefined {
    const row = this.sql
      .exec<{ item_json: string }>("SELECT item_json FROM state_items WHERE uid = ?", uid)
      .toArray()[0];
    return row ? (JSON.parse(row.item_json) as StateItem) : undefined;
  }

  /**
   * A quarantined contradiction becomes a pending confirmation (seed 001: never ask the model to
   * reconcile inside the prompt). The question names the slot and the objects, never their values, and
   * its uid follows from its text, so compiling again does not raise it twice.
   */
  raiseConfirmations(
    conflicts: { slot: string; objectIds: string[] }[],
    now: string,
    countTokens: (text: string) => number,
  ): void {
    for (const { slot, objectIds } of conflicts) {
      const text = `Confirm which claim about ${slot} holds: ${[...objectIds].sort().join(" vs ")}`;
      const item: StateItem = {
        uid: computeUid("question", text),
        text,
        status: "open",
        type_tag: "question",
        topic_tags: [slot],
        refs: [],
        confidence: "high",
        replaced_by: null,
        supersession_evidence: null,
        conflict: true,
        pinned: true,
        source: "rules",
        created_at: now,
        last_seen_at: now,
        scope: "global",
        scope_id: null,
        classification: "public",
        allow_roles: [],
      };
      const line = renderItemLine(item);
      this.sql.exec(
        `INSERT INTO state_items (uid, type_tag, status, last_seen_at, item_json, line, tokens) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (uid) DO NOTHING`,
        item.uid,
        item.type_tag,
        item.status,
        item.last_seen_at,
        JSON.stringify(item),
        line,
        countTokens(line),
      );
    }
  }

  /** Persists one run: items, log entry, watermark and open scope. Call inside transactionSync. */
  commitRun(
    items: StateItemRecord[],
    result: ExtractResult,
    through: WatermarkPosition,
    openScope: { scope: StateItem["scope"]; scope_id: string | null } | null,
    slotAliases: Record<string, string>,
    messageScopes: MessageScope[],
    messageClaims: MessageClaim[],
    retiredValues: RetiredValue[] = [],
  ): void {
    for (const r of retiredValues) {
      this.sql.exec(
        "INSERT INTO message_retired (message_id, key, value) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        r.id,
        r.key,
        r.value,
      );
    }
    for (const c of messageClaims) {
      this.sql.exec(
        "INSERT INTO message_claims (message_id, key, value) VALUES (?, ?, ?) ON CONFLICT (message_id, key) DO UPDATE SET value = excluded.value",
        c.message_id,
        c.key,
        c.value,
      );
    }
    for (const m of messageScopes) {
      this.sql.exec(
        "INSERT INTO message_scopes (id, scope, scope_id) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET scope = excluded.scope, scope_id = excluded.scope_id",
        m.id,
        m.scope,
        m.scope_id,
      );
    }
    for (const { item, line, tokens } of items) {
      this.sql.exec(
        `INSERT INTO state_items (uid, type_tag, status, last_seen_at, item_json, line, tokens) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (uid) DO UPDATE SET type_tag = excluded.type_tag, status = excluded.status,
           last_seen_at = excluded.last_seen_at, item_json = excluded.item_json, line = excluded.line,
           tokens = excluded.tokens`,
        item.uid,
        item.type_tag,
        item.status,
        item.last_seen_at,
        JSON.stringify(item),
        line,
        tokens,
      );
    }
    this.sql.exec(
      "INSERT INTO extraction_runs (id, finished_at, result_json) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
      result.id,
      new Date().toISOString(),
      JSON.stringify(result),
    );
    this.setMeta("extracted_through", through);
    this.setMeta("open_scope", openScope);
    this.setMeta("slot_aliases", slotAliases);
  }

  runs(limit: number): ExtractResult[] {
    return this.sql
      .exec<{ result_json: string }>(
        "SELECT result_json FROM extraction_runs ORDER BY finished_at DESC, id DESC LIMIT ?",
        limit,
      )
      .toArray()
      .map((r) => JSON.parse(r.result_json) as ExtractResult);
  }

  recordDeadJob(messageId: string, attempts: number): void {
    this.sql.exec(
      "INSERT INTO dead_jobs (message_id, attempts, recorded_at) VALUES (?, ?, ?) ON CONFLICT (message_id) DO NOTHING",
      messageId,
      attempts,
      new Date().toISOString(),
    );
  }

  deadJobs(): { message_id: string; attempts: number; recorded_at: string }[] {
    return this.sql
      .exec<{ message_id: string; attempts: number; recorded_at: string }>(
        "SELECT * FROM dead_jobs ORDER BY recorded_at",
      )
      .toArray();
  }
}
