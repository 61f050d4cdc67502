import { createRoute, z } from "@hono/zod-openapi";
import { FactHistory, FactList, FactQuery, ViewerQuery } from "./schemas/facts";
import { Problem } from "./schemas/problems";
import { TenantParams } from "./schemas/threads";

const problem = (description: string) => ({
  content: { "application/problem+json": { schema: Problem } },
  description,
});
const security = [{ bearer: [] }];

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
    400: problem("Invalid input"),
    401: problem("Missing or wrong tenant key, or unknown tenant (the two are not told apart)"),
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
    400: problem("Invalid input"),
    401: problem("Missing or wrong tenant key, or unknown tenant (the two are not told apart)"),
  },
});
