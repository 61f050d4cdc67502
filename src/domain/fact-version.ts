import type { ClassificationName } from "./classification";
import type { ContradictionStatusName } from "./contradiction";
import type { MemoryTypeName } from "./facts";
import type { ScopeName } from "./scopes";

/**
 * One stored version of a fact, as the compiler and fact planning consume it. Versions are never
 * rewritten: a change closes this version's transaction window (txEnd) and links it to its successor.
 * Lists and the value are kept JSON-encoded, as stored, so a compile decodes only what it reads.
 * The storage edge (src/facts/fact-schema.ts) checks that its row type is exactly this shape.
 */
export interface FactVersion {
  projectId: string;
  id: string;
  /** The id of the lineage's first version, shared by all its versions. */
  lineageId: string;
  key: string;
  valueJson: string;
  /** The value rendered as compiled text, with its token count. */
  content: string;
  tokens: number;
  memoryType: MemoryTypeName;
  userId: string | null;
  threadId: string;
  sourceType: string;
  sourceAuthority: string | null;
  sourceIdentity: string | null;
  authorityRank: number;
  scope: ScopeName;
  scopeId: string | null;
  supersedes: string | null;
  supersededBy: string | null;
  isValid: boolean;
  contradictionStatus: ContradictionStatusName;
  statusReason: string | null;
  dependsOnJson: string;
  needsReview: boolean;
  isConstraint: boolean;
  constraintType: string | null;
  classification: ClassificationName;
  allowRolesJson: string;
  denyRolesJson: string;
  /** Valid time: when the fact holds in the world. */
  validFrom: string;
  validUntil: string | null;
  /** Transaction time: when the system believed it; txEnd is set once a later version replaced it. */
  txStart: string;
  txEnd: string | null;
  /** Seed 004's detail levels, computed once at write time; empty on versions written before they existed. */
  summary: string;
  summaryTokens: number;
  micro: string;
  microTokens: number;
  /** The FactContext the writer stated, as JSON. */
  contextJson: string;
}
