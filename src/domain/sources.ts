/** Who stated a fact. Tool and external sources are untrusted: their payloads are compiled as data. */
export const SOURCE_TYPES = ["user", "system", "tool", "external", "policy", "conversation"] as const;
export type SourceTypeName = (typeof SOURCE_TYPES)[number];
