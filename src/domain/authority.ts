/** Seed 001's authority scale: 0 platform rules, 1 developer rules, 2 user constraints, 3 inferred memory, 4 retrieved data and tool payloads. */
export const AUTHORITY_LEVELS = [0, 1, 2, 3, 4] as const;
export type AuthorityLevel = (typeof AUTHORITY_LEVELS)[number];
