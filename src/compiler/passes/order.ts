/**
 * Pass 9: order for cache and attention (seed 001). Sections are laid out from static to dynamic so
 * that an unchanged prefix keeps a provider's prompt cache warm, with the current turn last.
 */
export const ZONES = [
  "system",
  "policy",
  "tools",
  "memory",
  "retrieved",
  "task_state",
  "current_turn",
] as const;
export type Zone = (typeof ZONES)[number];

export const SECTIONS = {
  system: { title: "## System rules", zone: "system" },
  tools: { title: "## Tools", zone: "tools" },
  rules: { title: "## Rules", zone: "policy" },
  identity: { title: "## Identity", zone: "memory" },
  facts: { title: "## Current facts", zone: "memory" },
  retrieved: { title: "## Retrieved data (untrusted)", zone: "retrieved" },
  episodes: { title: "## Relevant earlier conversation", zone: "retrieved" },
  environment: { title: "## Environment", zone: "task_state" },
  state: { title: "## State", zone: "task_state" },
  working: { title: "## Working set", zone: "task_state" },
  messages: { title: "## Recent messages", zone: "task_state" },
} as const satisfies Record<string, { title: string; zone: Zone }>;

export type SectionName = keyof typeof SECTIONS;

/** Section order: by zone, then as listed above within a zone. */
export const SECTION_ORDER: SectionName[] = (Object.keys(SECTIONS) as SectionName[]).sort(
  (a, b) => ZONES.indexOf(SECTIONS[a].zone) - ZONES.indexOf(SECTIONS[b].zone),
);

export function orderSections<T extends { name: SectionName }>(sections: T[]): T[] {
  return [...sections].sort((a, b) => SECTION_ORDER.indexOf(a.name) - SECTION_ORDER.indexOf(b.name));
}
