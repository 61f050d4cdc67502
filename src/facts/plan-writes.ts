import type { FactVersion } from "../domain/fact-version";

/**
 * Decides, without I/O, what a batch of fact writes does to the facts already stored: which versions
 * close, which new versions link to them, and which writes are kept only as disputed or as history.
 *
 * Valid time decides, not arrival: the versions of a slot form one chain ordered by (valid_from, id),
 * and only its newest is current. A write older than the slot's current version is spliced into the
 * chain where its valid time puts it, closed by the version after it, so the same set of writes
 * delivered in any order and in any batching leaves the same current version and the same chain.
 */
export type FactOutcome = "created" | "superseded_previous" | "disputed" | "duplicate" | "history";

export interface PlannedOutcome {
  id: string;
  key: string;
  outcome: FactOutcome;
  supersedes: string | null;
  reason: string | null;
}

/** Closes a stored current version. Applied only while it is still current, else the plan is stale. */
export interface Closure {
  id: string;
  supersededBy: string;
  txEnd: string;
}

/**
 * Re-points one link of a stored version when a late, older write is spliced into its chain. Applied
 * only while the link still reads `from`, else the plan is stale (another writer spliced first).
 */
export interface Relink {
  id: string;
  field: "supersedes" | "supersededBy";
  from: string | null;
  to: string;
}

export interface FactPlan {
  inserts: FactVersion[];
  closures: Closure[];
  relinks: Relink[];
  /** Superseded facts whose dependants (by id or by key) must be flagged needs_review. */
  invalidated: { id: string; key: string }[];
  /** New fact id → resolved ids it depends on. */
  dependencies: Map<string, string[]>;
  outcomes: PlannedOutcome[];
}

const PRIVATE_SCOPES = new Set(["hypothetical", "draft", "task", "session"]);

/** Same slot: the same key in the same scope (whose memory it is, is checked by the caller). */
function sameSlot(a: FactVersion, b: FactVersion): boolean {
  return a.key === b.key && a.scope === b.scope && (a.scopeId ?? "") === (b.scopeId ?? "");
}

/** A hypothetical, draft, task or session fact never displaces a fact outside its own scope. */
function mayDisplace(writer: FactVersion, target: FactVersion): boolean {
  if (!PRIVATE_SCOPES.has(writer.scope)) return true;
  return writer.scope === target.scope && (writer.scopeId ?? "") === (target.scopeId ?? "");
}

/** The rule the storage enforces (migration 0005): one such version per slot and user. */
export function isCurrent(row: FactVersion): boolean {
  return row.txEnd === null && row.isValid && row.contradictionStatus !== "disputed";
}

/** Valid-time order; equal times fall back to the id so that every delivery order agrees. */
export function isNewer(a: FactVersion, b: FactVersion): boolean {
  return a.validFrom > b.validFrom || (a.validFrom === b.validFrom && a.id > b.id);
}

/**
 * The slot a version fills beyond its key (entity plus attribute, src/entities/fact-entities.ts
 * keySlot), or null when its key is its only slot.
 */
export type SlotOf = (row: FactVersion) => string | null;

export function planFactWrites(
  existing: FactVersion[],
  incoming: FactVersion[],
  now: string,
  slotOf: SlotOf = () => null,
): FactPlan {
  const byId = new Map(existing.map((row) => [row.id, { ...row }]));
  // The same rows by key, in byId's order (a key never changes while planning): a look-up by key reads
  // its slot's versions, not every row loaded.
  const byKey = new Map<string, FactVersion[]>();
  const keep = (row: FactVersion) => {
    const list = byKey.get(row.key);
    if (list) list.push(row);
    else byKey.set(row.key, [row]);
  };
  for (const row of byId.values()) keep(row);
  /**
   * The current rows by slot (slotOf), in byId's order; made on first use, as most batches never ask.
   * A row never becomes current once planning has closed it, so only new versions join it afterwards.
   */
  let bySlot: Map<string | null, FactVersion[]> | undefined;
  const inserted = new Set<string>();
  const plan: FactPlan = {
    inserts: [],
    closures: [],
    relinks: [],
    invalidated: [],
    dependencies: new Map(),
    outcomes: [],
  };

  const head = (row: FactVersion): FactVersion => {
    let cursor = row;
    const seen = new Set<string>();
    while (cursor.supersededBy && !seen.has(cursor.id)) {
      seen.add(cursor.id);
      const next = byId.get(cursor.supersededBy);
      if (!next) break;
      cursor = next;
    }
    return cursor;
  };
  const currentByKey = (key: string, writer: FactVersion, slotOnly: boolean): FactVersion | undefined => {
    let found: FactVersion | undefined;
    for (const row of byKey.get(key) ?? []) {
      if (!isCurrent(row)) continue;
      // Shared facts (no user) are anyone's slot to contest; another user's private memory never is.
      if (row.userId !== null && row.userId !== writer.userId) continue;
      if (slotOnly && !sameSlot(row, writer)) continue;
      if (
        !found ||
        row.txStart > found.txStart ||
        (row.txStart === found.txStart && row.validFrom > found.validFrom)
      )
        found = row;
    }
    return found;
  };
  /** The current version of exactly this slot and user, the one the storage allows a single one of. */
  const currentOfSlot = (writer: FactVersion, userId: string | null): FactVersion | undefined => {
    for (const row of byKey.get(writer.key) ?? []) {
      if (isCurrent(row) && sameSlot(row, writer) && row.userId === userId) return row;
    }
    return undefined;
  };
  /**
   * The current version of the same entity and attribute filed under another key ("heron_budget" for
   * "project_heron_budget"), in the writer's scope and visible to it. Only one such version counts:
   * two would make a guess, and a wrong guess would replace a value that still holds.
   */
  const currentOfEntitySlot = (writer: FactVersion): FactVersion | undefined => {
    const slot = slotOf(writer);
    if (slot === null) return undefined;
    if (!bySlot) {
      bySlot = new Map();
      for (const row of byId.values()) {
        if (!isCurrent(row)) continue;
        const at = slotOf(row);
        const list = bySlot.get(at);
        if (list) list.push(row);
        else bySlot.set(at, [row]);
      }
    }
    const found = (bySlot.get(slot) ?? []).filter(
      (row) =>
        row.key !== writer.key &&
        isCurrent(row) &&
        (row.userId === null || row.userId === writer.userId) &&
        row.scope === writer.scope &&
        (row.scopeId ?? "") === (writer.scopeId ?? "") &&
        slotOf(row) === slot,
    );
    return found.length === 1 ? found[0] : undefined;
  };
  /** Sets a link of a version: in place when this batch inserts it, by a guarded relink when stored. */
  const link = (row: FactVersion, field: Relink["field"], to: string) => {
    if (!inserted.has(row.id)) plan.relinks.push({ id: row.id, field, from: row[field], to });
    row[field] = to;
  };
  const close = (target: FactVersion, by: FactVersion) => {
    target.isValid = false;
    target.supersededBy = by.id;
    target.txEnd = now;
    if (!inserted.has(target.id)) plan.closures.push({ id: target.id, supersededBy: by.id, txEnd: now });
    plan.invalidated.push({ id: target.id, key: target.key });
  };

  /**
   * Files `fact`, older than the chain's current version `newest`, between the last version older
   * than it and the first newer one. It was never what the system believed current, so its transaction
   * window is empty; its valid time runs until the next version's begins (temporal.ts).
   */
  const fileAsHistory = (fact: FactVersion, newest: FactVersion): FactOutcome => {
    let next = newest;
    const seen = new Set<string>();
    for (;;) {
      seen.add(next.id);
      const before = next.supersedes ? byId.get(next.supersedes) : undefined;
      if (!before || seen.has(before.id) || !isNewer(before, fact)) break;
      next = before;
    }
    const previous = next.supersedes ? byId.get(next.supersedes) : undefined;
    fact.isValid = false;
    fact.txEnd = now;
    fact.supersededBy = next.id;
    fact.supersedes = previous?.id ?? null;
    fact.lineageId = next.lineageId;
    if (next.userId === null) fact.userId = null;
    if (previous) link(previous, "supersededBy", fact.id);
    link(next, "supersedes", fact.id);
    fact.statusReason = `valid from ${fact.validFrom}, before ${next.id} (valid from ${next.validFrom}): recorded as history`;
    return "history";
  };

  for (const original of incoming) {
    if (byId.has(original.id)) {
      plan.outcomes.push({
        id: original.id,
        key: original.key,
        outcome: "duplicate",
        supersedes: null,
        reason: null,
      });
      continue;
    }
    const fact: FactVersion = { ...original, supersedes: null };
    const requested = original.supersedes;
    let target: FactVersion | undefined;
    if (requested) {
      const byIdTarget = byId.get(requested);
      target = byIdTarget ? head(byIdTarget) : currentByKey(requested, fact, false);
      if (target && (!isCurrent(target) || !mayDisplace(fact, target))) target = undefined;
    }
    // Without a live explicit target, the slot's own current version is the one a write replaces.
    const explicit = target !== undefined;
    if (!target) target = currentByKey(fact.key, fact, true);
    // Nothing current under its own key: the same entity and attribute may be filed under another.
    if (!target && !requested) target = currentOfEntitySlot(fact);
    if (target && (!isCurrent(target) || !mayDisplace(fact, target))) target = undefined;

    // An explicit supersession across slots must still leave one current version in the writer's own.
    const ownSlot =
      explicit && target ? currentOfSlot(fact, target.userId === null ? null : fact.userId) : undefined;
    const also = ownSlot && ownSlot.id !== target?.id ? ownSlot : undefined;
    const contested = [target, also].filter((t): t is FactVersion => t !== undefined);
    const newest = contested.find((t) => isNewer(t, fact));
    const outranks = contested.find((t) => fact.authorityRank < t.authorityRank);

    let outcome: FactOutcome = "created";
    if (newest) {
      outcome = fileAsHistory(fact, newest);
    } else if (outranks) {
      fact.contradictionStatus = "disputed";
      fact.statusReason = `authority '${fact.sourceAuthority ?? "unknown"}' (rank ${fact.authorityRank}) cannot supersede ${outranks.id} from '${outranks.sourceAuthority ?? "unknown"}' (rank ${outranks.authorityRank})`;
      // Filed under the contested lineage, so the fact's history shows the dispute.
      fact.lineageId = outranks.lineageId;
      outcome = "disputed";
    } else if (target) {
      close(target, fact);
      if (also) close(also, fact);
      fact.supersedes = target.id;
      fact.lineageId = target.lineageId;
      // A correction to shared knowledge stays shared, or everyone else would lose the fact.
      if (target.userId === null) fact.userId = null;
      outcome = "superseded_previous";
    }

    const dependsOn = (JSON.parse(fact.dependsOnJson) as string[]).map((ref) => {
      const byRef = byId.get(ref);
      return byRef ? byRef.id : (currentByKey(ref, fact, false)?.id ?? ref);
    });
    fact.dependsOnJson = JSON.stringify(dependsOn);
    if (dependsOn.length) plan.dependencies.set(fact.id, dependsOn);

    byId.set(fact.id, fact);
    keep(fact);
    if (bySlot) {
      const at = slotOf(fact);
      const list = bySlot.get(at);
      if (list) list.push(fact);
      else bySlot.set(at, [fact]);
    }
    inserted.add(fact.id);
    plan.inserts.push(fact);
    plan.outcomes.push({
      id: fact.id,
      key: fact.key,
      outcome,
      supersedes: fact.supersedes,
      reason: fact.statusReason,
    });
  }
  // A relink of a version this plan also closes (or relinks twice) keeps only its last value.
  plan.relinks = collapse(plan.relinks);
  return plan;
}

/** One guarded update per stored link: the first expected value, the last target. */
function collapse(relinks: Relink[]): Relink[] {
  const byLink = new Map<string, Relink>();
  for (const r of relinks) {
    const key = `${r.id}\u0000${r.field}`;
    const prior = byLink.get(key);
    byLink.set(key, prior ? { ...prior, to: r.to } : r);
  }
  return [...byLink.values()];
}
