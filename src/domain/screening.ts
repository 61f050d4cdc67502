/** Why screening held a user turn back (see src/screening/screen-turn.ts for the rules). */
export const SCREEN_KINDS = [
  "instruction_override",
  "identity_mismatch",
  "cross_org_request",
  "unrecorded_reference",
] as const;
export type ScreenKind = (typeof SCREEN_KINDS)[number];
