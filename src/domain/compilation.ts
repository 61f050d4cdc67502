/** How the compiler places an object: its priority, the form it is phrased in, and how much of it is shown. */
export const PRIORITY_TIERS = ["critical", "important", "useful", "minimal", "irrelevant"] as const;
export type PriorityTierName = (typeof PRIORITY_TIERS)[number];

/** Seed 001's fact-to-instruction ladder, level 0 to 5. */
export const COMPILED_AS = [
  "raw_observation",
  "normalized_fact",
  "scoped_memory",
  "task_context",
  "behavioral_guidance",
  "hard_constraint",
] as const;
export type CompiledAsName = (typeof COMPILED_AS)[number];

/** Seed 004's detail levels: the full text, or the summary or micro form computed at write time. */
export const DETAIL_LEVELS = ["full", "summary", "micro", "excerpt"] as const;
export type DetailLevelName = (typeof DETAIL_LEVELS)[number];
