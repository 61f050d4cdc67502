import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { CLASSIFICATIONS } from "../domain/classification";
import { CONTRADICTION_STATUSES } from "../domain/contradiction";
import type { FactVersion } from "../domain/fact-version";
import { MEMORY_TYPES } from "../domain/facts";
import { SCOPES } from "../domain/scopes";
import type { SameType } from "../domain/type-checks";

/**
 * One row per fact version. Content columns are never rewritten: a change closes the old version's
 * transaction window (tx_end) and links it to its successor, and a new row carries the new value.
 */
export const facts = sqliteTable(
  "facts",
  {
    projectId: text("project_id").notNull(),
    id: text("id").notNull(),
    lineageId: text("lineage_id").notNull(),
    key: text("key").notNull(),
    valueJson: text("value_json").notNull(),
    content: text("content").notNull(),
    tokens: integer("tokens").notNull(),
    memoryType: text("memory_type", { enum: MEMORY_TYPES }).notNull(),
    userId: text("user_id"),
    threadId: text("thread_id").notNull(),
    sourceType: text("source_type").notNull(),
    sourceAuthority: text("source_authority"),
    sourceIdentity: text("source_identity"),
    authorityRank: integer("authority_rank").notNull(),
    scope: text("scope", { enum: SCOPES }).notNull(),
    scopeId: text("scope_id"),
    supersedes: text("supersedes"),
    supersededBy: text("superseded_by"),
    isValid: integer("is_valid", { mode: "boolean" }).notNull(),
    contradictionStatus: text("contradiction_status", { enum: CONTRADICTION_STATUSES }).notNull(),
    statusReason: text("status_reason"),
    dependsOnJson: text("depends_on_json").notNull(),
    needsReview: integer("needs_review", { mode: "boolean" }).notNull(),
    isConstraint: integer("is_constraint", { mode: "boolean" }).notNull(),
    constraintType: text("constraint_type"),
    classification: text("classification", { enum: CLASSIFICATIONS }).notNull(),
    allowRolesJson: text("allow_roles_json").notNull(),
    denyRolesJson: text("deny_roles_json").notNull(),
    validFrom: text("valid_from").notNull(),
    validUntil: text("valid_until"),
    txStart: text("tx_start").notNull(),
    txEnd: text("tx_end"),
    // Seed 004's detail levels, computed once at write time; empty on rows written before they existed.
    summary: text("summary").notNull().default(""),
    summaryTokens: integer("summary_tokens").notNull().default(0),
    micro: text("micro").notNull().default(""),
    microTokens: integer("micro_tokens").notNull().default(0),
    /** Context Object metadata the client stated (FactContextFields), as JSON. */
    contextJson: text("context_json").notNull().default("{}"),
    /**
     * The project revision (fact_revisions) of the write that last inserted or changed this row, so a
     * reader holding revision N can fetch exactly the rows changed since. Bookkeeping, not part of a fact.
     */
    revision: integer("revision").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.id] }),
    index("facts_project_key").on(t.projectId, t.key),
    index("facts_project_current").on(t.projectId, t.txEnd),
    index("facts_project_lineage").on(t.projectId, t.lineageId),
    index("facts_project_revision").on(t.projectId, t.revision),
    index("facts_project_tx_start").on(t.projectId, t.txStart),
    // A thread's own current facts, newest first (fact-candidates.ts `thread`).
    index("facts_project_thread").on(t.projectId, t.threadId, t.txStart),
    // The few versions that refer to another, by slot: a search follows a chain of references through
    // these rather than every version of every slot it found (fact-repository.ts foundSql).
    index("facts_project_superseding").on(t.projectId, t.key).where(sql`${t.supersedes} IS NOT NULL`),
    index("facts_project_depending").on(t.projectId, t.key).where(sql`${t.dependsOnJson} <> '[]'`),
    // One current version per slot (key, scope, scope id) and owner, whoever writes and however writers
    // interleave: a writer that planned against a version another writer has since replaced fails here
    // and plans again (plan-writes.ts isCurrent is the same predicate). NULLs are distinct in a unique
    // index, hence the coalesce.
    uniqueIndex("facts_one_current")
      .on(t.projectId, t.key, t.scope, sql`coalesce(${t.scopeId}, '')`, sql`coalesce(${t.userId}, '')`)
      .where(sql`${t.txEnd} IS NULL AND ${t.isValid} = 1 AND ${t.contradictionStatus} <> 'disputed'`),
  ],
);

/**
 * A fact batch's guard: after each guarded update the batch writes `changes()` here, and the CHECK fails
 * (rolling the whole batch back) when that update matched nothing, i.e. the version it planned against
 * was changed by another writer in between. One row, replaced each time; it holds no data.
 */
export const factPlanChecks = sqliteTable(
  "fact_plan_checks",
  {
    id: integer("id").primaryKey(),
    matched: integer("matched").notNull(),
  },
  (t) => [check("fact_plan_stale", sql`${t.matched} = 1`)],
);

/**
 * One counter per project, bumped by every batch that writes facts, in the same transaction. D1 runs
 * writes one at a time, so revisions are handed out in commit order: a reader that has seen every row
 * up to revision N misses nothing by asking for rows with a higher revision.
 */
export const factRevisions = sqliteTable("fact_revisions", {
  projectId: text("project_id").primaryKey(),
  revision: integer("revision").notNull(),
});

/**
 * Thread objects that hold a project's facts in memory (src/facts/fact-cache.ts). A batch that writes
 * facts reads this table in its own transaction and tells each holder the new revision, so a holder
 * serves its copy without asking D1 until told. `token` names one in-memory copy: a restarted object
 * registers a new one, and an announcement or removal for an old token touches nothing.
 */
export const factWatchers = sqliteTable(
  "fact_watchers",
  {
    projectId: text("project_id").notNull(),
    thread: text("thread").notNull(),
    token: text("token").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.thread] })],
);

/** Reverse index of depends_on, so superseding a fact can flag what was derived from it. */
export const factDependencies = sqliteTable(
  "fact_dependencies",
  {
    projectId: text("project_id").notNull(),
    factId: text("fact_id").notNull(),
    dependsOnId: text("depends_on_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.dependsOnId, t.factId] })],
);

/** A fact version as stored: the domain's FactVersion plus the project revision that last wrote it. */
export type StoredFactRow = typeof facts.$inferSelect;

// The storage edge hands the domain's FactVersion to the rest of the application. Drizzle's row, its
// bookkeeping aside, must be that type field for field: a column added, dropped or retyped fails to
// compile here until src/domain/fact-version.ts agrees.
true satisfies SameType<Omit<StoredFactRow, "revision">, FactVersion>;
