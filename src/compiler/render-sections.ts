import type { Identity } from "../domain/identity";

/** Identity and the present moment are rendered per compile: they are small and `now` varies per request. */
export function identityLines(identity: Identity): string[] {
  const name = identity.user_name ? `${identity.user_name} (${identity.user_id})` : identity.user_id;
  const lines = [`User: ${name}`];
  if (identity.authority) lines.push(`Authority: ${identity.authority}`);
  if (identity.department) lines.push(`Department: ${identity.department}`);
  if (identity.organization) lines.push(`Organization: ${identity.organization}`);
  if (identity.roles?.length) lines.push(`Roles: ${identity.roles.join(", ")}`);
  if (identity.permissions?.length) lines.push(`Permissions: ${identity.permissions.join(", ")}`);
  return lines;
}

export const nowLine = (now: string) => `Now: ${now}`;
