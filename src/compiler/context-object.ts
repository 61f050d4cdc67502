import type { DetailForms } from "../detail-forms/detail-forms";
import type { AuthorityLevel } from "../domain/authority";
import type { PriorityTierName } from "../domain/compilation";
import type { ContradictionStatusName } from "../domain/contradiction";
import type { RetirementRuleName } from "../domain/lifecycle";
import type { ObjectKindName, ObjectTypeName } from "../domain/objects";
import type { OmitReasonName } from "../domain/omissions";
import type { TaskTypeName } from "../domain/tasks";

/**
 * The compiler's unit (seed 001's Context Object). Facts, state items, working-set entries,
 * environment signals and messages are all normalized into this shape before any decision is taken,
 * so every later pass reasons about one vocabulary.
 */
export interface ContextObject {
  objectId: string;
  /** Which store the object came from; `objectType` says what it is. */
  kind: ObjectKindName;
  objectType: ObjectTypeName;
  /** The slot a keyed object fills (fact, working-set or environment key). */
  key: string | null;
  /** Full form, as rendered at write time, with its stored token count. */
  text: string;
  tokens: number;
  /** Summary and micro forms (seed 004), computed at write time; null when the full form is already micro-sized. */
  forms: DetailForms | null;
  ts: string;
  scope: string;
  scopeId: string | null;
  tenantId: string;
  projectId: string;
  userId: string | null;
  sessionId: string | null;
  sourceOrigin: string;
  /** A fact's source.type ("tool", "external" …): names the source of a contained payload. */
  sourceType?: string;
  authorityLevel: AuthorityLevel;
  /** 0–1: how far up the tenant's authority ladder the writer stands. */
  sourceAuthority: number;
  /** 0–1. */
  confidence: number;
  classification: string;
  allowRoles: string[];
  denyRoles: string[];
  isValid: boolean;
  disputed: boolean;
  contradiction: ContradictionStatusName;
  validFrom: string | null;
  validUntil: string | null;
  txStart: string | null;
  txEnd: string | null;
  isConstraint: boolean;
  /** The object's claim (its value, markers removed), used to recognise it restated elsewhere. */
  claim: string | null;
  /** For a superseded object, the id of the version that replaced it (seed 001's supersession_link). */
  supersededBy: string | null;
  /** Entities the object is about: its slot and any identifiers named in it (filled by resolve-entities). */
  entityIds: string[];
  aliases: string[];
  whyItMatters: string | null;
  /** Empty: applies to every task type. */
  taskTypes: TaskTypeName[];
  behavioralImplication: string | null;
  decayHalfLifeDays: number | null;
  retirementRule: RetirementRuleName;
  refs?: string[];
  /**
   * For a message: the stamp its stored forms open with ("[ts] speaker (role): ") and the shorter
   * speaker label that replaces it where lines are grouped under their date (see pack and emit).
   */
  transcript?: { stamp: string; speaker: string };
}

export interface Omission {
  object: ContextObject;
  reason: OmitReasonName;
  detail?: string;
  tier?: PriorityTierName;
}

/** A true contradiction: excluded from the envelope and turned into a pending confirmation. */
export interface Quarantine {
  object: ContextObject;
  conflictsWith: string[];
  slot: string;
  detail: string;
}
