/** Where a fact event is kept: the project's persistent facts, or the thread's working set or environment. */
export const LAYERS = ["persistent", "working", "environment"] as const;
export type LayerName = (typeof LAYERS)[number];
