import type { ContextObject, Omission } from "../../context-object";
import { FactsMemo, sameObjects } from "./facts-memo";

/**
 * An environment signal is the latest word on what it names; an older signal about the same entity is
 * stale: the first of the signals before it, newest first, that is newer and names one of its
 * identifiers. Each identifier lists the signals naming it in that order, so a signal looks only at
 * those, not at every signal before it.
 */
export function staleSignals(environment: ContextObject[], memo = new FactsMemo()): Omission[] {
  if (memo.stale && sameObjects(memo.stale.environment, environment)) return memo.stale.stale;
  const stale: Omission[] = [];
  const newestFirst = [...environment].sort((a, b) => b.ts.localeCompare(a.ts));
  const naming = new Map<string, number[]>();
  for (const [index, older] of newestFirst.entries()) {
    let first = Number.POSITIVE_INFINITY;
    for (const id of older.entityIds) {
      if (!id.startsWith("id:")) continue;
      const earlier = naming.get(id);
      if (!earlier) {
        naming.set(id, [index]);
        continue;
      }
      const found = earlier.find((at) => at < first && (newestFirst[at] as ContextObject).ts > older.ts);
      if (found !== undefined) first = found;
      earlier.push(index);
    }
    const newer = newestFirst[first];
    if (!newer) continue;
    stale.push({
      object: { ...older, contradiction: "overridden", supersededBy: newer.objectId },
      reason: "superseded",
      detail: `a newer signal (${newer.objectId}) about the same entity`,
    });
  }
  memo.stale = { environment: [...environment], stale };
  return stale;
}
