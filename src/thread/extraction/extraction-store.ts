import type { StatedClaims, StateItemRecord } from "../../compiler/types";
import type { MessageClaim } from "../../extraction/run-extraction";
import type { ExtractResult, WatermarkPosition } from "../../extraction/run-result";
import { withBoundedRefs } from "../../items/item-refs";
import { computeUid } from "../../items/items";
import { renderItemLine } from "../../items/render";
import type { CarriedScope, RetiredValue, StateItem } from "../../items/types";
import { compareBinary } from "../binary-collation";
import { deepFreeze } from "../deep-freeze";
import type { SqlHost } from "../host";
import type { ThreadMeta } from "../thread-meta";

/**
 * The thread's extraction state in its own SQLite: state items, the slot values each message stated or
 * retired, the per-run log, dead jobs, and (under its meta keys) the watermark with the scope still open
 * at its position. Everything here is written in the same storage transaction as the watermark, so a
 * crash never advances one without the other.
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
  `CREATE TABLE IF NOT EXISTS dead_jobs (message_id TEXT PRIMARY KEY, attempts INTEGER NOT NULL, recorded_at TEXT NOT NULL)`,
  // The names (normalised) by which each message referred to a registered entity, as extraction resolved
  // them (src/entities/message-mentions.ts): a compile finds the turns that named what its question names
  // here, by the entity's names, without asking D1.
  `CREATE TABLE IF NOT EXISTS message_names (
     name TEXT NOT NULL, seq INTEGER NOT NULL, message_id TEXT NOT NULL,
     PRIMARY KEY (name, seq, message_id)) WITHOUT ROWID`,
  // The names of weak mentions that referred to no entity when their message was read ("Kestrel" before
  // any entity went by it), and for each name the entities that went by it when it was last checked
  // (null: never): a backfill reads a message again only when a name's holders changed.
  `CREATE TABLE IF NOT EXISTS weak_mentions (
     name TEXT NOT NULL, seq INTEGER NOT NULL, message_id TEXT NOT NULL,
     PRIMARY KEY (name, seq, message_id)) WITHOUT ROWID`,
  "CREATE INDEX IF NOT EXISTS weak_mentions_message ON weak_mentions (message_id)",
  // read_through: how far (arrival number) a backfill has read the name's messages again since its
  // holders changed, while it has not read them all.
  `CREATE TABLE IF NOT EXISTS weak_names (
     name TEXT PRIMARY KEY, holders TEXT, read_through INTEGER) WITHOUT ROWID`,
];

/** What reading some messages' mentions recorded (src/entities/message-mentions.ts). */
export interface RecordedMentions {
  /** The messages read: their unresolved weak names are replaced by `unresolved`. */
  read: readonly string[];
  names: readonly MessageName[];
  unresolved: readonly MessageName[];
}

export const NO_MENTIONS: RecordedMentions = { read: [], names: [], unresolved: [] };

/** Ids per IN (...) list, well under SQLite's bound-parameter limit. */
const ID_CHUNK = 90;

/**
 * Decoded copies kept between compiles. This store is the only writer of the tables they copy, and
 * each write updates its copy after the write's last statement, so a copy equals what the next read
 * would return. Everything handed out is frozen, as later compiles receive the same objects.
 */
interface Held {
  /** Every state item by uid, and the same records newest first (last_seen_at DESC, uid). */
  items?: { byUid: Map<string, StateItemRecord>; newestFirst: StateItemRecord[] };
  /** Stated and retired slot values of every message that has any. */
  claims?: Map<string, StatedClaims>;
}

/** A name by which a message (its arrival number and id) referred to a registered entity. */
export interface MessageName {
  name: string;
  seq: number;
  messageId: string;
}

/** A weak name as the backfill checks it (ExtractionStore.weakNames). */
export interface WeakName {
  name: string;
  /** The entities going by it when last checked, as `id:status`, sorted and joined by ","; null: never. */
  holders: string | null;
  /** How far its messages were read again since its holders changed; null when not under way. */
  readThrough: number | null;
}

/** When each message was said, by id (the transcript answers; its tables are its own). */
export type MessageTimes = (ids: readonly string[]) => Map<string, string>;

export class ExtractionStore {
  private readonly held: Held = {};
  private readonly sql: SqlStorage;

  constructor(
    host: SqlHost,
    private readonly meta: ThreadMeta,
    private readonly timesOf: MessageTimes,
  ) {
    this.sql = host.sql;
    for (const statement of EXTRACTION_SCHEMA) this.sql.exec(statement);
  }

  /** The (ts, id) of the last message the last run read: the published watermark. */
  watermark(): WatermarkPosition | null {
    return this.meta.get<WatermarkPosition>("extracted_through") ?? null;
  }

  /**
   * The arrival number through which every message has been extracted; undefined for a thread whose
   * watermark predates arrival numbers (ThreadExtraction derives it from the position then).
   */
  extractedSeq(): number | undefined {
    return this.meta.get<number>("extracted_seq");
  }

  openScope(): CarriedScope | null {
    return this.meta.get<CarriedScope | null>("open_scope") ?? null;
  }

  slotAliases(): Record<string, string> {
    return this.meta.get<Record<string, string>>("slot_aliases") ?? {};
  }

  /** The slot values the given messages stated or retired, with their times, by message id. */
  /**
   * The newest messages (by arrival) that referred to an entity by any of `names`, at most `limit` for
   * each name, with the name each used, newest first: one index seek per name.
   */
  messagesNamed(names: readonly string[], limit: number): MessageName[] {
    const found = names.flatMap((name) =>
      this.sql
        .exec<{ seq: number; message_id: string }>(
          "SELECT seq, message_id FROM message_names WHERE name = ? ORDER BY seq DESC LIMIT ?",
          name,
          limit,
        )
        .toArray()
        .map((row) => ({ name, seq: row.seq, messageId: row.message_id })),
    );
    return found.sort((a, b) => b.seq - a.seq);
  }

  statedClaims(messageIds: readonly string[]): Map<string, StatedClaims> {
    this.held.claims ??= this.readClaims();
    const out = new Map<string, StatedClaims>();
    for (const id of messageIds) {
      const entry = this.held.claims.get(id);
      if (entry) out.set(id, entry);
    }
    return out;
  }

  /** Claims of the given messages, or of every message when none are given, in key (then value) order. */
  private readClaims(messageIds?: readonly string[]): Map<string, StatedClaims> {
    const claims = new Map<string, { key: string; value: string }[]>();
    const retired = new Map<string, string[]>();
    /** Messages with any claim, in the order first read. */
    const said = new Set<string>();
    const read = (ids?: readonly string[]) => {
      const where = ids ? `WHERE message_id IN (${ids.map(() => "?").join(", ")})` : "";
      const rows = this.sql
        .exec<{ id: string; key: string; value: string }>(
          `SELECT message_id AS id, key, value FROM message_claims ${where} ORDER BY message_id, key`,
          ...(ids ?? []),
        )
        .toArray();
      for (const row of rows) {
        said.add(row.id);
        const list = claims.get(row.id) ?? [];
        list.push(Object.freeze({ key: row.key, value: row.value }));
        claims.set(row.id, list);
      }
      const retiredRows = this.sql
        .exec<{ id: string; value: string }>(
          `SELECT message_id AS id, value FROM message_retired ${where} ORDER BY message_id, key, value`,
          ...(ids ?? []),
        )
        .toArray();
      for (const row of retiredRows) {
        said.add(row.id);
        const list = retired.get(row.id) ?? [];
        list.push(row.value);
        retired.set(row.id, list);
      }
    };
    if (messageIds === undefined) read();
    else {
      const unique = [...new Set(messageIds)];
      for (let i = 0; i < unique.length; i += ID_CHUNK) read(unique.slice(i, i + ID_CHUNK));
    }
    const times = this.timesOf([...said]);
    const out = new Map<string, StatedClaims>();
    for (const id of said) {
      const ts = times.get(id);
      if (ts === undefined) continue;
      const stated = retired.get(id);
      out.set(
        id,
        Object.freeze({
          ts,
          claims: Object.freeze(claims.get(id) ?? []) as StatedClaims["claims"],
          ...(stated ? { retired: Object.freeze(stated) as string[] } : {}),
        }),
      );
    }
    return out;
  }

  activeItems(): StateItem[] {
    return this.sql
      .exec<{ item_json: string }>(
        "SELECT item_json FROM state_items WHERE status != 'superseded' ORDER BY last_seen_at DESC",
      )
      .toArray()
      .map((r) => storedItem(r.item_json));
  }

  /** Items for a compile, newest first, superseded ones included so the trace can account for them. */
  itemRecords(limit = 500): StateItemRecord[] {
    return this.heldItems().newestFirst.slice(0, limit);
  }

  private heldItems(): NonNullable<Held["items"]> {
    if (!this.held.items) {
      const records = this.sql
        .exec<{ item_json: string; line: string; tokens: number }>(
          "SELECT item_json, line, tokens FROM state_items ORDER BY last_seen_at DESC, uid",
        )
        .toArray()
        .map((r) => heldItem(r.item_json, r.line, r.tokens));
      this.held.items = { byUid: new Map(records.map((r) => [r.item.uid, r])), newestFirst: records };
    }
    return this.held.items;
  }

  /** Puts items just written into the held copy, if there is one, keeping it newest first. */
  private holdItems(written: readonly StateItemRecord[]): void {
    const held = this.held.items;
    if (!held || written.length === 0) return;
    // An item written twice in one run is stored as its last write.
    const latest = new Map(written.map((r) => [r.item.uid, r]));
    const newestFirst = held.newestFirst.filter((r) => !latest.has(r.item.uid));
    for (const record of latest.values()) {
      held.byUid.set(record.item.uid, record);
      let low = 0;
      let high = newestFirst.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (newerFirst(newestFirst[mid] as StateItemRecord, record) < 0) low = mid + 1;
        else high = mid;
      }
      newestFirst.splice(low, 0, record);
    }
    held.newestFirst = newestFirst;
  }

  allItems(): StateItem[] {
    return this.sql
      .exec<{ item_json: string }>("SELECT item_json FROM state_items ORDER BY last_seen_at DESC, uid")
      .toArray()
      .map((r) => storedItem(r.item_json));
  }

  item(uid: string): StateItem | undefined {
    const row = this.sql
      .exec<{ item_json: string }>("SELECT item_json FROM state_items WHERE uid = ?", uid)
      .toArray()[0];
    return row ? storedItem(row.item_json) : undefined;
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
      const json = JSON.stringify(item);
      const tokens = countTokens(line);
      if (this.writeItem(item, json, line, tokens, "keep")) this.holdItems([heldItem(json, line, tokens)]);
    }
  }

  /**
   * Persists one run: items, message claims, log entry, watermark (as a position and an arrival number)
   * and open scope. Call inside the
   * transaction that also stores the run's message scopes (Transcript.rescope).
   */
  commitRun(
    items: StateItemRecord[],
    result: ExtractResult,
    through: WatermarkPosition,
    throughSeq: number,
    openScope: CarriedScope | null,
    slotAliases: Record<string, string>,
    messageClaims: MessageClaim[],
    retiredValues: RetiredValue[] = [],
    mentions: { recorded: RecordedMentions; throughSeq?: number } = { recorded: NO_MENTIONS },
  ): void {
    this.recordMentions(mentions.recorded, mentions.throughSeq);
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
    const written: StateItemRecord[] = [];
    for (const { item, line, tokens } of items) {
      const json = JSON.stringify(item);
      written.push(heldItem(json, line, tokens));
      this.writeItem(item, json, line, tokens, "replace");
    }
    this.sql.exec(
      "INSERT INTO extraction_runs (id, finished_at, result_json) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
      result.id,
      new Date().toISOString(),
      JSON.stringify(result),
    );
    this.meta.set("extracted_through", through);
    this.meta.set("extracted_seq", throughSeq);
    this.meta.set("open_scope", openScope);
    this.meta.set("slot_aliases", slotAliases);
    // Last, after every statement of the run: the held copies follow what was just written.
    this.holdItems(written);
    const claimed = [...messageClaims.map((c) => c.message_id), ...retiredValues.map((r) => r.id)];
    if (this.held.claims && claimed.length > 0) {
      const fresh = this.readClaims(claimed);
      for (const id of new Set(claimed)) {
        const entry = fresh.get(id);
        if (entry) this.held.claims.set(id, entry);
        else this.held.claims.delete(id);
      }
    }
  }

  /**
   * The arrival number through which every message's mentions were read (src/entities/message-mentions.ts):
   * 0 for a thread whose messages were extracted before mentions were read, or whose reading failed.
   */
  mentionedSeq(): number {
    return this.meta.get<number>("mentioned_seq") ?? 0;
  }

  /**
   * Stores what reading messages' mentions found: the names by which they referred to entities, and the
   * weak names that referred to nothing (replacing those the messages had), then moves the mention
   * watermark to `throughSeq` when given. Returns how many references were new. Call in a transaction.
   */
  recordMentions(recorded: RecordedMentions, throughSeq?: number): number {
    let added = 0;
    for (const n of recorded.names) {
      added += this.sql.exec(
        "INSERT INTO message_names (name, seq, message_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        n.name,
        n.seq,
        n.messageId,
      ).rowsWritten;
    }
    const replaced = new Set<string>();
    for (let i = 0; i < recorded.read.length; i += ID_CHUNK) {
      const chunk = recorded.read.slice(i, i + ID_CHUNK);
      const marks = chunk.map(() => "?").join(", ");
      for (const row of this.sql.exec<{ name: string }>(
        `SELECT DISTINCT name FROM weak_mentions WHERE message_id IN (${marks})`,
        ...chunk,
      ))
        replaced.add(row.name);
      this.sql.exec(`DELETE FROM weak_mentions WHERE message_id IN (${marks})`, ...chunk);
    }
    for (const n of recorded.unresolved) {
      this.sql.exec(
        "INSERT INTO weak_mentions (name, seq, message_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        n.name,
        n.seq,
        n.messageId,
      );
      this.sql.exec("INSERT INTO weak_names (name) VALUES (?) ON CONFLICT DO NOTHING", n.name);
    }
    // A name the messages read no longer use, and no other message does, is unbound nowhere any more.
    for (const name of replaced) this.dropUnusedWeakName(name);
    if (throughSeq !== undefined) this.meta.set("mentioned_seq", throughSeq);
    return added;
  }

  /**
   * Weak names after `after` in name order, `limit` at most, with the holders last seen (null: never
   * checked) and how far their messages were read again (null: not begun).
   */
  weakNames(after: string, limit: number): WeakName[] {
    return this.sql
      .exec<{ name: string; holders: string | null; read_through: number | null }>(
        "SELECT name, holders, read_through FROM weak_names WHERE name > ? ORDER BY name LIMIT ?",
        after,
        limit,
      )
      .toArray()
      .map((row) => ({ name: row.name, holders: row.holders, readThrough: row.read_through }));
  }

  /** Where the backfill's check of weak names resumes: after this name ("" from the first). */
  weakNamesChecked(): string {
    return this.meta.get<string>("weak_names_checked") ?? "";
  }

  setWeakNamesChecked(after: string): void {
    this.meta.set("weak_names_checked", after);
  }

  /** Reads every message's mentions again, from the first: the mention watermark and name check restart. */
  restartMentions(): void {
    this.meta.set("mentioned_seq", 0);
    this.meta.set("weak_names_checked", "");
    this.sql.exec("UPDATE weak_names SET read_through = NULL");
  }

  /** How many weak names still refer to nothing. */
  weakNameCount(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM weak_names").one().n;
  }

  /** The messages (arrival number and id) that used a weak name after arrival number `after`, oldest first. */
  weakMentionsOf(name: string, after: number, limit: number): { seq: number; messageId: string }[] {
    return this.sql
      .exec<{ seq: number; message_id: string }>(
        "SELECT seq, message_id FROM weak_mentions WHERE name = ? AND seq > ? ORDER BY seq LIMIT ?",
        name,
        after,
        limit,
      )
      .toArray()
      .map((row) => ({ seq: row.seq, messageId: row.message_id }));
  }

  /** A weak name's messages were read again through arrival number `seq`, not all of them yet. */
  weakNameReadThrough(name: string, seq: number): void {
    this.sql.exec("UPDATE weak_names SET read_through = ? WHERE name = ?", seq, name);
  }

  /**
   * Records the holders a weak name was checked against, every message of it read since they changed;
   * a name no message uses any more (each now refers to an entity by it) is dropped.
   */
  checkedWeakName(name: string, holders: string): void {
    if (!this.dropUnusedWeakName(name))
      this.sql.exec("UPDATE weak_names SET holders = ?, read_through = NULL WHERE name = ?", holders, name);
  }

  /** Drops a weak name no message uses any more; true when it was dropped. */
  private dropUnusedWeakName(name: string): boolean {
    if (this.sql.exec("SELECT 1 FROM weak_mentions WHERE name = ? LIMIT 1", name).toArray().length)
      return false;
    this.sql.exec("DELETE FROM weak_names WHERE name = ?", name);
    return true;
  }

  /**
   * Stores one item: "keep" leaves an item already stored under its uid as it is, "replace" overwrites
   * it. True when a row was written.
   */
  private writeItem(
    item: StateItem,
    json: string,
    line: string,
    tokens: number,
    existing: "keep" | "replace",
  ) {
    const conflict =
      existing === "keep"
        ? "DO NOTHING"
        : `DO UPDATE SET type_tag = excluded.type_tag, status = excluded.status,
           last_seen_at = excluded.last_seen_at, item_json = excluded.item_json, line = excluded.line,
           tokens = excluded.tokens`;
    return (
      this.sql.exec(
        `INSERT INTO state_items (uid, type_tag, status, last_seen_at, item_json, line, tokens) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (uid) ${conflict}`,
        item.uid,
        item.type_tag,
        item.status,
        item.last_seen_at,
        json,
        line,
        tokens,
      ).rowsWritten > 0
    );
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

/** A state item as read back from its stored JSON, frozen with everything in it. */
function heldItem(json: string, line: string, tokens: number): StateItemRecord {
  return Object.freeze({ item: deepFreeze(storedItem(json)), line, tokens });
}

/** The order of `ORDER BY last_seen_at DESC, uid`. */
function newerFirst(a: StateItemRecord, b: StateItemRecord): number {
  return compareBinary(b.item.last_seen_at, a.item.last_seen_at) || compareBinary(a.item.uid, b.item.uid);
}

/** A stored item as read back: its refs cut as extraction now cuts them (src/items/item-refs.ts). */
function storedItem(json: string): StateItem {
  return withBoundedRefs(JSON.parse(json) as StateItem);
}
