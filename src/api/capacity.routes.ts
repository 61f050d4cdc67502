import { createRoute } from "@hono/zod-openapi";
import { CapacityView } from "./schemas/capacity";
import { Problem } from "./schemas/problems";

export const getCapacity = createRoute({
  method: "get",
  path: "/capacity",
  summary: "How full each of the tenant's D1 databases is, and what to provision before one fills",
  security: [{ bearer: [] }],
  responses: {
    200: { content: { "application/json": { schema: CapacityView } }, description: "The tenant's databases" },
    401: {
      content: { "application/problem+json": { schema: Problem } },
      description: "Missing or wrong tenant key, or unknown tenant (the two are not told apart)",
    },
  },
});
