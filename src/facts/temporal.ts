import type { FactVersion } from "../domain/fact-version";

/**
 * Bitemporal selection over stored versions (seed 001). Transaction time answers "what did the system
 * believe at T"; valid time answers "what was true in the world at T" using the newest belief.
 */
export function believedAt(rows: FactVersion[], asOf: string): FactVersion[] {
  return rows.filter(
    (r) => r.txStart <= asOf && (r.txEnd === null || r.txEnd > asOf) && r.contradictionStatus !== "disputed",
  );
}

/**
 * A version stops being valid in the world at its own valid_until or when its successor's validity
 * begins, whichever is first; the successor's start is only known to beliefs recorded after it.
 */
export function trueAt(rows: FactVersion[], validAt: string, asOf?: string): FactVersion[] {
  const known = asOf ? rows.filter((r) => r.txStart <= asOf) : rows;
  const byId = new Map(known.map((r) => [r.id, r]));
  return known.filter((r) => {
    if (r.contradictionStatus === "disputed") return false;
    if (r.validFrom > validAt) return false;
    if (r.validUntil !== null && r.validUntil <= validAt) return false;
    const successor = r.supersededBy ? byId.get(r.supersededBy) : undefined;
    if (successor && successor.validFrom <= validAt) return false;
    return true;
  });
}

export function currentFacts(rows: FactVersion[]): FactVersion[] {
  return rows.filter((r) => r.txEnd === null && r.isValid && r.contradictionStatus !== "disputed");
}
