import type { Omission } from "../../context-object";
import type { StatedClaims } from "../../types";
import type { TemporalMemos } from "./memos";
import { settleState, statedFor } from "./settle-items";
import { settleTranscript } from "./settle-transcript";
import type { Admitted, TemporalResult } from "./settlement";

/** Pass 4 whole: the stored state's settlement, then the transcript's. */
export function checkTemporal(
  admitted: Admitted,
  earlier: Omission[],
  statedClaims: Map<string, StatedClaims>,
  memos: TemporalMemos,
): TemporalResult {
  const state = settleState(admitted, earlier, statedFor(admitted.items, statedClaims), memos);
  return settleTranscript(state, admitted, earlier, statedClaims, memos);
}
