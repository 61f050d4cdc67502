import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "../env";
import { ProblemError } from "../http/problem";
import { validationHook } from "../http/validation-hook";
import type { TenantVariables } from "../tenancy/authenticate";
import { traceViewFrom } from "../traces/trace-record";
import { TraceRepository } from "../traces/trace-repository";
import { getTrace } from "./traces.routes";

type AppEnv = { Bindings: Env; Variables: TenantVariables };

export const traceRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(
  getTrace,
  async (c) => {
    const tenant = c.get("tenant");
    // ULIDs are case-insensitive; they are issued and stored upper-case.
    const traceId = c.req.valid("param").trace_id.toUpperCase();
    // A trace is stored with its project, in whichever of the tenant's databases holds it.
    const found = await Promise.all(
      [...tenant.databases.values()].map((database) =>
        new TraceRepository(database).find(tenant.name, traceId),
      ),
    );
    const row = found.find((r) => r !== undefined && r !== null);
    if (!row) throw new ProblemError(404, "Trace not found", `No trace '${traceId}' in this tenant.`);
    return c.json(await traceViewFrom(row), 200);
  },
);
