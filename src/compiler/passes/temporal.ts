import type { ContextObject, Omission, Quarantine } from "../context-object";
import {
  type DeadBasis,
  type DeadClaim,
  DeadListKeeper,
  deadBasis,
  deadClaimsWith,
  maskClaims,
  outdatedMessages,
  perList,
  restatedClaim,
  speaksFromDeadState,
  withRetired,
  worthKeeping,
} from "../hygiene";
import type { StatedClaims } from "../types";

/**
 * Pass 4: temporal validity and conflicts. Gates have removed what is expired, out of scope or not
 * permitted; this pass settles what is left before any prompt is assembled (seed 001):
 *  - reconciliation of live objects that fill the same slot with different claims:
 *    authority → valid time → source trust → quarantine;
 *  - freshness of environment signals about the same identified entity: the newer signal stands;
 *  - hygiene: items and messages that speak from a dead state leave with it.
 */

export interface Admitted {
  facts: ContextObject[];
  working: ContextObject[];
  environment: ContextObject[];
  items: ContextObject[];
  messages: ContextObject[];
  /** Earlier messages retrieved for the query: transcript like the tail, under the same hygiene. */
  episodes: ContextObject[];
}

export interface TemporalResult extends Admitted {
  omitted: Omission[];
  quarantined: Quarantine[];
  dead: DeadClaim[];
}

const normalizeClaim = (claim: string | null) => (claim ?? "").toLowerCase().replace(/\s+/g, " ").trim();
const trust = (o: ContextObject) => o.sourceAuthority * o.confidence;
const validTime = (o: ContextObject) => o.validFrom ?? o.ts;

export interface Settlement {
  displaced: Omission[];
  quarantined: Quarantine[];
}

/** Seed 001's reconciliation protocol over the live claims for one slot. */
export function reconcileSlot(slot: string, claims: ContextObject[]): Settlement {
  if (claims.length < 2) return { displaced: [], quarantined: [] };
  const distinct = new Set(claims.map((c) => normalizeClaim(c.claim)));
  if (distinct.size < 2) return { displaced: [], quarantined: [] };
  const ordered = [...claims].sort(
    (a, b) =>
      a.authorityLevel - b.authorityLevel || validTime(b).localeCompare(validTime(a)) || trust(b) - trust(a),
  );
  const winner = ordered[0] as ContextObject;
  const displaced: Omission[] = [];
  const tied: ContextObject[] = [];
  for (const loser of ordered.slice(1)) {
    if (normalizeClaim(loser.claim) === normalizeClaim(winner.claim)) continue;
    if (loser.authorityLevel !== winner.authorityLevel) {
      displaced.push({
        object: { ...loser, contradiction: "overridden", supersededBy: winner.objectId },
        reason: "overridden",
        detail: `authority level ${winner.authorityLevel} (${winner.objectId}) outranks level ${loser.authorityLevel}`,
      });
    } else if (validTime(loser) !== validTime(winner)) {
      displaced.push({
        object: { ...loser, contradiction: "overridden", supersededBy: winner.objectId },
        reason: "superseded",
        detail: `${winner.objectId} holds ${slot} from a later valid time`,
      });
    } else if (trust(loser) !== trust(winner)) {
      displaced.push({
        object: { ...loser, contradiction: "disputed" },
        reason: "disputed",
        detail: `${winner.objectId} comes from a more trusted source`,
      });
    } else {
      tied.push(loser);
    }
  }
  if (tied.length === 0) return { displaced, quarantined: [] };
  const all = [winner, ...tied];
  const quarantined = all.map((object) => ({
    object: { ...object, contradiction: "quarantined" as const },
    slot,
    conflictsWith: all.filter((o) => o !== object).map((o) => o.objectId),
    detail: `conflicting claims about ${slot} with equal authority, valid time and source trust`,
  }));
  return { displaced, quarantined };
}

/**
 * What settleFacts worked out for one thread last time, so that the next settlement redoes only what
 * changed: a written fact touches one or two slots and leaves the environment as it was. Every entry is
 * reused only for exactly the input it was made from (objects compared by identity: they are never
 * changed once made), so a settlement with a memo is the settlement without one. CompileCache holds one
 * per thread; without it, each settlement starts from an empty memo.
 */
export class FactsMemo {
  /** The stale signals of an environment list. */
  stale?: { environment: ContextObject[]; stale: Omission[] };
  /** Per slot, the open claims reconciled last time (two at least) and their settlement. */
  slots = new Map<string, { open: ContextObject[]; settlement: Settlement }>();
  /** The dead claims items are weighed against, last time. */
  private readonly deadLists = new DeadListKeeper();

  /**
   * Last settlement's dead list when it holds the same claims: the verdicts on signals and items, and
   * later passes' memos, are kept per list, and a written fact rarely changes which claims are dead.
   */
  sameDead(dead: DeadClaim[]): DeadClaim[] {
    return this.deadLists.same(dead);
  }
}

const SLOT = "slot:";

/** The objects filling each slot, slots in the order neighbourhoods(keyed) meets them. */
function slotNeighbourhoods(keyed: ContextObject[]): Map<string, ContextObject[]> {
  const bySlot = new Map<string, ContextObject[]>();
  for (const object of keyed) {
    for (const id of object.entityIds) {
      if (!id.startsWith(SLOT)) continue;
      const list = bySlot.get(id);
      if (list) list.push(object);
      else bySlot.set(id, [object]);
    }
  }
  return bySlot;
}

/**
 * Each slot over its open claims, slot by slot in the order neighbourhoods(keyed) gives them (other
 * entities never settle anything, and leaving them out keeps the slots' order). An object displaced or
 * quarantined in one slot is no longer open in a later one. A slot whose open claims are the very ones
 * it settled last time settles the same way: its settlement is taken from the memo.
 */
export function reconcile(keyed: ContextObject[], memo = new FactsMemo()): Settlement {
  const settled: Settlement = { displaced: [], quarantined: [] };
  const seen = new Set<string>();
  const slots = new Map<string, { open: ContextObject[]; settlement: Settlement }>();
  for (const [slot, claims] of slotNeighbourhoods(keyed)) {
    // Fewer than two claims settle nothing (reconcileSlot).
    if (claims.length < 2) continue;
    const open = seen.size ? claims.filter((c) => !seen.has(c.objectId)) : claims;
    if (open.length < 2) continue;
    const last = memo.slots.get(slot);
    const settlement =
      last && sameObjects(last.open, open) ? last.settlement : reconcileSlot(slot.slice(SLOT.length), open);
    slots.set(slot, { open, settlement });
    for (const d of settlement.displaced) {
      seen.add(d.object.objectId);
      settled.displaced.push(d);
    }
    for (const q of settlement.quarantined) {
      seen.add(q.object.objectId);
      settled.quarantined.push(q);
    }
  }
  // Only the slots met this time are kept: the memo stays the size of the state.
  memo.slots = slots;
  return settled;
}

const sameObjects = (a: readonly ContextObject[], b: readonly ContextObject[]) =>
  a === b || (a.length === b.length && a.every((o, i) => o === b[i]));

/**
 * An environment signal is the latest word on what it names; an older signal about the same entity is
 * stale: the first of the signals before it, newest first, that is newer and names one of its
 * identifiers. Each identifier lists the signals naming it in that order, so a signal looks only at
 * those, not at every signal before it.
 */
export function staleSignals(environment: ContextObject[], memo = new FactsMemo()): Omission[] {
  if (memo.stale && sameObjects(memo.stale.environment, environment)) return memo.stale.stale;
  const stale: Omission[] = [];
  const newestFirst = [...environment].sort((a, b) => b.ts.localeCompare(a.ts));
  const naming = new Map<string, number[]>();
  for (const [index, older] of newestFirst.entries()) {
    let first = Number.POSITIVE_INFINITY;
    for (const id of older.entityIds) {
      if (!id.startsWith("id:")) continue;
      const earlier = naming.get(id);
      if (!earlier) {
        naming.set(id, [index]);
        continue;
      }
      const found = earlier.find((at) => at < first && (newestFirst[at] as ContextObject).ts > older.ts);
      if (found !== undefined) first = found;
      earlier.push(index);
    }
    const newer = newestFirst[first];
    if (!newer) continue;
    stale.push({
      object: { ...older, contradiction: "overridden", supersededBy: newer.objectId },
      reason: "superseded",
      detail: `a newer signal (${newer.objectId}) about the same entity`,
    });
  }
  memo.stale = { environment: [...environment], stale };
  return stale;
}

export function checkTemporal(
  admitted: Admitted,
  earlier: Omission[],
  statedClaims: Map<string, StatedClaims>,
): TemporalResult {
  const state = settleState(admitted, earlier, statedFor(admitted.items, statedClaims));
  return settleTranscript(state, admitted, earlier, statedClaims);
}

/**
 * What pass 4 settles among stored state (facts, working set, environment, items), apart from the
 * transcript. Retrieved episodes change with every query while a thread's state mostly does not, so
 * this part is split off for CompileCache to keep between compiles; checkTemporal is the two parts in
 * sequence. It reads only what it is given: the state lists, the gated non-messages (a gated message
 * has no claim and no valid time, so it cannot kill or date one) and the stated claims of the
 * messages items were extracted from.
 */
export interface StateSettlement {
  facts: ContextObject[];
  working: ContextObject[];
  environment: ContextObject[];
  items: ContextObject[];
  /** Omissions this part added, after the gated ones. */
  omitted: Omission[];
  quarantined: Quarantine[];
  /** Dead claims before the values messages themselves retired are added. */
  dead: DeadClaim[];
  /** Outdated messages among the items' source messages, acknowledgements included. */
  outdatedSources: Map<string, string>;
  /**
   * Live facts, working set and environment, in that order: what keeps a value a message retired
   * alive. One list per settlement, so hygiene's memos keyed by it hold while the settlement does.
   */
  live: ContextObject[];
}

/** The stated claims of the messages the items were extracted from, in the items' order. */
export function statedFor(items: ContextObject[], statedClaims: Map<string, StatedClaims>) {
  const out = new Map<string, StatedClaims>();
  for (const item of items) {
    for (const ref of item.refs ?? []) {
      const stated = statedClaims.get(ref);
      if (stated && !out.has(ref)) out.set(ref, stated);
    }
  }
  return out;
}

/**
 * Pass 4's settlement of stored state other than items: reconciliation of facts, working set and
 * environment, and the dead claims items are then weighed against. It does not read items or what
 * was said, so a new turn that only adds items leaves it standing (CompileCache keeps it), and the
 * lists it returns stay the same arrays for the per-list memos of later passes.
 */
export interface FactSettlement {
  facts: ContextObject[];
  working: ContextObject[];
  environment: ContextObject[];
  /** Omissions this part added, after the gated ones. */
  omitted: Omission[];
  quarantined: Quarantine[];
  quarantinedAsOmitted: Omission[];
  /** When each state object's claim became valid; a claim died when its successor did. */
  validFrom: Map<string, string>;
  /** Dead claims an item extracted while they were still believed dies with. */
  deadBeforeItems: DeadClaim[];
  /** Live facts, working set and environment, in that order (see StateSettlement.live). */
  live: ContextObject[];
}

export function settleFacts(
  admitted: Omit<Admitted, "messages" | "episodes" | "items">,
  earlier: Omission[],
  memo = new FactsMemo(),
): FactSettlement {
  const omitted: Omission[] = [];
  const removed = new Set<string>();
  const keep = (list: ContextObject[]) => list.filter((o) => !removed.has(o.objectId));

  const stale = staleSignals(admitted.environment, memo);
  const staleIds = new Set(stale.map((s) => s.object.objectId));
  const settled = reconcile(
    [...admitted.facts, ...admitted.working, ...admitted.environment].filter(
      (o) => !staleIds.has(o.objectId),
    ),
    memo,
  );
  for (const o of [...stale, ...settled.displaced]) {
    omitted.push(o);
    removed.add(o.object.objectId);
  }
  for (const q of settled.quarantined) removed.add(q.object.objectId);
  const facts = keep(admitted.facts);
  const working = keep(admitted.working);

  const validFrom = new Map<string, string>();
  // Gated objects count too: a claim died when its successor became valid, even if that successor has
  // itself been replaced since.
  for (const o of [
    ...admitted.facts,
    ...admitted.working,
    ...admitted.environment,
    ...earlier.map((e) => e.object),
  ]) {
    if (o.kind !== "message" && o.kind !== "state_item") validFrom.set(o.objectId, validTime(o));
  }
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
  );
  const deadBeforeItems = memo.sameDead(deadClaimsWith(basis, [], []));
  // So does an environment signal: under whatever key it was filed, a signal that states a value the
  // conversation has since replaced ("window is 2 AM - 4 AM" once the window moved) is no longer the
  // latest word on what it names.
  const environment = liveSignals.filter((signal) => {
    const restated = restatedBefore(signal, deadBeforeItems);
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
  if (environment.length === liveSignals.length) bases.set(result, { earlier: [...earlier], basis });
  return result;
}

/** The rest of the stored state's settlement: items against the settled facts and what was said. */
export function settleItems(
  core: FactSettlement,
  items: ContextObject[],
  earlier: Omission[],
  sourceClaims: Map<string, StatedClaims>,
): StateSettlement {
  const { facts, working, environment } = core;
  const omitted = [...core.omitted];
  const outdated = outdatedMessages(sourceClaims, facts);
  // An acknowledgement extraction tied to an outdated message (same item) is outdated with it.
  for (const item of items) {
    const from = item.refs?.find((ref) => outdated.has(ref));
    const replacedBy = from ? outdated.get(from) : undefined;
    if (replacedBy) for (const ref of item.refs ?? []) if (!outdated.has(ref)) outdated.set(ref, replacedBy);
  }
  const liveItems = items.filter((item) => {
    const restated = restatedBefore(item, core.deadBeforeItems);
    const from = item.refs?.find((ref) => outdated.has(ref));
    if (restated) {
      omitted.push({ object: item, reason: restated.reason, detail: `restates ${restated.objectId}` });
    } else if (from) {
      omitted.push({
        object: item,
        reason: "superseded",
        detail: `stated in ${from}, since replaced by ${outdated.get(from)}`,
      });
    }
    return !restated && !from;
  });
  // deadClaims([...earlier, ...omitted, ...core.quarantinedAsOmitted], [...core.live, ...liveItems]),
  // with the facts' part worked out once per settlement of facts: a new turn adds items, not facts.
  const dead = deadClaimsWith(basisOf(core, earlier), omitted.slice(core.omitted.length), liveItems);
  return {
    facts,
    working,
    environment,
    items: liveItems,
    omitted,
    quarantined: core.quarantined,
    dead,
    outdatedSources: outdated,
    live: core.live,
  };
}

/**
 * Whether an item speaks from a state dead before items were weighed, per dead list and item: both are
 * never changed, and a warm thread's facts' part, with its list, stands while new items arrive.
 */
const itemVerdicts = new WeakMap<DeadClaim[], WeakMap<ContextObject, DeadClaim | null>>();

function restatedBefore(item: ContextObject, dead: DeadClaim[]): DeadClaim | undefined {
  const verdicts = perList(itemVerdicts, dead, () => new WeakMap());
  let verdict = verdicts.get(item);
  if (verdict === undefined) {
    verdict = speaksFromDeadState(item, dead) ?? null;
    verdicts.set(item, verdict);
  }
  return verdict ?? undefined;
}

/**
 * The standing part of the items' dead claims, per settlement of facts and the gated omissions it was
 * settled with (CompileCache hands back a settlement for equal omissions, in new arrays; deadClaims
 * reads an omission's object and reason only).
 */
const bases = new WeakMap<FactSettlement, { earlier: Omission[]; basis: DeadBasis }>();

function basisOf(core: FactSettlement, earlier: Omission[]): DeadBasis {
  const known = bases.get(core);
  if (
    known &&
    known.earlier.length === earlier.length &&
    known.earlier.every((o, i) => o.object === earlier[i]?.object && o.reason === earlier[i]?.reason)
  ) {
    return known.basis;
  }
  const basis = deadBasis(
    [...earlier, ...core.omitted],
    core.quarantinedAsOmitted,
    core.live,
    core.validFrom,
  );
  bases.set(core, { earlier: [...earlier], basis });
  return basis;
}

export function settleState(
  admitted: Omit<Admitted, "messages" | "episodes">,
  earlier: Omission[],
  sourceClaims: Map<string, StatedClaims>,
): StateSettlement {
  return settleItems(settleFacts(admitted, earlier), admitted.items, earlier, sourceClaims);
}

/**
 * The rest of pass 4, for the transcript: the values any stated message retired join the dead claims,
 * and the tail and the retrieved episodes go through message hygiene. `sameDead` may hand back an
 * equal earlier list (CompileCache keeps one, so per-list memos of masked text survive between compiles).
 */
export function settleTranscript(
  state: StateSettlement,
  admitted: Pick<Admitted, "messages" | "episodes">,
  earlier: Omission[],
  statedClaims: Map<string, StatedClaims>,
  sameDead: (dead: DeadClaim[]) => DeadClaim[] = (dead) => dead,
): TemporalResult {
  const { facts, working, environment, items } = state;
  const dead = sameDead(withRetired(state.dead, statedClaims, state.live));
  // Outdated is decided per message; among the items' sources, acknowledgements were added to it.
  const outdated = outdatedMessages(statedClaims, facts);
  for (const [id, replacedBy] of state.outdatedSources) outdated.set(id, replacedBy);
  const omitted = [...earlier, ...state.omitted];
  const hygiene = messageHygiene(dead, outdated);
  const transcript = (list: ContextObject[]) =>
    list.filter((message) => {
      const verdict = hygiene(message);
      if (verdict) omitted.push(verdict);
      return !verdict;
    });
  const messages = transcript(admitted.messages);
  const episodes = transcript(admitted.episodes);
  return {
    facts,
    working,
    environment,
    items,
    messages,
    episodes,
    omitted,
    quarantined: state.quarantined,
    dead,
  };
}

/**
 * The message filter, shared by the recent tail and retrieved episodes: a message that stated a value
 * since replaced, or that speaks from a dead state, leaves; one that merely quotes a dead claim stays
 * with the quotation masked when enough of it remains.
 */
export function messageHygiene(dead: DeadClaim[], outdated: Map<string, string>) {
  return (message: ContextObject): Omission | undefined => {
    const replacedBy = outdated.get(message.objectId);
    if (replacedBy) {
      return {
        object: message,
        reason: "superseded",
        detail: `stated a value since replaced by ${replacedBy}`,
      };
    }
    return deadStateVerdict(message, dead) ?? undefined;
  };
}

/**
 * Whether a message speaks from, or merely restates, a dead state depends on the message and the
 * dead list alone: kept per list and message (both never mutated), since a warm thread's dead list
 * carries over between compiles (src/compiler/hygiene.ts withRetired) while retrieval brings back
 * the same messages.
 */
const deadStateVerdicts = new WeakMap<DeadClaim[], WeakMap<ContextObject, Omission | null>>();

function deadStateVerdict(message: ContextObject, dead: DeadClaim[]): Omission | null {
  const verdicts = perList(deadStateVerdicts, dead, () => new WeakMap());
  let verdict = verdicts.get(message);
  if (verdict === undefined) {
    const fromDeadState = speaksFromDeadState(message, dead);
    const restated = fromDeadState ?? restatedClaim(message.text, dead);
    verdict =
      restated && (fromDeadState || !worthKeeping(maskClaims(message.text, dead)))
        ? { object: message, reason: restated.reason, detail: `restates ${restated.objectId}` }
        : null;
    verdicts.set(message, verdict);
  }
  return verdict;
}
