import { perList } from "../../cache/memo-tables";
import type { ContextObject, Omission } from "../../context-object";
import { claimsAgainst } from "../../hygiene/claims-against";
import type { DeadClaim } from "../../hygiene/dead-claim";
import { maskClaims, worthKeeping } from "../../hygiene/mask";
import { outdatedMessages } from "../../hygiene/outdated";
import { restatedClaim, speaksFromDeadState } from "../../hygiene/restatement";
import { mergedWith, withRetired } from "../../hygiene/retired";
import type { StatedClaims } from "../../types";
import type { TemporalMemos } from "./memos";
import { overriddenInstructions, retoldInstructions } from "./retold-instructions";
import type { Admitted, StateSettlement, TemporalResult } from "./settlement";

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
  memos: TemporalMemos,
  sameDead: (dead: DeadClaim[]) => DeadClaim[] = (dead) => dead,
  ownTurn: OwnTurn = () => false,
): TemporalResult {
  const { facts, working, environment, items } = state;
  const retold = retoldInstructions(overriddenInstructions(state.omitted), [
    ...admitted.messages,
    ...admitted.episodes,
  ]);
  const dead = sameDead(mergedWith(withRetired(state.dead, statedClaims, state.live, memos), retold, memos));
  // Outdated is decided per message; among the items' sources, acknowledgements were added to it.
  const outdated = outdatedMessages(statedClaims, facts, memos);
  for (const [id, replacedBy] of state.outdatedSources) outdated.set(id, replacedBy);
  const omitted = [...earlier, ...state.omitted];
  const hygiene = messageHygiene(dead, outdated, memos, ownTurn);
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

/** Whether a message is the caller's own turn (gate.ts, ownWords). */
export type OwnTurn = (message: ContextObject) => boolean;

/**
 * The message filter, shared by the recent tail and retrieved episodes: a message that stated a value
 * since replaced, or that speaks from a dead state, leaves; one that merely quotes a dead claim stays
 * with the quotation masked when enough of it remains. Each message is weighed against the dead
 * claims that bear on it (claims-against.ts).
 */
export function messageHygiene(
  dead: DeadClaim[],
  outdated: Map<string, string>,
  memos: TemporalMemos,
  ownTurn: OwnTurn = () => false,
) {
  return (message: ContextObject): Omission | undefined => {
    const replacedBy = outdated.get(message.objectId);
    if (replacedBy) {
      return {
        object: message,
        reason: "superseded",
        detail: `stated a value since replaced by ${replacedBy}`,
      };
    }
    const against = claimsAgainst(message, ownTurn(message), dead, memos);
    return deadStateVerdict(message, against, memos) ?? undefined;
  };
}

/** A message's verdict against a dead list (TemporalMemos.messageVerdicts). */
function deadStateVerdict(message: ContextObject, dead: DeadClaim[], memos: TemporalMemos): Omission | null {
  const verdicts = perList(memos.messageVerdicts, dead, () => new WeakMap());
  let verdict = verdicts.get(message);
  if (verdict === undefined) {
    const fromDeadState = speaksFromDeadState(message, dead, memos);
    const restated = fromDeadState ?? restatedClaim(message.text, dead, memos);
    verdict =
      restated && (fromDeadState || !worthKeeping(maskClaims(message.text, dead, memos)))
        ? { object: message, reason: restated.reason, detail: `restates ${restated.objectId}` }
        : null;
    verdicts.set(message, verdict);
  }
  return verdict;
}
