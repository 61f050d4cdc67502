import type { ContextObject, Omission } from "../../context-object";
import { FactsMemo, sameObjects } from "./facts-memo";
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

/**
 * The objects filling each slot, slots in the order neighbourhoods(keyed) meets them; a slot one
 * object fills holds that object alone, not in a list. Nearly every slot is filled once (a large
 * project's compile meets some 700 slots, rarely two claims in one), and only those filled twice or
 * more settle anything, so no list is made for the others.
 */
function slotNeighbourhoods(keyed: ContextObject[]): Map<string, ContextObject | ContextObject[]> {
  const bySlot = new Map<string, ContextObject | ContextObject[]>();
  for (const object of keyed) {
    for (const id of object.entityIds) {
      if (!id.startsWith(SLOT)) continue;
      const held = bySlot.get(id);
      if (held === undefined) bySlot.set(id, object);
      else if (Array.isArray(held)) held.push(object);
      else bySlot.set(id, [held, object]);
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
    if (!Array.isArray(claims)) continue;
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
