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
 * Compared against when the tenant is unknown, so that a request for an unknown tenant hashes and
 * compares its key exactly as one for a known tenant does. No key hashes to it in practice.
 */
const NO_TENANT_KEY_SHA256 = "0".repeat(64);

/**
 * The one answer to every key that does not open the named tenant. An unknown tenant and a wrong
 * key for a known one must look the same (status, body and, as far as we can make it, timing), or
 * the answer tells a caller without a key which tenants exist.
 */
const refused = () =>
  new ProblemError(401, "Unauthorized", "The key does not open this tenant, or there is no such tenant.");

/**
 * Resolves `:tenant` and checks its key. Everything downstream reads the tenant from the context
 * variable set here, never from the path, so storage names always derive from an authenticated tenant.
 * The checks that do not depend on the tenant come first, so their answers say nothing about it.
 */
export const authenticateTenant = createMiddleware<{ Bindings: Env; Variables: TenantVariables }>(
  async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    if (!token) throw new ProblemError(401, "Unauthorized", "Missing 'Authorization: Bearer <key>' header.");
    if (token === LOCAL_DEV_KEY && c.env.TENURE_ENV !== "local") {
      throw new ProblemError(401, "Unauthorized", "The local development key is refused outside local mode.");
    }
    const tenant = lookupTenant(c.env, c.req.param("tenant") ?? "");
    const matches = await keyMatches(token, tenant?.key_sha256 ?? NO_TENANT_KEY_SHA256);
    if (!tenant || !matches) throw refused();
    c.set("tenant", tenant);
    await next();
  },
);
