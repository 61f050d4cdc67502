import type { ContextObject } from "../context-object";
import type { LeadingRun } from "../list-edits";

/** The memo tables this file reads (CompilerMemos holds them). */
export interface OutdatedMemos {
  /** The last object per slot key, per list of current objects. */
  slotIndexes: WeakMap<ContextObject[], SlotIndex>;
  /** The last object per slot key of the run of held facts the lists begin with. */
  slotIndexRuns: LeadingRun<ContextObject, Map<string, ContextObject>>;
}

/** The last object per slot key. */
export interface SlotIndex {
  get(key: string): ContextObject | undefined;
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

/**
 * The last object per slot key; kept per list, as a warm thread passes the same settled facts each
 * time, and per run of held facts a large project's lists begin with (the objects after it override).
 */
function slotsOf(current: ContextObject[], memos: OutdatedMemos): SlotIndex {
  let bySlot = memos.slotIndexes.get(current);
  if (!bySlot) {
    const run = memos.slotIndexRuns.of(current, (objects) => lastBySlot(objects, 0));
    const own = lastBySlot(current, run?.length ?? 0);
    bySlot = run ? { get: (key) => own.get(key) ?? run.value.get(key) } : own;
    memos.slotIndexes.set(current, bySlot);
  }
  return bySlot;
}

function lastBySlot(objects: readonly ContextObject[], from: number): Map<string, ContextObject> {
  const bySlot = new Map<string, ContextObject>();
  for (let i = from; i < objects.length; i++) {
    const c = objects[i] as ContextObject;
    if (c.key && c.claim) bySlot.set(c.key, c);
  }
  return bySlot;
}
