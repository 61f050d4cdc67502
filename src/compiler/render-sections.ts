import type { IdentityInput } from "../api/schemas";

/** Identity and environment are rendered per compile: they are small and `now` varies per request. */
export function identityLines(identity: IdentityInput): string[] {
  const name = identity.user_name ? `${identity.user_name} (${identity.user_id})` : identity.user_id;
  const lines = [`User: ${name}`];
  if (identity.authority) lines.push(`Authority: ${identity.authority}`);
  if (identity.department) lines.push(`Department: ${identity.department}`);
  if (identity.organization) lines.push(`Organization: ${identity.organization}`);
  if (identity.roles?.length) lines.push(`Roles: ${identity.roles.join(", ")}`);
  if (identity.permissions?.length) lines.push(`Permissions: ${identity.permissions.join(", ")}`);
  return lines;
}

export function environmentLines(environment: Record<string, unknown>, now: string): string[] {
  const lines = [`Now: ${now}`];
  for (const [key, value] of Object.entries(environment)) {
    if (key === "now" || value === undefined || value === null) continue;
    lines.push(`${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
  }
  return lines;
}

export const SECTION_TITLES = {
  identity: "## Identity",
  environment: "## Environment",
  facts: "## Current facts",
  state: "## State",
  working: "## Working set",
  episodes: "## Relevant earlier conversation",
  messages: "## Recent messages",
} as const;

export type SectionName = keyof typeof SECTION_TITLES;

export function renderContext(sections: { name: SectionName; lines: string[] }[]): string {
  return sections
    .filter((s) => s.lines.length > 0)
    .map((s) => [SECTION_TITLES[s.name], ...s.lines].join("\n"))
    .join("\n\n");
}
