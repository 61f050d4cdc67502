import { DEFAULT_AUTHORITY_LADDER } from "../facts/authority";
import { factGate, type Viewer } from "../facts/fact-visibility";
import { projectDatabase } from "../tenancy/placement";
import type { Tenant } from "../tenancy/registry";

/** What the project-wide reads share: which databases a read asks, and whose eyes it reads with. */

/** The project's database when a read names one (never placing it), else every database of the tenant. */
export async function databasesFor(tenant: Tenant, projectId: string | undefined): Promise<D1Database[]> {
  return projectId ? [await projectDatabase(tenant, projectId, "read-only")] : [...tenant.databases.values()];
}

/** The viewer a read names (README "Who sees what in reads"), gated by the tenant's ladder. */
export function viewerGate(tenant: Tenant, query: { as_user?: string; roles?: string }) {
  const viewer: Viewer = {
    userId: query.as_user ?? null,
    roles: query.roles
      ? query.roles
          .split(",")
          .map((r) => r.trim())
          .filter(Boolean)
      : [],
  };
  return factGate(viewer, tenant.authority_ladder ?? DEFAULT_AUTHORITY_LADDER);
}
