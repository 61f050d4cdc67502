import type { ContextObject, Omission, Quarantine } from "../../context-object";
import type { DeadClaim, ValidFrom } from "../../hygiene/dead-claim";

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

export interface Settlement {
  displaced: Omission[];
  quarantined: Quarantine[];
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
  validFrom: ValidFrom;
  /** Dead claims an item extracted while they were still believed dies with. */
  deadBeforeItems: DeadClaim[];
  /** Live facts, working set and environment, in that order (see StateSettlement.live). */
  live: ContextObject[];
}
