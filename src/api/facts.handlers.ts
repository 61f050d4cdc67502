import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "../env";
import { decodeCursor } from "../facts/fact-cursor";
import { historyFor, readFactPageAcross } from "../facts/fact-reads";
import { FactRepository } from "../facts/fact-repository";
import { toInstant } from "../facts/time";
import { ProblemError } from "../http/problem";
import { validationHook } from "../http/validation-hook";
import type { TenantVariables } from "../tenancy/authenticate";
import type { Tenant } from "../tenancy/registry";
import { getFactHistory, listFacts } from "./facts.routes";
import { databasesFor, viewerGate } from "./read-scope";
import { MAX_FACT_PAGE } from "./schemas/facts";

type AppEnv = { Bindings: Env; Variables: TenantVariables };

async function repositoriesFor(tenant: Tenant, projectId: string | undefined): Promise<FactRepository[]> {
  return (await databasesFor(tenant, projectId)).map((database) => new FactRepository(database));
}

export const factRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(getFactHistory, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const tenant = c.get("tenant");
    const gate = viewerGate(tenant, query);
    const notFound = () => new ProblemError(404, "Fact not found", `No fact with id '${id}'.`);
    const repositories = await repositoriesFor(tenant, query.project_id);
    const found = await Promise.all(
      repositories.map(async (repository) =>
        (await repository.byId(id, query.project_id)).map((fact) => ({ fact, repository })),
      ),
    );
    const matches = found.flat();
    if (matches.length === 0) throw notFound();
    if (matches.length > 1) {
      throw new ProblemError(
        409,
        "Ambiguous fact id",
        `'${id}' exists in several projects; pass project_id.`,
      );
    }
    const { fact, repository } = matches[0] as (typeof matches)[number];
    const history = historyFor(fact, await repository.lineage(fact.projectId, fact.lineageId), gate);
    if (!history) throw notFound();
    return c.json({ id, ...history } as never, 200);
  })
  .openapi(listFacts, async (c) => {
    const query = c.req.valid("query");
    const tenant = c.get("tenant");
    const page = await readFactPageAcross(
      await repositoriesFor(tenant, query.project_id),
      {
        key: query.key,
        projectId: query.project_id,
        asOf: query.as_of ? toInstant(query.as_of) : undefined,
        validAt: query.valid_at ? toInstant(query.valid_at) : undefined,
        history: query.include_history === "true",
        userId: query.as_user ?? null,
      },
      viewerGate(tenant, query),
      query.cursor ? decodeCursor(query.cursor) : undefined,
      query.limit ? Number(query.limit) : MAX_FACT_PAGE,
    );
    return c.json({ facts: page.facts, next_cursor: page.nextCursor } as never, 200);
  });
