import type { ContextObject, Omission } from "../../context-object";
import type { DeadClaim } from "../../hygiene/dead-claim";
import { DeadListKeeper } from "../../hygiene/dead-list-keeper";
import type { SuccessionMemos } from "../../hygiene/succession";
import { LeadingRun } from "../../list-edits";
import type { Settlement } from "./settlement";

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
  /** The slots of the run of objects reconciliation's lists begin with (slot-reconciliation.ts). */
  readonly slotRuns = new LeadingRun<ContextObject, RunSlots>();
  /** The state objects of the run the admitted facts begin with, by id (settle-facts.ts). */
  readonly validRuns = new LeadingRun<ContextObject, Map<string, ContextObject>>();
  /** The dead claims items are weighed against, last time. */
  private readonly deadLists = new DeadListKeeper();

  /**
   * Last settlement's dead list when it holds the same claims: the verdicts on signals and items, and
   * later passes' memos, are kept per list, and a written fact rarely changes which claims are dead.
   */
  sameDead(dead: DeadClaim[], memos: SuccessionMemos): DeadClaim[] {
    return this.deadLists.same(dead, memos);
  }
}

/** The slots a run of objects fills: where the run first meets each, and its objects there. */
export interface RunSlots {
  slots: Map<string, { at: number; claims: ContextObject[] }>;
  /** The slots it fills twice or more, in the order it meets them. */
  filled: string[];
}

/** The same objects in the same order: lists of objects, which are never changed, compared by identity. */
export const sameObjects = (a: readonly ContextObject[], b: readonly ContextObject[]) =>
  a === b || (a.length === b.length && a.every((o, i) => o === b[i]));
