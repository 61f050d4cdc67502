import type { AuthorityLevel } from "./authority";
import type { ClassificationName } from "./classification";
import type { CompiledAsName, DetailLevelName, PriorityTierName } from "./compilation";
import type { ContradictionStatusName } from "./contradiction";
import type { RegistryEntity } from "./entities";
import type { ObjectKindName, ObjectTypeName } from "./objects";
import type { OmitReasonName } from "./omissions";
import type { RedactionKind } from "./redaction";
import type { ScreenKind } from "./screening";

/**
 * The compile trace: what a compile placed, left out, quarantined and screened, and why. It names
 * objects, never their content, so it can be stored and audited (GET /traces/{trace_id}).
 */
export interface CompileTrace {
  compiled: CompiledEntry[];
  omitted: OmittedEntry[];
  quarantined: QuarantinedEntry[];
  screened?: ScreenedEntry[];
  candidates: {
    total: number;
    admitted: number;
    compiled: number;
    /** Where the project's facts came from; only the versions these sources found were considered. */
    facts?: FactCandidateCounts;
    /** Whether a source's bound left versions out (named in `facts.truncated`, or `layer_history`). */
    truncated?: boolean;
    /** Replaced working and environment versions compiled, and older ones past the bound (when any was). */
    layer_history?: { kept: number; left_out: number };
    /** The registered entities the query names, whose facts were searched for (issue 17, seed 001). */
    entities?: QueryEntity[];
    /** Entities that share a fact with those the query names: their facts were candidates too (seed 001's neighbourhood). */
    neighbours?: string[];
    /** The thread's messages that refer to an entity the query names: retrieved as episodes for it. */
    entity_messages?: { message_id: string; entity_id: string }[];
  };
  /** How many values of each kind were redacted; the values themselves never appear. */
  redactions?: Partial<Record<RedactionKind, number>>;
  compile_ms?: number;
  timings?: CompileTimings;
  extraction?: { status: ExtractionStatus; pending_messages: number };
  /** Messages not yet extracted when this compile read state (the same as extraction.pending_messages). */
  extraction_pending?: number;
  /** What the thread object holds in memory between compiles, after this one. */
  held?: { fact_rows: number; compiled_objects: number; message_postings: number };
  /** Where the question's evidence was found, and the share of the budget stored state could take. */
  budget?: { evidence: EvidenceSource; state_share: number };
}

/** Where a question's evidence lies (src/compiler/passes/layer-shares.ts). */
export const EVIDENCE_SOURCES = ["state", "conversation"] as const;
export type EvidenceSource = (typeof EVIDENCE_SOURCES)[number];

/** The sources of a compile's candidate facts (src/facts/fact-candidates.ts), and those a bound cut. */
export const FACT_CANDIDATE_SOURCES = [
  "recent",
  "standing",
  "thread",
  "matched",
  "entity",
  "similar",
  "history",
] as const;
export type FactCandidateSource = (typeof FACT_CANDIDATE_SOURCES)[number];

export interface FactCandidateCounts {
  recent: number;
  standing: number;
  thread: number;
  matched: number;
  entity: number;
  similar: number;
  history: number;
  truncated: FactCandidateSource[];
}

/** A canonical entity a query names: its id and name, the words that named it, and whether it is pending. */
export interface QueryEntity {
  id: string;
  name: string;
  mention: string;
  pending: boolean;
}

/**
 * A fact that refers to a pending entity (seed 001: kept out of high-authority constraints until its
 * review is decided).
 */
export interface PendingReference {
  factId: string;
  entityId: string;
  /** The pending entity's name. */
  name: string;
}

/**
 * What a search reads of a project's entity registry whatever its text: the facts referring to a pending
 * entity, and the registry's lookup terms while they are few (undefined past the bound: any name may
 * then match). Held between compiles while the project's revision stays the same.
 */
export interface RegistryPart {
  pending: readonly PendingReference[];
  terms: readonly string[] | undefined;
  /**
   * The registry's every entity while its terms are held: the names a question uses are then resolved
   * from these, with no read (src/entities/query-entities.ts).
   */
  entities?: readonly RegistryEntity[];
}

export interface CompiledEntry {
  object_id: string;
  kind: ObjectKindName;
  section: string;
  object_type: ObjectTypeName;
  authority_level: AuthorityLevel;
  source_authority: number;
  confidence_score: number;
  security_classification: ClassificationName;
  contradiction_status: ContradictionStatusName;
  priority_tier: PriorityTierName;
  compiled_as: CompiledAsName;
  detail: DetailLevelName;
  tokens: number;
  refs?: string[];
  /** Pending entities the object names: a constraint naming one is guidance, not a rule, until reviewed. */
  pending_entities?: string[];
}

export interface OmittedEntry {
  object_id: string;
  kind: ObjectKindName;
  reason: OmitReasonName;
  priority_tier?: PriorityTierName;
  detail?: string;
}

/** A true contradiction, held out of the context until it is resolved. */
export interface QuarantinedEntry {
  object_id: string;
  kind: ObjectKindName;
  reason: "conflicting_claim_unresolved";
  contradiction_status: ContradictionStatusName;
  slot: string;
  conflicts_with: string[];
  detail: string;
}

/** A user turn held back by screening, compiled only as a notice. */
export interface ScreenedEntry {
  object_id: string;
  kind: "message";
  screen: ScreenKind;
  detail: string;
}

/**
 * How the project's candidate facts were read: `held` the same search answered earlier at the project's
 * current revision, from the thread object's memory; `searched` D1's indexes asked; `replica` the
 * question's own part answered by the project's fact replica (src/project-index/fact-replica.ts), and
 * D1 asked only for what it could not answer (the entities a question names).
 */
export const FACT_READS = ["held", "searched", "replica"] as const;
export type FactRead = (typeof FACT_READS)[number];

export interface CompileTimings {
  facts_ms: number;
  facts_read: FactRead;
  thread_reads_ms: number;
  passes_ms: number;
  /** Time spent waiting, before compile_ms starts, for the write path's pass (read-your-writes). */
  waited_ms?: number;
}

/** Whether messages past the extraction watermark were extracted before compiling (read-your-writes). */
export const EXTRACTION_STATUSES = ["current", "partial", "failed"] as const;
export type ExtractionStatus = (typeof EXTRACTION_STATUSES)[number];
