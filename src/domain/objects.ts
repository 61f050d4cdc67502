/**
 * Seed 001's bounded vocabulary for Context Objects, the compiler's unit: what an object is
 * (`ObjectTypeName`) and which store it came from (`ObjectKindName`).
 */
export const OBJECT_TYPES = [
  "preference",
  "identity_fact",
  "project_decision",
  "retrieved_passage",
  "policy_rule",
  "tool_schema",
  "inferred_belief",
  "actionable_constraint",
  // Additions to seed 001's list, for sources the seed does not name: raw turns and monitored signals.
  "conversation_turn",
  "environment_signal",
] as const;
export type ObjectTypeName = (typeof OBJECT_TYPES)[number];

export const OBJECT_KINDS = ["identity", "environment", "fact", "state_item", "working", "message"] as const;
export type ObjectKindName = (typeof OBJECT_KINDS)[number];
