import type { ContextObject, Omission } from "../../context-object";
import type { ClaimsAgainstMemos } from "../../hygiene/claims-against";
import type { DeadBasis, DeadBasisMemos } from "../../hygiene/dead-basis";
import type { DeadClaim } from "../../hygiene/dead-claim";
import type { OutdatedMemos } from "../../hygiene/outdated";
import type { RestatementMemos } from "../../hygiene/restatement";
import type { RetiredMemos } from "../../hygiene/retired";
import type { InstructionMemos } from "./instruction-authority";
import type { FactSettlement } from "./settlement";

/** The memo tables pass 4 reads, its own and hygiene's (CompilerMemos holds them). */
export interface TemporalMemos
  extends DeadBasisMemos,
    RestatementMemos,
    RetiredMemos,
    OutdatedMemos,
    ClaimsAgainstMemos,
    InstructionMemos {
  /**
   * Whether an item speaks from a state dead before items were weighed, per dead list and item: both are
   * never changed, and a warm thread's facts' part, with its list, stands while new items arrive.
   */
  itemVerdicts: WeakMap<DeadClaim[], WeakMap<ContextObject, DeadClaim | null>>;
  /**
   * The standing part of the items' dead claims, per settlement of facts and the gated omissions it was
   * settled with (CompileCache hands back a settlement for equal omissions, in new arrays; deadClaims
   * reads an omission's object and reason only).
   */
  deadBases: WeakMap<FactSettlement, { earlier: Omission[]; basis: DeadBasis }>;
  /**
   * Whether a message speaks from, or merely restates, a dead state depends on the message and the
   * dead list alone: kept per list and message (both never mutated), since a warm thread's dead list
   * carries over between compiles (src/compiler/hygiene/retired.ts) while retrieval brings back the
   * same messages.
   */
  messageVerdicts: WeakMap<DeadClaim[], WeakMap<ContextObject, Omission | null>>;
}
