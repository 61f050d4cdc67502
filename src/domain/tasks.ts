/** The kinds of task a request can declare; a fact may apply only to some of them. */
export const TASK_TYPES = [
  "code_generation",
  "analytical_reporting",
  "data_extraction",
  "system_orchestration",
] as const;
export type TaskTypeName = (typeof TASK_TYPES)[number];
