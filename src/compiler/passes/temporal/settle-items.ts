import type { ContextObject, Omission } from "../../context-object";
import { type DeadBasis, deadBasis, deadClaimsWith } from "../../hygiene/dead-basis";
import { outdatedMessages } from "../../hygiene/outdated";
import type { StatedClaims } from "../../types";
import type { TemporalMemos } from "./memos";
import { itemRetelling, overriddenInstructions } from "./retold-instructions";
import { restatedBefore, settleFacts } from "./settle-facts";
import type { Admitted, FactSettlement, StateSettlement } from "./settlement";

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

/** The rest of the stored state's settlement: items against the settled facts and what was said. */
export function settleItems(
  core: FactSettlement,
  items: ContextObject[],
  earlier: Omission[],
  sourceClaims: Map<string, StatedClaims>,
  memos: TemporalMemos,
): StateSettlement {
  const { facts, working, environment } = core;
  const omitted = [...core.omitted];
  const outdated = outdatedMessages(sourceClaims, facts, memos);
  // An acknowledgement extraction tied to an outdated message (same item) is outdated with it.
  for (const item of items) {
    const from = item.refs?.find((ref) => outdated.has(ref));
    const replacedBy = from ? outdated.get(from) : undefined;
    if (replacedBy) for (const ref of item.refs ?? []) if (!outdated.has(ref)) outdated.set(ref, replacedBy);
  }
  // An item that repeats or retells an overridden instruction speaks for it, whenever it was said.
  const retold = overriddenInstructions(core.omitted);
  const liveItems = items.filter((item) => {
    const retelling = retold.length ? itemRetelling(item, retold) : undefined;
    if (retelling) {
      omitted.push({
        object: item,
        reason: retelling.reason,
        detail: `restates ${retelling.instruction.object.objectId}`,
      });
      return false;
    }
    const restated = restatedBefore(item, core.deadBeforeItems, memos);
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
  const dead = deadClaimsWith(
    basisOf(core, earlier, memos),
    omitted.slice(core.omitted.length),
    liveItems,
    memos,
  );
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

/** The standing part of the items' dead claims for this settlement of facts (TemporalMemos.deadBases). */
function basisOf(core: FactSettlement, earlier: Omission[], memos: TemporalMemos): DeadBasis {
  const known = memos.deadBases.get(core);
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
    memos,
  );
  memos.deadBases.set(core, { earlier: [...earlier], basis });
  return basis;
}

export function settleState(
  admitted: Omit<Admitted, "messages" | "episodes">,
  earlier: Omission[],
  sourceClaims: Map<string, StatedClaims>,
  memos: TemporalMemos,
): StateSettlement {
  return settleItems(settleFacts(admitted, earlier, memos), admitted.items, earlier, sourceClaims, memos);
}
