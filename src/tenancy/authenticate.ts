import { createMiddleware } from "hono/factory";
import type { Env } from "../env";
import { ProblemError } from "../http/problem";
import { keyMatches, LOCAL_DEV_KEY } from "./keys";
import { lookupTenant, type Tenant } from "./registry";

export type TenantVariables = { tenant: Tenant };

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/**
 * Resolves `:tenant` and checks its key. Everything downstream reads the tenant from the context
 * variable set here, never from the path, so storage names always derive from an authenticated tenant.
 */
export const authenticateTenant = createMiddleware<{ Bindings: Env; Variables: TenantVariables }>(
  async (c, next) => {
    const name = c.req.param("tenant") ?? "";
    const tenant = lookupTenant(c.env, name);
    if (!tenant) throw new ProblemError(404, "Unknown tenant", `No tenant named '${name}'.`);
    const token = bearerToken(c.req.header("authorization"));
    if (!token) throw new ProblemError(401, "Unauthorized", "Missing 'Authorization: Bearer <key>' header.");
    if (token === LOCAL_DEV_KEY && c.env.TENURE_ENV !== "local") {
      throw new ProblemError(401, "Unauthorized", "The local development key is refused outside local mode.");
    }
    if (!(await keyMatches(token, tenant.key_sha256))) {
      throw new ProblemError(401, "Unauthorized", "The key does not match this tenant.");
    }
    c.set("tenant", tenant);
    await next();
  },
);
