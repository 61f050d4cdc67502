import type { ContextObject } from "../context-object";

/** The memo tables this file reads (CompilerMemos holds them). */
export interface OutdatedMemos {
  /** The last object per slot key, per list of current objects. */
  slotIndexes: WeakMap<ContextObject[], Map<string, ContextObject>>;
}

const normalizeValue = (value: string) => value.toLowerCase().replace(/\s+/g, " ").trim();

/**
 * Messages that stated a slot value which a later fact has since replaced. They speak from a dead
 * state even when they word the old value differently from the stored fact ("Approved the $100,000
 * budget" against "$100,000 (Manager approved)"), because extraction tied them to the slot.
 */
export function outdatedMessages(
  stated: Map<string, { ts: string; claims: { key: string; value: string }[] }>,
  current: ContextObject[],
  memos: OutdatedMemos,
): Map<string, string> {
  const outdated = new Map<string, string>();
  // Nothing stated, nothing outdated: the index of a large project's facts, a new list with every
  // question, is not built for nothing.
  if (stated.size === 0) return outdated;
  const bySlot = slotsOf(current, memos);
  for (const [id, { ts, claims }] of stated) {
    for (const claim of claims) {
      const now = bySlot.get(claim.key);
      if (!now?.claim || !now.validFrom || now.validFrom <= ts) continue;
      const was = normalizeValue(claim.value);
      const is = normalizeValue(now.claim);
      if (is === was || is.includes(was)) continue;
      outdated.set(id, now.objectId);
      break;
    }
  }
  return outdated;
}

/** The last object per slot key; kept per list, as a warm thread passes the same settled facts each time. */
function slotsOf(current: ContextObject[], memos: OutdatedMemos): Map<string, ContextObject> {
  let bySlot = memos.slotIndexes.get(current);
  if (!bySlot) {
    bySlot = new Map();
    for (const c of current) if (c.key && c.claim) bySlot.set(c.key, c);
    memos.slotIndexes.set(current, bySlot);
  }
  return bySlot;
}
