import type { ContextObject, Omission } from "../../context-object";
import { FactsMemo, type RunSlots, sameObjects } from "./facts-memo";
import type { Settlement } from "./settlement";

const normalizeClaim = (claim: string | null) => (claim ?? "").toLowerCase().replace(/\s+/g, " ").trim();
const trust = (o: ContextObject) => o.sourceAuthority * o.confidence;
export const validTime = (o: ContextObject) => o.validFrom ?? o.ts;

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

const SLOT = "slot:";

function runSlots(objects: readonly ContextObject[]): RunSlots {
  const slots: RunSlots["slots"] = new Map();
  const filled: string[] = [];
  for (const object of objects) {
    for (const id of object.entityIds) {
      if (!id.startsWith(SLOT)) continue;
      const slot = slots.get(id);
      if (!slot) slots.set(id, { at: slots.size, claims: [object] });
      else if (slot.claims.push(object) === 2) filled.push(id);
    }
  }
  const at = (id: string) => slots.get(id)?.at ?? 0;
  filled.sort((a, b) => at(a) - at(b));
  return { slots, filled };
}

/**
 * The slots two or more of the objects fill, with those objects, in the order neighbourhoods(keyed)
 * meets the slots. Nearly every slot is filled once (a large project's compile meets some 700, rarely
 * two claims in one), and only those filled twice settle anything, so no list is made for the others;
 * and the run of held facts the list begins with is read once (`memo.slotRuns`): its slots come first,
 * in its order, and the objects after it are read against them.
 */
function slotNeighbourhoods(keyed: ContextObject[], memo: FactsMemo): [string, ContextObject[]][] {
  const run = memo.slotRuns.of(keyed, runSlots);
  const runFills = run?.value.slots;
  const bySlot = new Map<string, ContextObject | ContextObject[]>();
  // The run's slots the objects after it fill too, with those objects.
  const more = new Map<string, ContextObject[]>();
  for (let i = run?.length ?? 0; i < keyed.length; i++) {
    const object = keyed[i] as ContextObject;
    for (const id of object.entityIds) {
      if (!id.startsWith(SLOT)) continue;
      if (runFills?.has(id)) {
        const list = more.get(id);
        if (list) list.push(object);
        else more.set(id, [object]);
        continue;
      }
      const held = bySlot.get(id);
      if (held === undefined) bySlot.set(id, object);
      else if (Array.isArray(held)) held.push(object);
      else bySlot.set(id, [held, object]);
    }
  }
  const filled: [string, ContextObject[]][] = [];
  if (run && runFills) {
    const at = (id: string) => runFills.get(id)?.at ?? 0;
    const names = more.size
      ? [...new Set([...run.value.filled, ...more.keys()])].sort((a, b) => at(a) - at(b))
      : run.value.filled;
    for (const id of names) {
      const own = runFills.get(id)?.claims ?? [];
      const after = more.get(id);
      const claims = after ? [...own, ...after] : own;
      if (claims.length >= 2) filled.push([id, claims]);
    }
  }
  for (const [id, held] of bySlot) if (Array.isArray(held)) filled.push([id, held]);
  return filled;
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
  // Fewer than two claims settle nothing (reconcileSlot): only slots filled twice are met.
  for (const [slot, claims] of slotNeighbourhoods(keyed, memo)) {
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
