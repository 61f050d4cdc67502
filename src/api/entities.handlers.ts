import { OpenAPIHono } from "@hono/zod-openapi";
import type { EntityStatus } from "../domain/entities";
import { decideReview, EditRefused, mergeEntities, splitEntity } from "../entities/entity-operations";
import { EntityRepository } from "../entities/entity-repository";
import type { EntityRow } from "../entities/entity-schema";
import { entityView, historyView, reviewView } from "../entities/entity-views";
import { normalizeName } from "../entities/names";
import type { Env } from "../env";
import { type AnnounceTo, announceRevision } from "../facts/fact-announcements";
import { viewFor } from "../facts/fact-reads";
import { FactRepository } from "../facts/fact-repository";
import { type FactGate, mayView } from "../facts/fact-visibility";
import { decodePosition, encodePosition, listIdentity } from "../http/cursor";
import { ProblemError } from "../http/problem";
import { validationHook } from "../http/validation-hook";
import type { TenantVariables } from "../tenancy/authenticate";
import type { Tenant } from "../tenancy/registry";
import { threadStub } from "../thread/thread-stub";
import {
  decideReviewRoute,
  getEntity,
  listEntities,
  listEntityMessages,
  listReviews,
  mergeEntity,
  splitEntityRoute,
} from "./entities.routes";
import { databasesFor, viewerGate } from "./read-scope";
import { DEFAULT_ENTITY_PAGE } from "./schemas/entities";

type AppEnv = { Bindings: Env; Variables: TenantVariables };

/** Facts listed on an entity's page at most; `facts_truncated` says when there are more. */
const ENTITY_FACTS = 100;
const ENTITY_HISTORY = 100;
/** Message references listed on an entity's page at most; `message_count` counts them all. */
const ENTITY_MESSAGES = 100;

/**
 * An entity edit changes how the project's facts compile (seed 001: a fact naming a pending entity is no
 * hard constraint until its review is decided), so it is announced like a fact write: the project's
 * revision moves on and the threads holding its facts search again at their next compile. The edit is
 * committed already: a failure here is logged, and the holders' recheck (30 s) covers it.
 */
async function announceEdit(env: Env, tenant: Tenant, entities: EntityRepository, projectId: string) {
  try {
    const repository = new FactRepository(entities.database);
    const written = await repository.touch(projectId);
    const announceTo: AnnounceTo = (name, thread, ...change) =>
      threadStub(env, name, thread).factsChanged(name, thread, ...change);
    await announceRevision(announceTo, tenant.name, projectId, written, async () => repository);
  } catch (error) {
    console.error("could not announce an entity edit", tenant.name, projectId, error);
  }
}

async function repositoriesFor(tenant: Tenant, projectId: string | undefined): Promise<EntityRepository[]> {
  return (await databasesFor(tenant, projectId)).map((database) => new EntityRepository(database));
}

const compareTuples = (a: readonly string[], b: readonly string[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as string) < (b[i] as string) ? -1 : 1;
  return 0;
};

/**
 * One page over one or several databases: each database's page after the cursor (one row more than the
 * limit), merged in the cursor's order and cut to the limit. A project lives in one database, so the
 * order is the same as over one.
 */
async function pageAcross<T>(
  repositories: EntityRepository[],
  read: (repository: EntityRepository, limit: number) => Promise<T[]>,
  position: (row: T) => string[],
  limit: number,
  list: string,
): Promise<{ rows: { row: T; repository: EntityRepository }[]; nextCursor: string | null }> {
  const pages = await Promise.all(
    repositories.map(async (repository) =>
      (await read(repository, limit + 1)).map((row) => ({ row, repository })),
    ),
  );
  const merged = pages.flat().sort((a, b) => compareTuples(position(a.row), position(b.row)));
  return cut(merged, limit, (r) => position(r.row), list);
}

/**
 * A page from `limit` + 1 rows read in the cursor's order: the first `limit`, and the cursor after them,
 * bound to its list (`listIdentity`).
 */
function cut<T>(read: T[], limit: number, position: (row: T) => string[], list: string) {
  const rows = read.slice(0, limit);
  const last = rows.at(-1);
  return { rows, nextCursor: read.length > limit && last ? encodePosition([...position(last), list]) : null };
}

const messageRefView = (m: { threadId: string; messageId: string; mention: string }) => ({
  thread_id: m.threadId,
  message_id: m.messageId,
  mention: m.mention,
});

/**
 * The position a list's cursor names (its shape validated by the query schema), as the list's own
 * fields; a cursor issued for another list (another entity, other filters) is a 400 naming it.
 */
function positionOf<T>(
  cursor: string | undefined,
  list: string,
  fields: (parts: [string, string, string]) => T,
): T | undefined {
  const parts = cursor ? decodePosition(cursor, 4) : undefined;
  if (!parts) return undefined;
  if (parts[3] !== list) {
    const message = "was not issued for this list (the same entity and filters)";
    throw new ProblemError(400, "Invalid request", "Invalid field(s): query.cursor", [
      { field: "query.cursor", message },
    ]);
  }
  return fields(parts as [string, string, string]);
}

/** The one row an id names across the databases asked: 404 when none, 409 when several projects have it. */
async function locate<T>(
  repositories: EntityRepository[],
  find: (repository: EntityRepository) => Promise<T[]>,
  what: string,
  id: string,
): Promise<{ row: T; repository: EntityRepository }> {
  const found = (
    await Promise.all(repositories.map(async (r) => (await find(r)).map((row) => ({ row, repository: r }))))
  ).flat();
  if (found.length === 0)
    throw new ProblemError(404, `${what} not found`, `No ${what.toLowerCase()} with id '${id}'.`);
  if (found.length > 1)
    throw new ProblemError(
      409,
      `Ambiguous ${what.toLowerCase()} id`,
      `'${id}' exists in several projects; pass project_id.`,
    );
  return found[0] as { row: T; repository: EntityRepository };
}

function refusal(error: unknown): never {
  if (!(error instanceof EditRefused)) throw error;
  const status = error.reason === "invalid" ? 400 : error.reason === "not_found" ? 404 : 409;
  const title =
    error.reason === "invalid"
      ? "Invalid request"
      : error.reason === "not_found"
        ? "Entity not found"
        : "Conflict";
  const errors = error.field !== undefined ? [{ field: error.field, message: error.message }] : undefined;
  throw new ProblemError(
    status,
    title,
    error.field && error.reason !== "conflict" ? `Invalid field(s): ${error.field}` : error.message,
    errors,
  );
}

async function namesOf(
  repository: EntityRepository,
  projectId: string,
  ids: string[],
): Promise<Map<string, string>> {
  const rows = await repository.byIds(projectId, [...new Set(ids)]);
  return new Map(rows.map((r) => [r.id, r.canonicalName]));
}

async function summary(repository: EntityRepository, row: EntityRow) {
  return entityView(row, await repository.aliases(row.projectId, row.id));
}

/**
 * An entity with its aliases, the facts that refer to it (as far as the viewer may see), history and
 * reviews. Facts are gated by the viewer and messages are not (a reference says which message names the
 * entity, not what it says), so a page read without a viewer says its facts were (`facts_filtered`):
 * an empty `facts` beside a long `messages` is then no sign the entity has no facts.
 */
async function detail(
  repository: EntityRepository,
  row: EntityRow,
  viewer: { gate: FactGate; anonymous: boolean },
) {
  const { gate } = viewer;
  const { projectId, id } = row;
  const [aliases, links, messages, messageCount, history, reviews] = await Promise.all([
    repository.aliases(projectId, id),
    repository.factLinks(projectId, id, ENTITY_FACTS + 1),
    repository.messageLinks(projectId, id, ENTITY_MESSAGES),
    repository.messageCount(projectId, id),
    repository.history(projectId, id, ENTITY_HISTORY),
    repository.reviewsOf(projectId, id),
  ]);
  const facts = await new FactRepository(repository.database).byIds(
    projectId,
    links.slice(0, ENTITY_FACTS).map((l) => l.factId),
  );
  const names = await namesOf(
    repository,
    projectId,
    reviews.flatMap((r) => [r.entityId, r.candidateId]),
  );
  return {
    ...entityView(row, aliases),
    facts: facts.filter((f) => mayView(f, gate)).map((f) => viewFor(f, gate)),
    facts_truncated: links.length > ENTITY_FACTS,
    facts_filtered: viewer.anonymous,
    messages: messages.map(messageRefView),
    message_count: messageCount,
    history: history.map(historyView),
    reviews: reviews.map((r) => reviewView(r, names)),
  };
}

/** The viewer an entity's page reads its facts as; anonymous when the request names none. */
const entityViewer = (tenant: Tenant, query: { as_user?: string; roles?: string }) => ({
  gate: viewerGate(tenant, query),
  anonymous: query.as_user === undefined && query.roles === undefined,
});

export const entityRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(listEntities, async (c) => {
    const query = c.req.valid("query");
    const tenant = c.get("tenant");
    const list = listIdentity([
      "entities",
      query.project_id,
      query.type,
      query.name === undefined ? undefined : normalizeName(query.name),
      query.status,
    ]);
    const after = positionOf(query.cursor, list, ([projectId, name, id]) => ({ projectId, name, id }));
    const statuses: EntityStatus[] = query.status ? [query.status] : ["active", "pending"];
    const filter = { projectId: query.project_id, type: query.type, name: query.name, statuses };
    const page = await pageAcross(
      await repositoriesFor(tenant, query.project_id),
      (repository, limit) => repository.page(filter, after, limit),
      (row) => [row.projectId, row.canonicalName, row.id],
      query.limit ? Number(query.limit) : DEFAULT_ENTITY_PAGE,
      list,
    );
    const views = await Promise.all(
      [...new Set(page.rows.map((r) => r.repository))].map(async (repository) => {
        const rows = page.rows.filter((r) => r.repository === repository).map((r) => r.row);
        const aliases = await repository.aliasesFor(rows.map((r) => ({ projectId: r.projectId, id: r.id })));
        return new Map(rows.map((row) => [row, entityView(row, aliases)]));
      }),
    );
    const byRow = new Map(views.flatMap((m) => [...m]));
    return c.json(
      { entities: page.rows.map((r) => byRow.get(r.row)), next_cursor: page.nextCursor } as never,
      200,
    );
  })
  .openapi(listReviews, async (c) => {
    const query = c.req.valid("query");
    const tenant = c.get("tenant");
    const filter = { projectId: query.project_id, status: query.status ?? ("open" as const) };
    const list = listIdentity(["reviews", filter.projectId, filter.status]);
    const after = positionOf(query.cursor, list, ([projectId, createdAt, id]) => ({
      projectId,
      createdAt,
      id,
    }));
    const page = await pageAcross(
      await repositoriesFor(tenant, query.project_id),
      (repository, limit) => repository.reviewPage(filter, after, limit),
      (row) => [row.projectId, row.createdAt, row.id],
      query.limit ? Number(query.limit) : DEFAULT_ENTITY_PAGE,
      list,
    );
    const reviews = await Promise.all(
      page.rows.map(async ({ row, repository }) =>
        reviewView(row, await namesOf(repository, row.projectId, [row.entityId, row.candidateId])),
      ),
    );
    return c.json({ reviews, next_cursor: page.nextCursor } as never, 200);
  })
  .openapi(decideReviewRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { project_id: projectId } = c.req.valid("query");
    const { decision, reason } = c.req.valid("json");
    const repositories = await repositoriesFor(c.get("tenant"), projectId);
    const { row, repository } = await locate(repositories, (r) => r.review(id, projectId), "Review", id);
    const resolved = await decideReview(repository, row, decision, reason ?? null).catch(refusal);
    await announceEdit(c.env, c.get("tenant"), repository, row.projectId);
    const [review] = await repository.review(id, row.projectId);
    const [entity] = await repository.byIds(row.projectId, [resolved]);
    if (!review || !entity) throw new ProblemError(404, "Review not found", `No review with id '${id}'.`);
    const names = await namesOf(repository, row.projectId, [review.entityId, review.candidateId]);
    return c.json(
      { review: reviewView(review, names), entity: await summary(repository, entity) } as never,
      200,
    );
  })
  .openapi(getEntity, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const tenant = c.get("tenant");
    const repositories = await repositoriesFor(tenant, query.project_id);
    const { row, repository } = await locate(repositories, (r) => r.find(id, query.project_id), "Entity", id);
    return c.json((await detail(repository, row, entityViewer(tenant, query))) as never, 200);
  })
  .openapi(listEntityMessages, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const repositories = await repositoriesFor(c.get("tenant"), query.project_id);
    const { row, repository } = await locate(repositories, (r) => r.find(id, query.project_id), "Entity", id);
    const list = listIdentity(["messages", row.projectId, row.id]);
    const after = positionOf(query.cursor, list, ([threadId, seq, mention]) => ({
      threadId,
      seq: Number(seq),
      mention,
    }));
    const limit = query.limit ? Number(query.limit) : DEFAULT_ENTITY_PAGE;
    const [read, count] = await Promise.all([
      repository.messageLinks(row.projectId, row.id, limit + 1, after),
      repository.messageCount(row.projectId, row.id),
    ]);
    const page = cut(read, limit, (m) => [m.threadId, String(m.seq), m.mention], list);
    return c.json(
      { messages: page.rows.map(messageRefView), message_count: count, next_cursor: page.nextCursor },
      200,
    );
  })
  .openapi(mergeEntity, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const projectId = query.project_id;
    const body = c.req.valid("json");
    const tenant = c.get("tenant");
    const repositories = await repositoriesFor(tenant, projectId);
    const { row, repository } = await locate(repositories, (r) => r.find(id, projectId), "Entity", id);
    await mergeEntities(repository, row, body.entity_id, {
      ...(body.reason ? { reason: body.reason } : {}),
      allowTypeChange: body.allow_type_change === true,
    }).catch(refusal);
    await announceEdit(c.env, tenant, repository, row.projectId);
    const [merged] = await repository.find(id, row.projectId);
    return c.json((await detail(repository, merged ?? row, entityViewer(tenant, query))) as never, 200);
  })
  .openapi(splitEntityRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { project_id: projectId } = c.req.valid("query");
    const body = c.req.valid("json");
    const repositories = await repositoriesFor(c.get("tenant"), projectId);
    const { row, repository } = await locate(repositories, (r) => r.find(id, projectId), "Entity", id);
    const createdId = await splitEntity(repository, row, body).catch(refusal);
    await announceEdit(c.env, c.get("tenant"), repository, row.projectId);
    const [entity, created] = await Promise.all([
      repository.find(id, row.projectId),
      repository.find(createdId, row.projectId),
    ]);
    if (!entity[0] || !created[0])
      throw new ProblemError(404, "Entity not found", `No entity with id '${id}'.`);
    return c.json(
      {
        entity: await summary(repository, entity[0]),
        created: await summary(repository, created[0]),
      } as never,
      201,
    );
  });
