import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { ENTITY_EVENTS, ENTITY_STATUSES, ENTITY_TYPES, REVIEW_STATUSES } from "../domain/entities";

/**
 * Seed 001's canonical entity registry, one per project, in the project's D1 database (beside its
 * facts). Written by resolution on the fact write path (src/entities/resolve-on-write.ts) and by the
 * registry routes (merge, split, review); read by both and by GET /entities.
 */

/** One row per canonical entity, pending node, or merged (absorbed) entity kept for audit. */
export const entities = sqliteTable(
  "entities",
  {
    projectId: text("project_id").notNull(),
    id: text("id").notNull(),
    canonicalName: text("canonical_name").notNull(),
    entityType: text("entity_type", { enum: ENTITY_TYPES }).notNull(),
    status: text("status", { enum: ENTITY_STATUSES }).notNull(),
    /** For a merged entity: the entity it was merged into. */
    mergedInto: text("merged_into"),
    /** Identifying metadata (email, handle, document id, path, user id, roles), as JSON. */
    metadataJson: text("metadata_json").notNull().default("{}"),
    /** Who first referred to it (thread, user, fact, origin): scope and provenance, as JSON. */
    provenanceJson: text("provenance_json").notNull().default("{}"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.id] }),
    index("entities_project_name").on(t.projectId, t.canonicalName, t.id),
    index("entities_project_type_name").on(t.projectId, t.entityType, t.canonicalName, t.id),
  ],
);

/** Every name an entity goes by, with its normal form (src/entities/names.ts) and where it came from. */
export const entityAliases = sqliteTable(
  "entity_aliases",
  {
    projectId: text("project_id").notNull(),
    entityId: text("entity_id").notNull(),
    alias: text("alias").notNull(),
    norm: text("norm").notNull(),
    source: text("source").notNull(),
    addedAt: text("added_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.entityId, t.norm] }),
    index("entity_aliases_norm").on(t.projectId, t.norm),
  ],
);

/**
 * The candidate index (src/entities/resolution/terms.ts): each term an entity is found under, and the
 * alias it comes from ("" for metadata), so a split moves an alias's terms with it.
 */
export const entityTerms = sqliteTable(
  "entity_terms",
  {
    projectId: text("project_id").notNull(),
    term: text("term").notNull(),
    entityId: text("entity_id").notNull(),
    norm: text("norm").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.term, t.entityId, t.norm] }),
    index("entity_terms_entity").on(t.projectId, t.entityId),
  ],
);

/** Which entities a fact version refers to, by the normal name it used (a split moves facts by name). */
export const factEntities = sqliteTable(
  "fact_entities",
  {
    projectId: text("project_id").notNull(),
    factId: text("fact_id").notNull(),
    mention: text("mention").notNull(),
    entityId: text("entity_id").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.factId, t.mention] }),
    index("fact_entities_entity").on(t.projectId, t.entityId, t.factId),
  ],
);

/**
 * Which entities a thread's message (a user or assistant turn, or tool output) refers to, by the normal
 * name it used (a split moves references by name, as for facts). Keyed by the message and the name, so a
 * message read again (a redelivered or redone extraction run) adds nothing; read by entity, for an
 * entity's page and for a compile of the thread whose question names the entity.
 */
export const messageEntities = sqliteTable(
  "message_entities",
  {
    projectId: text("project_id").notNull(),
    threadId: text("thread_id").notNull(),
    messageId: text("message_id").notNull(),
    mention: text("mention").notNull(),
    entityId: text("entity_id").notNull(),
    /** Arrival order of the message in its thread: the newest references are listed first. */
    seq: integer("seq").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.threadId, t.messageId, t.mention] }),
    index("message_entities_entity").on(t.projectId, t.entityId, t.threadId, t.seq),
  ],
);

/** Ambiguous matches awaiting a decision: the pending node, the entity it may be, and why. */
export const entityReviews = sqliteTable(
  "entity_reviews",
  {
    projectId: text("project_id").notNull(),
    id: text("id").notNull(),
    entityId: text("entity_id").notNull(),
    candidateId: text("candidate_id").notNull(),
    runnerUpId: text("runner_up_id"),
    score: real("score").notNull(),
    featuresJson: text("features_json").notNull(),
    status: text("status", { enum: REVIEW_STATUSES }).notNull(),
    reason: text("reason"),
    createdAt: text("created_at").notNull(),
    decidedAt: text("decided_at"),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.id] }),
    index("entity_reviews_status").on(t.projectId, t.status, t.createdAt, t.id),
  ],
);

/** The audit trail: creation, aliases, pending, merges, splits and review decisions, per entity. */
export const entityHistory = sqliteTable(
  "entity_history",
  {
    projectId: text("project_id").notNull(),
    id: text("id").notNull(),
    entityId: text("entity_id").notNull(),
    event: text("event", { enum: ENTITY_EVENTS }).notNull(),
    otherId: text("other_id"),
    detailJson: text("detail_json").notNull().default("{}"),
    at: text("at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.id] }),
    index("entity_history_entity").on(t.projectId, t.entityId, t.at),
  ],
);

/**
 * A registry batch's guard, as fact_plan_checks is for facts: after each guarded update the batch
 * writes `changes()` here, and the CHECK rolls the whole batch back when the update matched nothing
 * (another request merged, split or decided first).
 */
export const entityGuards = sqliteTable(
  "entity_guards",
  {
    id: integer("id").primaryKey(),
    matched: integer("matched").notNull(),
  },
  (t) => [check("entity_guard_stale", sql`${t.matched} = 1`)],
);

export type EntityRow = typeof entities.$inferSelect;
export type EntityAliasRow = typeof entityAliases.$inferSelect;
export type EntityReviewRow = typeof entityReviews.$inferSelect;
export type EntityHistoryRow = typeof entityHistory.$inferSelect;
export type MessageEntityRow = typeof messageEntities.$inferSelect;
