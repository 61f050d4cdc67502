import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "../env";
import { DEFAULT_AUTHORITY_LADDER } from "../facts/authority";
import { decodeCursor } from "../facts/fact-cursor";
import { historyFor, readFactPageAcross } from "../facts/fact-reads";
import { FactRepository } from "../facts/fact-repository";
import { factGate, type Viewer } from "../facts/fact-visibility";
import { toInstant } from "../facts/time";
import { ProblemError } from "../http/problem";
import { validationHook } from "../http/validation-hook";
import type { TenantVariables } from "../tenancy/authenticate";
import { projectDatabase } from "../tenancy/placement";
import type { Tenant } from "../tenancy/registry";
import { getFactHistory, listFacts } from "./facts.routes";
import { MAX_FACT_PAGE } from "./schemas/facts";

type AppEnv = { Bindings: Env; Variables: TenantVariables };

/** The project's database when a read names one, else every database of the tenant. */
async function repositoriesFor(tenant: Tenant, projectId: string | undefined): Promise<FactRepository[]> {
  const databases = projectId
    ? [await projectDatabase(tenant, projectId, "read-only")]
    : [...tenant.databases.values()];
  return databases.map((database) => new FactRepository(database));
}

/** The viewer a read names (README "Who sees what in reads"), gated by the tenant's ladder. */
function gateOf(tenant: Tenant, query: { as_user?: string; roles?: string }) {
  const viewer: Viewer = {
    userId: query.as_user ?? null,
    roles: query.roles
      ? query.roles
          .split(",")
          .map((r) => r.trim())
          .filter(Boolean)
      : [],
  };
  return factGate(viewer, tenant.authority_ladder ?? DEFAULT_AUTHORITY_LADDER);
}

export const factRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(getFactHistory, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const tenant = c.get("tenant");
    const gate = gateOf(tenant, query);
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
      gateOf(tenant, query),
      query.cursor ? decodeCursor(query.cursor) : undefined,
      query.limit ? Number(query.limit) : MAX_FACT_PAGE,
    );
    return c.json({ facts: page.facts, next_cursor: page.nextCursor } as never, 200);
  });
