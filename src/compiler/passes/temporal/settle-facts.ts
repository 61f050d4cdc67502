import { type AuthorityTier, DEFAULT_AUTHORITY_LADDER } from "../../../facts/authority";
import { perList } from "../../cache/memo-tables";
import type { ContextObject, Omission } from "../../context-object";
import { deadBasis, deadClaimsWith } from "../../hygiene/dead-basis";
import type { DeadClaim, ValidFrom } from "../../hygiene/dead-claim";
import { speaksFromDeadState } from "../../hygiene/restatement";
import { FactsMemo } from "./facts-memo";
import { instructionOverrides, type NamedThings } from "./instruction-authority";
import type { TemporalMemos } from "./memos";
import type { Admitted, FactSettlement } from "./settlement";
import { reconcile, validTime } from "./slot-reconciliation";
import { staleSignals } from "./stale-signals";

export function settleFacts(
  admitted: Omit<Admitted, "messages" | "episodes" | "items">,
  earlier: Omission[],
  memos: TemporalMemos,
  memo = new FactsMemo(),
  ladder: AuthorityTier[] = DEFAULT_AUTHORITY_LADDER,
  things?: NamedThings,
): FactSettlement {
  const omitted: Omission[] = [];
  const removed = new Set<string>();
  // With nothing removed, as in most compiles, a list is kept as it is rather than copied object by
  // object (lists are never changed once made).
  const keep = (list: ContextObject[]) =>
    removed.size ? list.filter((o) => !removed.has(o.objectId)) : list;

  const stale = staleSignals(admitted.environment, memo);
  const staleIds = new Set(stale.map((s) => s.object.objectId));
  const keyed = [...admitted.facts, ...admitted.working, ...admitted.environment];
  const settled = reconcile(staleIds.size ? keyed.filter((o) => !staleIds.has(o.objectId)) : keyed, memo);
  for (const o of [...stale, ...settled.displaced]) {
    omitted.push(o);
    removed.add(o.object.objectId);
  }
  for (const q of settled.quarantined) removed.add(q.object.objectId);
  // Attributed instructions filed under keys that say nothing of what they are about (issue 17).
  for (const o of instructionOverrides(keep(admitted.facts), ladder, things, memos)) {
    omitted.push(o);
    removed.add(o.object.objectId);
  }
  const facts = keep(admitted.facts);
  const working = keep(admitted.working);

  // Gated objects count too: a claim died when its successor became valid, even if that successor has
  // itself been replaced since.
  // List by list, in this order (a later id overrides), without joining them into one array first; the
  // run of held facts the facts begin with is noted once (memo.validRuns), and what follows overrides it.
  const run = memo.validRuns.of(admitted.facts, (objects) => objectsById([objects], 0));
  const own = objectsById(
    [admitted.facts, admitted.working, admitted.environment, earlier.map((e) => e.object)],
    run?.length ?? 0,
  );
  const validFrom: ValidFrom = new StateObjects(own, run?.value);
  const quarantinedAsOmitted: Omission[] = settled.quarantined.map((q) => ({
    object: q.object,
    reason: "quarantined",
    detail: q.detail,
  }));
  const liveSignals = keep(admitted.environment);
  // An item extracted from what was said while a claim was still believed dies with that claim:
  // deadClaims([...earlier, ...omitted, ...quarantinedAsOmitted], [...facts, ...working, ...liveSignals]),
  // in the parts the items' dead claims are later weighed with (settleItems), so both share the work.
  const basis = deadBasis(
    [...earlier, ...omitted],
    quarantinedAsOmitted,
    [...facts, ...working, ...liveSignals],
    validFrom,
    memos,
  );
  const deadBeforeItems = memo.sameDead(deadClaimsWith(basis, [], [], memos), memos);
  // So does an environment signal: under whatever key it was filed, a signal that states a value the
  // conversation has since replaced ("window is 2 AM - 4 AM" once the window moved) is no longer the
  // latest word on what it names.
  const environment = liveSignals.filter((signal) => {
    const restated = restatedBefore(signal, deadBeforeItems, memos);
    if (restated) {
      omitted.push({
        object: { ...signal, contradiction: "overridden" },
        reason: "superseded",
        detail: `restates ${restated.objectId}, since replaced`,
      });
    }
    return !restated;
  });
  const result: FactSettlement = {
    facts,
    working,
    environment,
    omitted,
    quarantined: settled.quarantined,
    quarantinedAsOmitted,
    validFrom,
    deadBeforeItems,
    live: [...facts, ...working, ...environment],
  };
  // With every signal standing, the items are weighed against the very same omissions and live claims.
  if (environment.length === liveSignals.length)
    memos.deadBases.set(result, { earlier: [...earlier], basis });
  return result;
}

/** Versions followed down a chain at most, so a cycle in stored data ends. */
const MAX_CHAIN = 64;

/**
 * The state objects of a settlement by id, `own` over `run` (the held run's), as dead claims read them:
 * when each became valid, and where its chain leads. Plain data, so two settlements compare by content.
 */
class StateObjects implements ValidFrom {
  constructor(
    private readonly own: ReadonlyMap<string, ContextObject>,
    private readonly run?: ReadonlyMap<string, ContextObject>,
  ) {}

  private objectOf(id: string): ContextObject | undefined {
    return this.own.get(id) ?? this.run?.get(id);
  }

  get(id: string): string | undefined {
    const o = this.objectOf(id);
    return o && validTime(o);
  }

  /**
   * The newest version down the chain from `id`: a value later replaced by something else is dead,
   * however its first successor read. Unknown when a step is not among the candidates.
   */
  currentClaimOf(id: string): string | undefined {
    let o = this.objectOf(id);
    for (let step = 0; o?.supersededBy && step < MAX_CHAIN; step++) o = this.objectOf(o.supersededBy);
    return o && !o.supersededBy ? o.claim?.toLowerCase() : undefined;
  }
}

/** The state objects of the lists by id (a later id overrides); the first list from `from` on. */
function objectsById(lists: readonly (readonly ContextObject[])[], from: number): Map<string, ContextObject> {
  const objects = new Map<string, ContextObject>();
  for (const [i, list] of lists.entries()) {
    for (let j = i === 0 ? from : 0; j < list.length; j++) {
      const o = list[j] as ContextObject;
      if (o.kind !== "message" && o.kind !== "state_item") objects.set(o.objectId, o);
    }
  }
  return objects;
}

/** Whether an object (an item, an environment signal) speaks from a state dead before items were weighed. */
export function restatedBefore(
  item: ContextObject,
  dead: DeadClaim[],
  memos: TemporalMemos,
): DeadClaim | undefined {
  const verdicts = perList(memos.itemVerdicts, dead, () => new WeakMap());
  let verdict = verdicts.get(item);
  if (verdict === undefined) {
    verdict = speaksFromDeadState(item, dead, memos) ?? null;
    verdicts.set(item, verdict);
  }
  return verdict ?? undefined;
}
