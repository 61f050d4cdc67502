import type { FactEventInput } from "../../api/schemas";
import type { LayerEntry } from "../../compiler/types";
import { readMarkers } from "../../facts/markers";
import { renderFactLine, valueText } from "../../facts/prepare-fact";
import { toInstant } from "../../facts/time";
import { compareBinary } from "../binary-collation";
import type { SqlHost } from "../host";

export type LayerName = "working" | "environment";

/**
 * Replaced versions of a layer a compile is handed at most, the newest kept: with every current entry,
 * they are the layer's candidates. An agent that writes its working state every turn leaves thousands,
 * and each was compiled and listed in every trace (6,000 versions: 16–26 ms a compile after a write, a
 * 500 KB trace each compile, past D1's 2 MB row at some 25,000; bounded, 6–8 ms and 52 KB). An older
 * replaced value is then no longer recognised as replaced when a message restates it: the trace
 * reports how many were left out.
 * The same bound as the project's fact history (FACT_CANDIDATE_LIMITS.history).
 */
export const LAYER_HISTORY = 500;

/** What a compile reads of a layer: its current entries and newest replaced versions, in stored order. */
export interface CompiledLayer {
  entries: readonly LayerEntry[];
  /** Replaced versions among `entries`, and those past LAYER_HISTORY, not handed over. */
  replaced: number;
  leftOut: number;
}

export const LAYER_SCHEMA = [
  // Working-set and environment entries, every version kept: the current one per key has no
  // replaced_by, and older values stay so the compiler can recognise them restated in messages.
  `CREATE TABLE IF NOT EXISTS layer_versions (
     layer TEXT NOT NULL, id TEXT NOT NULL, key TEXT NOT NULL, value_json TEXT NOT NULL, content TEXT NOT NULL,
     tokens INTEGER NOT NULL, ts TEXT NOT NULL, expires_at TEXT, scope TEXT NOT NULL, scope_id TEXT,
     classification TEXT NOT NULL, allow_roles_json TEXT NOT NULL, deny_roles_json TEXT NOT NULL,
     replaced_by TEXT, PRIMARY KEY (layer, id))`,
  `CREATE INDEX IF NOT EXISTS layer_versions_current ON layer_versions (layer, key, replaced_by)`,
  // Layer writes seen, by event id, so a redelivered write is a duplicate (kind is `fact:<layer>`).
  `CREATE TABLE IF NOT EXISTS event_ledger (id TEXT PRIMARY KEY, kind TEXT NOT NULL, received_at TEXT NOT NULL)`,
];

export type LayerWrite = FactEventInput & { id: string; ts: string; layer: LayerName };

/**
 * A layer write with everything computed that can fail (rendering, counting), before any storage write:
 * the stored version's columns, less what the write itself or the store decides.
 */
export type PreparedLayerWrite = Omit<LayerEntry, "id" | "key" | "ts" | "replacedBy"> & { write: LayerWrite };

/** Renders and counts a layer write: pure, so a batch is prepared whole before anything is stored. */
export function prepareLayerWrite(f: LayerWrite, countTokens: (text: string) => number): PreparedLayerWrite {
  const markers = readMarkers(valueText(f.value));
  const content = renderFactLine(f.key, f.value, f.is_constraint ?? false, f.constraint_type ?? null);
  return {
    write: f,
    valueJson: JSON.stringify(f.value),
    content,
    tokens: countTokens(content),
    expiresAt: f.valid_until ? toInstant(f.valid_until) : null,
    scope: f.scope ?? markers.scope ?? (f.layer === "working" ? "session" : "global"),
    scopeId: f.scope_id ?? markers.scopeLabel ?? null,
    classification: f.classification ?? markers.classification ?? "public",
    allowRolesJson: JSON.stringify(f.allow_roles ?? markers.allowRoles ?? []),
    denyRolesJson: JSON.stringify(f.deny_roles ?? []),
  };
}

/** One stored layer write: the version it added, and the one it replaced (null for a late arrival). */
export interface LayerChange {
  layer: LayerName;
  entry: LayerEntry;
  replaces: string | null;
}

/**
 * The thread's working-set and environment layers (table `layer_versions`). Entries are upserted by key
 * and every version is kept. Each layer's versions are held decoded between compiles: this store is the
 * only writer of its tables, and the transaction that writes hands its changes to `appended`, which
 * applies them to the held copy. Re-reading every version after each write cost a compile after a write
 * 39 ms at 6,000 versions (an agent that writes its working state every turn).
 */
export class LayerStore {
  private readonly held = new Map<
    LayerName,
    { versions: readonly LayerEntry[]; current: readonly LayerEntry[]; compiled?: CompiledLayer }
  >();
  private readonly sql: SqlStorage;

  constructor(host: SqlHost) {
    this.sql = host.sql;
    for (const statement of LAYER_SCHEMA) this.sql.exec(statement);
  }

  /**
   * Records a layer write unless its event id was seen before: the change it made, or "duplicate" for a
   * redelivery. Call inside the ingest transaction, and hand its changes to `appended` last in it.
   */
  append(prepared: PreparedLayerWrite, receivedAt: string): LayerChange | "duplicate" {
    const { write } = prepared;
    const inserted = this.sql.exec(
      "INSERT INTO event_ledger (id, kind, received_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
      write.id,
      `fact:${write.layer}`,
      receivedAt,
    );
    if (inserted.rowsWritten === 0) return "duplicate";
    return this.upsert(prepared);
  }

  /**
   * Call last in the transaction that made these changes (in the order made), so a held copy never
   * holds what a rolled-back transaction did not write: each layer's copy then stands as the versions
   * read again would be, the new ones in their place and the ones they replaced marked so.
   */
  appended(changes: readonly LayerChange[]): void {
    for (const layer of new Set(changes.map((c) => c.layer))) {
      const held = this.held.get(layer);
      if (!held) continue;
      const versions = [...held.versions];
      const at = new Map(versions.map((v, i) => [v.id, i]));
      let known = true;
      for (const { entry, replaces } of changes.filter((c) => c.layer === layer)) {
        const i = replaces === null ? undefined : at.get(replaces);
        // A replaced version the copy lacks: the copy is not what storage holds, so it is read again.
        if (replaces !== null && i === undefined) known = false;
        if (i !== undefined)
          versions[i] = Object.freeze({ ...(versions[i] as LayerEntry), replacedBy: entry.id });
        // After every version that sorts with it or before it: the read breaks ties by insertion.
        let place = versions.length;
        while (place > 0 && byStoredOrder(versions[place - 1] as LayerEntry, entry) > 0) place--;
        versions.splice(place, 0, entry);
        if (place < versions.length - 1)
          for (let k = place; k < versions.length; k++) at.set((versions[k] as LayerEntry).id, k);
        else at.set(entry.id, place);
      }
      if (!known) {
        this.held.delete(layer);
        continue;
      }
      this.held.set(layer, {
        versions: Object.freeze(versions),
        current: versions.filter((v) => v.replacedBy === null),
      });
    }
  }

  /**
   * Values a later write replaced, and initial environment values (from the thread's record) that an
   * environment entry overrides: what extraction must not file as current again.
   */
  replacedValues(initialEnvironment: Record<string, unknown>): string[] {
    const versions = [...this.entries("working", true), ...this.entries("environment", true)];
    const replaced = versions
      .filter((v) => v.replacedBy !== null)
      .map((v) => valueText(JSON.parse(v.valueJson)));
    const overridden = this.entries("environment")
      .map((e) => initialEnvironment[e.key])
      .filter((value) => value !== undefined && value !== null)
      .map((value) => valueText(value));
    return [...replaced, ...overridden];
  }

  /**
   * A layer as a compile reads it: every current entry and the newest LAYER_HISTORY replaced versions,
   * in stored order; the same array every compile until the layer is written.
   */
  forCompile(layer: LayerName): CompiledLayer {
    const held = this.heldOf(layer);
    held.compiled ??= boundedHistory(held.versions);
    return held.compiled;
  }

  /** Entries of a layer: current ones only, or every version. */
  entries(layer: LayerName, withHistory = false): readonly LayerEntry[] {
    const held = this.heldOf(layer);
    return withHistory ? held.versions : held.current;
  }

  /** The layer's held copy, read when there is none. */
  private heldOf(layer: LayerName) {
    let held = this.held.get(layer);
    if (!held) {
      const versions = this.read(layer);
      // The current entries keep the versions' order: (ts, key) is unique among them, one per key.
      held = { versions, current: versions.filter((v) => v.replacedBy === null) };
      this.held.set(layer, held);
    }
    return held;
  }

  /** Upserts by key; an older write never replaces a newer one. */
  private upsert(prepared: PreparedLayerWrite): LayerChange {
    const f = prepared.write;
    const layer = f.layer;
    const current = this.sql
      .exec<{ id: string; ts: string }>(
        "SELECT id, ts FROM layer_versions WHERE layer = ? AND key = ? AND replaced_by IS NULL",
        layer,
        f.key,
      )
      .toArray()[0];
    // A late-arriving older write is kept as history; it never displaces a newer value.
    const arrivesLate = current !== undefined && f.ts < current.ts;
    if (current && !arrivesLate) {
      this.sql.exec(
        "UPDATE layer_versions SET replaced_by = ? WHERE layer = ? AND id = ?",
        f.id,
        layer,
        current.id,
      );
    }
    this.sql.exec(
      `INSERT INTO layer_versions (layer, id, key, value_json, content, tokens, ts, expires_at, scope, scope_id,
         classification, allow_roles_json, deny_roles_json, replaced_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      layer,
      f.id,
      f.key,
      prepared.valueJson,
      prepared.content,
      prepared.tokens,
      f.ts,
      prepared.expiresAt,
      prepared.scope,
      prepared.scopeId,
      prepared.classification,
      prepared.allowRolesJson,
      prepared.denyRolesJson,
      arrivesLate ? current.id : null,
    );
    const entry: LayerEntry = Object.freeze({
      id: f.id,
      key: f.key,
      valueJson: prepared.valueJson,
      content: prepared.content,
      tokens: prepared.tokens,
      ts: f.ts,
      expiresAt: prepared.expiresAt,
      scope: prepared.scope,
      scopeId: prepared.scopeId,
      classification: prepared.classification,
      allowRolesJson: prepared.allowRolesJson,
      denyRolesJson: prepared.denyRolesJson,
      replacedBy: arrivesLate ? current.id : null,
    });
    return { layer, entry, replaces: current && !arrivesLate ? current.id : null };
  }

  private read(layer: LayerName): readonly LayerEntry[] {
    return Object.freeze(
      this.sql
        .exec<Record<string, string | number | null>>(
          "SELECT * FROM layer_versions WHERE layer = ? ORDER BY ts, key, rowid",
          layer,
        )
        .toArray()
        .map((r) =>
          // Frozen: the same entries are handed to every compile until the layer is written.
          Object.freeze({
            id: String(r.id),
            key: String(r.key),
            valueJson: String(r.value_json),
            content: String(r.content),
            tokens: Number(r.tokens),
            ts: String(r.ts),
            expiresAt: r.expires_at === null ? null : String(r.expires_at),
            scope: String(r.scope),
            scopeId: r.scope_id === null ? null : String(r.scope_id),
            classification: String(r.classification),
            allowRolesJson: String(r.allow_roles_json),
            denyRolesJson: String(r.deny_roles_json),
            replacedBy: r.replaced_by === null ? null : String(r.replaced_by),
          }),
        ),
    );
  }
}

/** The order `read` gives: by time, then key (SQLite's BINARY collation); ties by insertion. */
function byStoredOrder(a: LayerEntry, b: LayerEntry): number {
  return compareBinary(a.ts, b.ts) || compareBinary(a.key, b.key);
}

/** The versions but for replaced ones older than the newest LAYER_HISTORY (the same array when none is). */
function boundedHistory(versions: readonly LayerEntry[]): CompiledLayer {
  let replaced = 0;
  for (const v of versions) if (v.replacedBy !== null) replaced++;
  const leftOut = Math.max(0, replaced - LAYER_HISTORY);
  if (leftOut === 0) return { entries: versions, replaced, leftOut };
  let skip = leftOut;
  const entries = versions.filter((v) => v.replacedBy === null || skip-- <= 0);
  return { entries: Object.freeze(entries), replaced: LAYER_HISTORY, leftOut };
}
