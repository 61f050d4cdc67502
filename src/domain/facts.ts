import type { ClassificationName } from "./classification";
import type { LayerName } from "./layers";
import type { DecayRule, RetirementRuleName } from "./lifecycle";
import type { ObjectTypeName } from "./objects";
import type { ScopeName } from "./scopes";
import type { SourceTypeName } from "./sources";
import type { TaskTypeName } from "./tasks";

/** Whose memory a fact belongs to: one user's, a capability's, or the organisation's. */
export const MEMORY_TYPES = ["user", "capability", "organizational"] as const;
export type MemoryTypeName = (typeof MEMORY_TYPES)[number];

export type FactValue = string | number | boolean | Record<string, unknown>;

/**
 * Context Object fields a writer may state with a fact (seed 001); whatever is left out is inferred.
 * why_it_matters with applicable_task_types makes a preference conditional.
 */
export interface FactContext {
  object_type?: ObjectTypeName;
  why_it_matters?: string;
  applicable_task_types?: TaskTypeName[];
  behavioral_implication?: string;
  confidence_score?: number;
  source_authority?: number;
  canonical_entity_ids?: string[];
  aliases?: string[];
  decay_rule?: DecayRule;
  retirement_rule?: RetirementRuleName;
}

/** A fact as stated, by a client or by extraction, before it is written as a version. */
export interface FactEvent {
  type: "fact";
  id?: string;
  key: string;
  value: FactValue;
  layer?: LayerName;
  ts?: string;
  source?: { type: SourceTypeName; authority?: string; identity?: string };
  scope?: ScopeName;
  scope_id?: string;
  supersedes?: string;
  depends_on?: string[];
  is_constraint?: boolean;
  constraint_type?: string;
  valid_from?: string;
  valid_until?: string | null;
  classification?: ClassificationName;
  allow_roles?: string[];
  deny_roles?: string[];
  context?: FactContext;
}
