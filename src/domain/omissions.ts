/** Why a candidate was left out of a compiled context; every omission in a trace names one. */
export const OMIT_REASONS = [
  "superseded",
  "out_of_scope",
  "not_permitted",
  "over_budget",
  "irrelevant",
  "expired",
  "disputed",
  "overridden",
  "quarantined",
  "duplicate",
] as const;
export type OmitReasonName = (typeof OMIT_REASONS)[number];
