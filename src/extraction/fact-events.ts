import type { FactEvent } from "../domain/facts";
import type { ExtractedFact } from "../items/types";

const ID_SAFE = /[^A-Za-z0-9._:-]/g;

/**
 * An extracted fact becomes an ordinary fact event, so it meets the same supersession, authority,
 * scope and permission rules as an explicit one. Its id derives from the source message and key:
 * extracting the same message twice yields the same ids, which D1 then counts as duplicates.
 */
export function factEventFrom(fact: ExtractedFact): FactEvent & { id: string; ts: string } {
  const id = `x:${fact.ref}:${fact.key}`.replace(ID_SAFE, "_").slice(0, 128);
  return {
    type: "fact",
    id,
    key: fact.key,
    value: fact.value,
    ts: fact.ts,
    source: { type: "conversation", ...(fact.authority ? { authority: fact.authority } : {}) },
    scope: fact.scope,
    ...(fact.scope_id ? { scope_id: fact.scope_id } : {}),
    ...(fact.supersedes ? { supersedes: fact.supersedes } : {}),
    classification: fact.classification,
    ...(fact.allow_roles.length ? { allow_roles: fact.allow_roles } : {}),
  };
}
