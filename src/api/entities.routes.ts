import { createRoute } from "@hono/zod-openapi";
import { bodyErrors, invalidInput, json, problem, security, storageFull, unauthorized } from "./route-parts";
import {
  EntityDetail,
  EntityDetailQuery,
  EntityList,
  EntityListQuery,
  EntityMessageList,
  EntityMessagesQuery,
  EntityParams,
  MergeBody,
  ProjectQuery,
  ReviewDecisionBody,
  ReviewDecisionResult,
  ReviewList,
  ReviewListQuery,
  SplitBody,
  SplitResult,
} from "./schemas/entities";
import { TenantParams } from "./schemas/threads";

const body = <T>(schema: T) => ({ body: { content: { "application/json": { schema } }, required: true } });
const errors = { 400: invalidInput, 401: unauthorized };
const lookupErrors = {
  ...errors,
  404: problem("No such entity (or review)"),
  409: problem("The id exists in several projects (pass project_id)"),
};
/** An edit's answers besides its own: the lookup's, its conflicts, and a JSON body's. */
const editErrors = (conflicts: string) => ({
  ...lookupErrors,
  409: problem(
    `The id exists in several projects (pass project_id), ${conflicts}, or another request changed it first`,
  ),
  ...bodyErrors,
  ...storageFull,
});

export const listEntities = createRoute({
  method: "get",
  path: "/entities",
  summary:
    "Canonical entities of a project (or of every project), by name, filtered by type, name and status",
  security,
  request: { params: TenantParams, query: EntityListQuery },
  responses: { 200: json(EntityList, "A page of entities"), ...errors },
});

export const listReviews = createRoute({
  method: "get",
  path: "/entities/review",
  summary: "Review items: ambiguous matches held as pending nodes until accepted or rejected",
  security,
  request: { params: TenantParams, query: ReviewListQuery },
  responses: { 200: json(ReviewList, "A page of reviews, oldest first"), ...errors },
});

export const decideReviewRoute = createRoute({
  method: "post",
  path: "/entities/review/{id}",
  summary: "Accept (merge the pending node into the candidate) or reject (keep it apart) a review",
  security,
  request: { params: EntityParams, query: EntityDetailQuery, ...body(ReviewDecisionBody) },
  responses: {
    200: json(ReviewDecisionResult, "The decided review and the entity it resolves to"),
    ...editErrors("the review was decided already (or its candidate is gone)"),
  },
});

export const getEntity = createRoute({
  method: "get",
  path: "/entities/{id}",
  summary:
    "One entity: its aliases, the facts that refer to it (as far as the viewer may see), history and reviews",
  security,
  request: { params: EntityParams, query: EntityDetailQuery },
  responses: { 200: json(EntityDetail, "The entity"), ...lookupErrors },
});

export const listEntityMessages = createRoute({
  method: "get",
  path: "/entities/{id}/messages",
  summary:
    "Every message and tool output that refers to one entity, by thread and newest first in each, in pages",
  security,
  request: { params: EntityParams, query: EntityMessagesQuery },
  responses: { 200: json(EntityMessageList, "A page of message references"), ...lookupErrors },
});

export const mergeEntity = createRoute({
  method: "post",
  path: "/entities/{id}/merge",
  summary: "Merge another entity of the same project into this one (it is kept, with status `merged`)",
  security,
  request: { params: EntityParams, query: EntityDetailQuery, ...body(MergeBody) },
  responses: {
    200: json(EntityDetail, "The entity after the merge"),
    ...editErrors(
      "either entity was merged already, the other is of an unrelated type (`entity_id`; pass `allow_type_change`)",
    ),
  },
});

export const splitEntityRoute = createRoute({
  method: "post",
  path: "/entities/{id}/split",
  summary: "Move some of this entity's aliases, and the facts that used them, to a new entity",
  security,
  request: { params: EntityParams, query: ProjectQuery, ...body(SplitBody) },
  responses: {
    201: json(SplitResult, "This entity and the new one"),
    ...editErrors("the entity was merged"),
  },
});
