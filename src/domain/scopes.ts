/** Where a fact, item or message holds: everywhere, or only inside one task, hypothetical, draft or session. */
export const SCOPES = ["global", "task", "hypothetical", "draft", "session"] as const;
export type ScopeName = (typeof SCOPES)[number];
