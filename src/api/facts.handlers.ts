import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "../env";
import { FactRepository } from "../facts/fact-repository";
import { toFactView } from "../facts/fact-view";
import { believedAt, currentFacts, trueAt } from "../facts/temporal";
import { toInstant } from "../facts/time";
import { ProblemError } from "../http/problem";
import { validationHook } from "../http/validation-hook";
import type { TenantVariables } from "../tenancy/authenticate";
import { getFactHistory, listFacts } from "./facts.routes";

type AppEnv = { Bindings: Env; Variables: TenantVariables };

export const factRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(getFactHistory, async (c) => {
    const { id } = c.req.valid("param");
    const { project_id } = c.req.valid("query");
    const repository = new FactRepository(c.get("tenant").database);
    const matches = await repository.byId(id, project_id);
    if (matches.length === 0) throw new ProblemError(404, "Fact not found", `No fact with id '${id}'.`);
    if (matches.length > 1) {
      throw new ProblemError(
        409,
        "Ambiguous fact id",
        `'${id}' exists in several projects; pass project_id.`,
      );
    }
    const fact = matches[0] as (typeof matches)[number];
    const versions = await repository.lineage(fact.projectId, fact.lineageId);
    const chain: string[] = [];
    const byId = new Map(versions.map((v) => [v.id, v]));
    let cursor = versions.find((v) => v.supersedes === null && v.contradictionStatus !== "disputed") ?? fact;
    while (cursor && !chain.includes(cursor.id)) {
      chain.push(cursor.id);
      cursor = cursor.supersededBy ? (byId.get(cursor.supersededBy) as typeof cursor) : (undefined as never);
    }
    const current = currentFacts(versions)[0] ?? null;
    return c.json(
      { id, current: current && toFactView(current), chain, versions: versions.map(toFactView) } as never,
      200,
    );
  })
  .openapi(listFacts, async (c) => {
    const query = c.req.valid("query");
    const rows = await new FactRepository(c.get("tenant").database).search({
      key: query.key,
      projectId: query.project_id,
    });
    const asOf = query.as_of ? toInstant(query.as_of) : undefined;
    const validAt = query.valid_at ? toInstant(query.valid_at) : undefined;
    let selected = rows;
    if (validAt) selected = trueAt(rows, validAt, asOf);
    else if (asOf) selected = believedAt(rows, asOf);
    else if (query.include_history !== "true") selected = currentFacts(rows);
    return c.json({ facts: selected.map(toFactView) } as never, 200);
  });
