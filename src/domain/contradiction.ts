/** Where a fact or object stands against the claims that contradict it. */
export const CONTRADICTION_STATUSES = ["clean", "disputed", "overridden", "quarantined"] as const;
export type ContradictionStatusName = (typeof CONTRADICTION_STATUSES)[number];
