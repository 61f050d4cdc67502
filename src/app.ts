import { swaggerUI } from "@hono/swagger-ui";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { capacityRoutes } from "./api/capacity.handlers";
import { entityRoutes } from "./api/entities.handlers";
import { factRoutes } from "./api/facts.handlers";
import { threadRoutes } from "./api/threads.handlers";
import { traceRoutes } from "./api/traces.handlers";
import type { Env } from "./env";
import { bodyLimits } from "./http/body-limits";
import { ProblemError, problemResponse } from "./http/problem";
import { validationHook } from "./http/validation-hook";
import { authenticateTenant, type TenantVariables } from "./tenancy/authenticate";
import { fullStore, storageFullDetail } from "./tenancy/storage-full";

type AppEnv = { Bindings: Env; Variables: TenantVariables };

/**
 * The tenant router: every route below /v1/tenants/:tenant runs after tenant authentication, and
 * reads its body only through the size and depth limits (so an unauthenticated body is never read).
 */
function tenantRouter() {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  router.use("*", authenticateTenant);
  router.use("*", bodyLimits);
  router.route("/", threadRoutes);
  router.route("/", factRoutes);
  router.route("/", traceRoutes);
  router.route("/", entityRoutes);
  router.route("/", capacityRoutes);
  return router;
}

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.route("/v1/tenants/:tenant", tenantRouter());

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Tenure",
      version: "0.1.0",
      description:
        "State and context service for AI agents. Every route under /v1/tenants/{tenant} needs the tenant's key.",
    },
  });
  app.get("/docs", swaggerUI({ url: "/openapi.json" }));

  app.notFound((c) =>
    problemResponse(c, new ProblemError(404, "Not found", `No route for ${c.req.method} ${c.req.path}.`)),
  );
  app.onError((error, c) => {
    if (error instanceof ProblemError) return problemResponse(c, error);
    // Hono's own 4xx (such as an unparseable JSON body); matched by shape because the validator
    // package may carry its own copy of the class.
    const status = (error as Partial<HTTPException>).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      // Named as the whole body, like every other problem: clients read one shape.
      const message = error.message || "Bad request";
      return problemResponse(
        c,
        new ProblemError(status as ContentfulStatusCode, message, undefined, [{ field: "", message }]),
      );
    }
    // A store with no room left is not a fault of this service's: the client is told what was not
    // stored and the operator what to do, as a 507 rather than an anonymous 500.
    const full = fullStore(error);
    if (full) {
      console.error("a write did not fit its store", error);
      return problemResponse(c, new ProblemError(507, "Insufficient storage", storageFullDetail(full)));
    }
    console.error("unhandled error", error);
    return problemResponse(c, new ProblemError(500, "Internal error", "The request could not be completed."));
  });
  return app;
}
