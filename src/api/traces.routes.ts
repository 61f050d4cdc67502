import { createRoute } from "@hono/zod-openapi";
import { Problem } from "./schemas/problems";
import { TraceParams, TraceView } from "./schemas/traces";

const problem = (description: string) => ({
  content: { "application/problem+json": { schema: Problem } },
  description,
});

export const getTrace = createRoute({
  method: "get",
  path: "/traces/{trace_id}",
  summary: "The stored trace of one compile: what was compiled, omitted and quarantined, and why",
  security: [{ bearer: [] }],
  request: { params: TraceParams },
  responses: {
    200: { content: { "application/json": { schema: TraceView } }, description: "The compile's trace" },
    400: problem("Malformed trace id; `errors` names the field"),
    401: problem("Missing or wrong tenant key, or unknown tenant (the two are not told apart)"),
    404: problem(
      "No trace with this id for this tenant (traces are kept the tenant's `trace_retention_days`, 30 by default)",
    ),
  },
});
