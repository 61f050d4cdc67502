import type { FactVersion } from "../domain/fact-version";

/**
 * Decides, without I/O, what a batch of fact writes does to the facts already stored: which versions
 * close, which new versions link to them, and which writes are kept only as disputed. Writes apply in
 * the order given, so a chain written in one call resolves link by link.
 */
export type FactOutcome = "created" | "superseded_previous" | "disputed" | "duplicate";

export interface PlannedOutcome {
  id: string;
  key: string;
  outcome: FactOutcome;
  supersedes: string | null;
  reason: string | null;
}

export interface Closure {
  id: string;
  supersededBy: string;
  txEnd: string;
}

export interface FactPlan {
  inserts: FactVersion[];
  closures: Closure[];
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

function isCurrent(row: FactVersion): boolean {
  return row.txEnd === null && row.isValid && row.contradictionStatus !== "disputed";
}

export function planFactWrites(existing: FactVersion[], incoming: FactVersion[], now: string): FactPlan {
  const byId = new Map(existing.map((row) => [row.id, { ...row }]));
  const plan: FactPlan = {
    inserts: [],
    closures: [],
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
    for (const row of byId.values()) {
      if (row.key !== key || !isCurrent(row)) continue;
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
    } else {
      target = currentByKey(fact.key, fact, true);
    }
    if (target && (!isCurrent(target) || !mayDisplace(fact, target))) target = undefined;

    let outcome: FactOutcome = "created";
    if (target && fact.authorityRank < target.authorityRank) {
      fact.contradictionStatus = "disputed";
      fact.statusReason = `authority '${fact.sourceAuthority ?? "unknown"}' (rank ${fact.authorityRank}) cannot supersede ${target.id} from '${target.sourceAuthority ?? "unknown"}' (rank ${target.authorityRank})`;
      // Filed under the contested lineage, so the fact's history shows the dispute.
      fact.lineageId = target.lineageId;
      outcome = "disputed";
    } else if (target) {
      target.isValid = false;
      target.supersededBy = fact.id;
      target.txEnd = now;
      fact.supersedes = target.id;
      fact.lineageId = target.lineageId;
      // A correction to shared knowledge stays shared, or everyone else would lose the fact.
      if (target.userId === null) fact.userId = null;
      plan.closures.push({ id: target.id, supersededBy: fact.id, txEnd: now });
      plan.invalidated.push({ id: target.id, key: target.key });
      outcome = "superseded_previous";
    }

    const dependsOn = (JSON.parse(fact.dependsOnJson) as string[]).map((ref) => {
      const byRef = byId.get(ref);
      return byRef ? byRef.id : (currentByKey(ref, fact, false)?.id ?? ref);
    });
    fact.dependsOnJson = JSON.stringify(dependsOn);
    if (dependsOn.length) plan.dependencies.set(fact.id, dependsOn);

    byId.set(fact.id, fact);
    plan.inserts.push(fact);
    plan.outcomes.push({
      id: fact.id,
      key: fact.key,
      outcome,
      supersedes: fact.supersedes,
      reason: fact.statusReason,
    });
  }
  return plan;
}
