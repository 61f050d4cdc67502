/** Seed 001's lifecycle rules for a Context Object: how it fades and what happens once it is retired. */
export const RETIREMENT_RULES = [
  "archive",
  "hard_delete",
  "demote_to_archival",
  "trigger_user_confirmation",
] as const;
export type RetirementRuleName = (typeof RETIREMENT_RULES)[number];

export interface DecayRule {
  half_life_days: number;
  /** 0–1; relevance never decays below it. */
  minimum_threshold: number;
}
