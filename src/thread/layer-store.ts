import type { FactEventInput } from "../api/schemas";
import type { LayerEntry } from "../compiler/types";
import { readMarkers } from "../facts/markers";
import { renderFactLine, valueText } from "../facts/prepare-fact";
import { toInstant } from "../facts/time";
import type { LayerName } from "./thread-schema";

/**
 * The thread's working-set and environment layers (table `layer_versions`). Entries are upserted by key
 * and every version is kept. Each layer's versions are held decoded between compiles: the object is the
 * only writer of its storage and every write goes through `upsert`, which drops that layer's copy.
 */
export class LayerStore {
  private readonly held = new Map<
    LayerName,
    { versions: readonly LayerEntry[]; current: readonly LayerEntry[] }
  >();

  constructor(private readonly sql: SqlStorage) {}

  /** Entries of a layer: current ones only, or every version when the compiler needs the history. */
  entries(layer: LayerName, withHistory = false): readonly LayerEntry[] {
    let held = this.held.get(layer);
    if (!held) {
      const versions = this.read(layer);
      // The current entries keep the versions' order: (ts, key) is unique among them, one per key.
      held = { versions, current: versions.filter((v) => v.replacedBy === null) };
      this.held.set(layer, held);
    }
    return withHistory ? held.versions : held.current;
  }

  /** Upserts by key; an older write never replaces a newer one. */
  upsert(
    layer: LayerName,
    f: FactEventInput & { id: string; ts: string },
    countTokens: (text: string) => number,
  ): void {
    this.held.delete(layer);
    const markers = readMarkers(valueText(f.value));
    const content = renderFactLine(f.key, f.value, f.is_constraint ?? false, f.constraint_type ?? null);
    const scope = f.scope ?? markers.scope ?? (layer === "working" ? "session" : "global");
    const scopeId = f.scope_id ?? markers.scopeLabel ?? null;
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
      JSON.stringify(f.value),
      content,
      countTokens(content),
      f.ts,
      f.valid_until ? toInstant(f.valid_until) : null,
      scope,
      scopeId,
      f.classification ?? markers.classification ?? "public",
      JSON.stringify(f.allow_roles ?? markers.allowRoles ?? []),
      JSON.stringify(f.deny_roles ?? []),
      arrivesLate ? current.id : null,
    );
  }

  private read(layer: LayerName): readonly LayerEntry[] {
    return Object.freeze(
      this.sql
        .exec<Record<string, string | number | null>>(
          "SELECT * FROM layer_versions WHERE layer = ? ORDER BY ts, key",
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
