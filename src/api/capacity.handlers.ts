import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "../env";
import { validationHook } from "../http/validation-hook";
import type { TenantVariables } from "../tenancy/authenticate";
import { tenantCapacity } from "../tenancy/capacity";
import { getCapacity } from "./capacity.routes";

type AppEnv = { Bindings: Env; Variables: TenantVariables };

export const capacityRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  getCapacity,
  async (c) => c.json(await tenantCapacity(c.get("tenant")), 200),
);
