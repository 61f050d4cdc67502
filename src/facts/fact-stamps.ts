import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { factRevisions, facts } from "./fact-schema";

/**
 * Marks facts as changed at the project's next revision without changing what they say. An entity merge
 * or split moves facts' entity references; a reader that follows the project by revision (the fact
 * replica, src/project-index/fact-replica.ts) reads a fact's references with the fact, so the facts
 * whose references move are stamped in the edit's own batch, before the edit is announced (which moves
 * the revision on: src/api/entities.handlers.ts). `ids` selects the fact ids.
 */
export function restampFacts(db: DrizzleD1Database, projectId: string, ids: SQL): BatchItem<"sqlite"> {
  return db
    .update(facts)
    .set({
      revision: sql`coalesce((SELECT ${factRevisions.revision} FROM ${factRevisions} WHERE ${factRevisions.projectId} = ${projectId}), 0) + 1`,
    })
    .where(and(eq(facts.projectId, projectId), inArray(facts.id, ids)));
}
