import { createRoute, z } from "@hono/zod-openapi";
import { invalidInput, problem, security, unauthorized } from "./route-parts";
import { FactHistory, FactList, FactQuery, ViewerQuery } from "./schemas/facts";
import { TenantParams } from "./schemas/threads";

export const getFactHistory = createRoute({
  method: "get",
  path: "/facts/{id}/history",
  summary: "Every version of a fact and its supersession chain, as far as the viewer may see",
  security,
  request: {
    params: TenantParams.extend({
      id: z
        .string()
        .min(1)
        .max(200)
        .openapi({ param: { name: "id", in: "path" } }),
    }),
    query: ViewerQuery.extend({ project_id: z.string().min(1).max(128).optional() }),
  },
  responses: {
    200: { content: { "application/json": { schema: FactHistory } }, description: "The fact's lineage" },
    400: invalidInput,
    401: unauthorized,
    404: problem("No such fact"),
    409: problem("The id exists in several projects; pass project_id"),
  },
});

export const listFacts = createRoute({
  method: "get",
  path: "/facts",
  summary: "Facts, current or as of a transaction time and/or valid time",
  security,
  request: { params: TenantParams, query: FactQuery },
  responses: {
    200: { content: { "application/json": { schema: FactList } }, description: "Matching fact versions" },
    400: invalidInput,
    401: unauthorized,
  },
});
