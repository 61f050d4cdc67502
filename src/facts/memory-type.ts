/**
 * Tri-partite memory classification from the source (seed 000): systems of record and policy are
 * organizational knowledge, observed patterns and tool output are capability memory, and everything
 * a person says about their own work is user memory.
 */
export type MemoryType = "user" | "capability" | "organizational";

const ORGANIZATIONAL_IDENTITY = /(_system|system$|policy|registry|crm|erp|hris|ledger)/i;
const CAPABILITY_IDENTITY = /(observation|pattern|heuristic|strategy|learned)/i;

export function inferMemoryType(sourceType: string, sourceIdentity?: string | null): MemoryType {
  if (sourceType === "policy" || sourceType === "system") return "organizational";
  if (sourceIdentity && ORGANIZATIONAL_IDENTITY.test(sourceIdentity)) return "organizational";
  if (sourceType === "tool") return "capability";
  if (sourceIdentity && CAPABILITY_IDENTITY.test(sourceIdentity)) return "capability";
  if (sourceType === "external") return "organizational";
  return "user";
}
