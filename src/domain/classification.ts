/** Security classification, lowest first; a caller needs clearance for anything above public. */
export const CLASSIFICATIONS = ["public", "restricted", "confidential", "highly_restricted"] as const;
export type ClassificationName = (typeof CLASSIFICATIONS)[number];
