import { and, eq, inArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { jsonRuns } from "../d1/json-runs";
import type { EntityEvent, EntityType } from "../domain/entities";
import { restampFacts } from "../facts/fact-stamps";
import {
  entities,
  entityAliases,
  entityGuards,
  entityHistory,
  entityReviews,
  entityTerms,
  factEntities,
  messageEntities,
} from "./entity-schema";
import type { EntityAlias, RegistryEntity } from "./registry-entity";
import type { RegistryPlan } from "./resolution/resolve";
import { metadataTerms, nameTerms, entityTerms as termsOf } from "./resolution/terms";

/**
 * The registry's writes as D1 batch statements. Resolution's writes join the fact write's batch
 * (inserts only, each a no-op when its row exists, so a retried or racing write changes nothing twice);
 * merge, split and review decisions are batches of their own, guarded: each guarded update must change
 * exactly one row, else the CHECK on entity_guards rolls the batch back and the route answers 409.
 */
type Batch = BatchItem<"sqlite">[];

/** Fails the batch unless the statement just before it changed exactly one row. */
const guard = (db: DrizzleD1Database) =>
  db
    .insert(entityGuards)
    .values({ id: 1, matched: sql<number>`changes()` })
    .onConflictDoUpdate({ target: entityGuards.id, set: { matched: sql<number>`changes()` } });

/** True when a batch failed on its guard: another request changed the entity first. */
export function isStaleEdit(error: unknown): boolean {
  const text = `${error instanceof Error ? error.message : String(error)} ${
    error instanceof Error && error.cause instanceof Error ? error.cause.message : ""
  }`;
  return /entity_guard_stale|CHECK constraint failed/.test(text);
}

function history(
  db: DrizzleD1Database,
  projectId: string,
  row: {
    id: string;
    entityId: string;
    event: EntityEvent;
    otherId?: string | null;
    detail?: unknown;
    at: string;
  },
) {
  return db
    .insert(entityHistory)
    .values({
      projectId,
      id: row.id,
      entityId: row.entityId,
      event: row.event,
      otherId: row.otherId ?? null,
      detailJson: JSON.stringify(row.detail ?? {}),
      at: row.at,
    })
    .onConflictDoNothing();
}

function aliasRows(
  db: DrizzleD1Database,
  projectId: string,
  entityId: string,
  alias: EntityAlias,
  at: string,
): Batch {
  return [
    db
      .insert(entityAliases)
      .values({
        projectId,
        entityId,
        alias: alias.alias,
        norm: alias.norm,
        source: alias.source,
        addedAt: at,
      })
      .onConflictDoNothing(),
    ...nameTerms(alias.norm).map((term) =>
      db.insert(entityTerms).values({ projectId, term, entityId, norm: alias.norm }).onConflictDoNothing(),
    ),
  ];
}

const notMerged = (projectId: string, id: string) =>
  sql`NOT EXISTS (SELECT 1 FROM ${entities} m WHERE m.project_id = ${projectId} AND m.id = ${id}
    AND m.status = 'merged')`;

function createRows(db: DrizzleD1Database, projectId: string, entity: RegistryEntity, at: string): Batch {
  return [
    db
      .insert(entities)
      .values({
        projectId,
        id: entity.id,
        canonicalName: entity.canonicalName,
        entityType: entity.type,
        status: entity.status,
        mergedInto: null,
        metadataJson: JSON.stringify(entity.metadata),
        provenanceJson: JSON.stringify(entity.provenance),
        createdAt: at,
        updatedAt: at,
      })
      .onConflictDoNothing(),
    // A created id can land on an entity merged since (its later references go to the survivor): that
    // one gains no names back, so the names and terms go in only while it is not merged.
    ...entity.aliases.map((alias) =>
      db
        .insert(entityAliases)
        .select(
          sql`SELECT ${projectId}, ${entity.id}, ${alias.alias}, ${alias.norm}, ${alias.source}, ${at}
            WHERE ${notMerged(projectId, entity.id)}`,
        )
        .onConflictDoNothing(),
    ),
    ...termsOf(entity).map(({ term, norm }) =>
      db
        .insert(entityTerms)
        .select(
          sql`SELECT ${projectId}, ${term}, ${entity.id}, ${norm} WHERE ${notMerged(projectId, entity.id)}`,
        )
        .onConflictDoNothing(),
    ),
    history(db, projectId, {
      id: `${entity.id}:created`,
      entityId: entity.id,
      event: entity.status === "pending" ? "pending" : "created",
      detail: { name: entity.canonicalName, type: entity.type, provenance: entity.provenance },
      at,
    }),
  ];
}

/**
 * What a resolution plan (with stable ids) writes. Links are kept for the facts the write inserted; a
 * link to an entity merged meanwhile lands on the entity it was merged into.
 */
export function resolutionWrites(
  db: DrizzleD1Database,
  projectId: string,
  plan: RegistryPlan,
  insertedFacts: ReadonlySet<string>,
  at: string,
): Batch {
  const out: Batch = plan.created.flatMap((entity) => createRows(db, projectId, entity, at));
  for (const { entityId, alias } of plan.aliases) {
    out.push(...aliasRows(db, projectId, entityId, alias, at));
    out.push(
      history(db, projectId, {
        id: `${entityId}:alias:${alias.norm}`,
        entityId,
        event: "alias_added",
        detail: alias,
        at,
      }),
    );
  }
  for (const { entityId, metadata } of plan.metadata) {
    out.push(
      db
        .update(entities)
        .set({
          metadataJson: sql`json_patch(${entities.metadataJson}, ${JSON.stringify(metadata)})`,
          updatedAt: at,
        })
        .where(and(eq(entities.projectId, projectId), eq(entities.id, entityId))),
      ...metadataTerms(metadata).map((term) =>
        db.insert(entityTerms).values({ projectId, term, entityId, norm: "" }).onConflictDoNothing(),
      ),
    );
  }
  for (const { entityId, type } of plan.retyped) {
    out.push(
      // Written before the update, and only while the entity is untyped: the history says what changed.
      db
        .insert(entityHistory)
        .select(
          sql`SELECT ${projectId}, ${`${entityId}:retyped:${type}`}, ${entityId}, 'retyped', NULL,
            ${JSON.stringify({ from: "other", to: type })}, ${at}
            WHERE EXISTS (SELECT 1 FROM ${entities} e WHERE e.project_id = ${projectId}
              AND e.id = ${entityId} AND e.entity_type = 'other')`,
        )
        .onConflictDoNothing(),
      db
        .update(entities)
        .set({ entityType: type, updatedAt: at })
        .where(
          and(eq(entities.projectId, projectId), eq(entities.id, entityId), eq(entities.entityType, "other")),
        ),
    );
  }
  // A review only for a node that is pending once the entities above are written: a created id that
  // lands on an entity already stored (one merged since, whose later references go to its survivor)
  // asks nothing a person has not answered.
  for (const review of plan.reviews) {
    out.push(
      db
        .insert(entityReviews)
        .select(
          sql`SELECT ${projectId}, ${review.id}, ${review.entityId}, ${review.candidateId},
            ${review.runnerUpId}, ${review.score}, ${JSON.stringify(review.features)}, 'open', NULL, ${at}, NULL
            WHERE EXISTS (SELECT 1 FROM ${entities} p WHERE p.project_id = ${projectId}
              AND p.id = ${review.entityId} AND p.status = 'pending')`,
        )
        .onConflictDoNothing(),
    );
  }
  const links = plan.links
    .filter((link) => insertedFacts.has(link.source))
    .map((link) => [link.source, link.mention, link.entityId]);
  // The references in one statement per run of them, from one JSON parameter (a batch of 500 facts names
  // hundreds), in order; a reference to a merged entity goes to the entity it was merged into.
  for (const run of jsonRuns(links)) {
    out.push(
      db
        .insert(factEntities)
        .select(
          sql`SELECT ${projectId}, json_extract(l.value, '$[0]'), json_extract(l.value, '$[1]'),
            coalesce((SELECT merged_into FROM ${entities} e WHERE e.project_id = ${projectId}
              AND e.id = json_extract(l.value, '$[2]') AND e.status = 'merged'), json_extract(l.value, '$[2]'))
            FROM json_each(${run}) l WHERE true`,
        )
        .onConflictDoNothing(),
    );
  }
  return out;
}

/** A message's reference to an entity, by the normal name it used. */
export interface MessageLink {
  messageId: string;
  seq: number;
  mention: string;
  entityId: string;
}

/**
 * A thread's message references, in one statement per run of them (as fact references are), each a
 * no-op when the message already refers by that name (a message read again adds nothing); a reference
 * to a merged entity goes to the entity it was merged into.
 */
export function messageReferenceWrites(
  db: DrizzleD1Database,
  projectId: string,
  threadId: string,
  links: readonly MessageLink[],
): Batch {
  return jsonRuns(links.map((l) => [l.messageId, l.mention, l.entityId, l.seq])).map((run) =>
    db
      .insert(messageEntities)
      .select(
        sql`SELECT ${projectId}, ${threadId}, json_extract(l.value, '$[0]'), json_extract(l.value, '$[1]'),
          coalesce((SELECT merged_into FROM ${entities} e WHERE e.project_id = ${projectId}
            AND e.id = json_extract(l.value, '$[2]') AND e.status = 'merged'), json_extract(l.value, '$[2]')),
          json_extract(l.value, '$[3]')
          FROM json_each(${run}) l WHERE true`,
      )
      .onConflictDoNothing(),
  );
}

/** Ids for history rows written by the routes: unique, and ordered by time within one millisecond too. */
export const editId = (at: string) => `${at}:${crypto.randomUUID()}`;

/** What a merge's history rows say: the names, facts and messages that moved, and any change of type. */
export interface MergeDetail {
  aliases: string[];
  facts: number;
  messages: number;
  review?: string;
  reason?: string;
  type_change?: { survivor: EntityType; absorbed: EntityType; now: EntityType };
}

/**
 * `absorbed` becomes part of `survivor`: its aliases, terms, fact and message references move over, entities
 * merged into it point at the survivor, its metadata fills what the survivor lacks, and open reviews
 * of it as the pending node close (they asked a question the merge has answered).
 */
export function mergeWrites(
  db: DrizzleD1Database,
  projectId: string,
  survivor: { id: string },
  absorbed: { id: string; metadataJson: string; entityType: EntityType },
  detail: MergeDetail,
  at: string,
): Batch {
  const survivorId = survivor.id;
  const absorbedId = absorbed.id;
  return [
    db
      .update(entities)
      .set({ status: "merged", mergedInto: survivorId, updatedAt: at })
      .where(
        and(
          eq(entities.projectId, projectId),
          eq(entities.id, absorbedId),
          sql`${entities.status} <> 'merged'`,
        ),
      ),
    guard(db),
    db
      .update(entities)
      .set({
        metadataJson: sql`json_patch(${absorbed.metadataJson}, ${entities.metadataJson})`,
        // An untyped survivor takes the absorbed entity's type, as an untyped entity takes a bound mention's.
        entityType: sql`CASE WHEN ${entities.entityType} = 'other' THEN ${absorbed.entityType}
          ELSE ${entities.entityType} END`,
        updatedAt: at,
      })
      .where(
        and(
          eq(entities.projectId, projectId),
          eq(entities.id, survivorId),
          sql`${entities.status} <> 'merged'`,
        ),
      ),
    guard(db),
    // What the survivor already has is dropped from the absorbed entity; the rest moves over.
    db.delete(entityAliases).where(
      and(
        eq(entityAliases.projectId, projectId),
        eq(entityAliases.entityId, absorbedId),
        sql`EXISTS (SELECT 1 FROM entity_aliases s WHERE s.project_id = ${projectId}
          AND s.entity_id = ${survivorId} AND s.norm = entity_aliases.norm)`,
      ),
    ),
    db
      .update(entityAliases)
      .set({ entityId: survivorId })
      .where(and(eq(entityAliases.projectId, projectId), eq(entityAliases.entityId, absorbedId))),
    db.delete(entityTerms).where(
      and(
        eq(entityTerms.projectId, projectId),
        eq(entityTerms.entityId, absorbedId),
        sql`EXISTS (SELECT 1 FROM entity_terms s WHERE s.project_id = ${projectId}
          AND s.entity_id = ${survivorId} AND s.term = entity_terms.term AND s.norm = entity_terms.norm)`,
      ),
    ),
    db
      .update(entityTerms)
      .set({ entityId: survivorId })
      .where(and(eq(entityTerms.projectId, projectId), eq(entityTerms.entityId, absorbedId))),
    // The facts whose references move, stamped first: readers following revisions read them again.
    restampFacts(
      db,
      projectId,
      sql`(SELECT fact_id FROM fact_entities WHERE project_id = ${projectId} AND entity_id = ${absorbedId})`,
    ),
    db
      .update(factEntities)
      .set({ entityId: survivorId })
      .where(and(eq(factEntities.projectId, projectId), eq(factEntities.entityId, absorbedId))),
    db
      .update(messageEntities)
      .set({ entityId: survivorId })
      .where(and(eq(messageEntities.projectId, projectId), eq(messageEntities.entityId, absorbedId))),
    db
      .update(entities)
      .set({ mergedInto: survivorId })
      .where(and(eq(entities.projectId, projectId), eq(entities.mergedInto, absorbedId))),
    // A review whose pending node is absorbed asked a question the merge has answered, and so did one
    // between the survivor and the absorbed entity. A review whose candidate is absorbed still asks
    // whether its pending node is that candidate, now part of the survivor: it stays open, naming the
    // candidate it was opened against (the history stays as it was), and its decision follows the
    // candidate to the survivor (entity-operations.ts, `decideReview`).
    db
      .update(entityReviews)
      .set({ status: "closed", decidedAt: at, reason: `merged into ${survivorId}` })
      .where(
        and(
          eq(entityReviews.projectId, projectId),
          eq(entityReviews.status, "open"),
          sql`(${entityReviews.entityId} = ${absorbedId}
            OR (${entityReviews.entityId} = ${survivorId} AND ${entityReviews.candidateId} = ${absorbedId}))`,
        ),
      ),
    // A pending survivor whose reviews the merge closed was judged by a person: it is an entity now.
    db
      .update(entities)
      .set({ status: "active", updatedAt: at })
      .where(
        and(
          eq(entities.projectId, projectId),
          eq(entities.id, survivorId),
          eq(entities.status, "pending"),
          sql`NOT EXISTS (SELECT 1 FROM ${entityReviews} r WHERE r.project_id = ${projectId}
            AND r.entity_id = ${survivorId} AND r.status = 'open')`,
        ),
      ),
    history(db, projectId, {
      id: editId(at),
      entityId: absorbedId,
      event: "merged_into",
      otherId: survivorId,
      detail,
      at,
    }),
    history(db, projectId, {
      id: editId(at),
      entityId: survivorId,
      event: "absorbed",
      otherId: absorbedId,
      detail,
      at,
    }),
  ];
}

/**
 * The named aliases (by normal form) of `from` move to a new entity, with their terms and the fact and
 * message references made by those names. `renameFrom` is the name `from` keeps when its own moved.
 */
export function splitWrites(
  db: DrizzleD1Database,
  projectId: string,
  from: { id: string; canonicalName: string },
  created: { id: string; name: string; type: EntityType; aliases: EntityAlias[] },
  norms: string[],
  at: string,
): Batch {
  const moved = (column: typeof entityAliases.norm | typeof entityTerms.norm) => inArray(column, norms);
  const named = created.aliases.filter((a) => !norms.includes(a.norm));
  return [
    db
      .update(entities)
      .set({ canonicalName: from.canonicalName, updatedAt: at })
      .where(
        and(eq(entities.projectId, projectId), eq(entities.id, from.id), sql`${entities.status} <> 'merged'`),
      ),
    guard(db),
    db.insert(entities).values({
      projectId,
      id: created.id,
      canonicalName: created.name,
      entityType: created.type,
      status: "active",
      mergedInto: null,
      metadataJson: "{}",
      provenanceJson: JSON.stringify({ split_from: from.id }),
      createdAt: at,
      updatedAt: at,
    }),
    db
      .update(entityAliases)
      .set({ entityId: created.id })
      .where(
        and(
          eq(entityAliases.projectId, projectId),
          eq(entityAliases.entityId, from.id),
          moved(entityAliases.norm),
        ),
      ),
    db
      .update(entityTerms)
      .set({ entityId: created.id })
      .where(
        and(eq(entityTerms.projectId, projectId), eq(entityTerms.entityId, from.id), moved(entityTerms.norm)),
      ),
    ...named.flatMap((alias) => aliasRows(db, projectId, created.id, alias, at)),
    restampFacts(
      db,
      projectId,
      sql`(SELECT fact_id FROM fact_entities WHERE project_id = ${projectId} AND entity_id = ${from.id}
        AND mention IN (SELECT value FROM json_each(${JSON.stringify(norms)})))`,
    ),
    db
      .update(factEntities)
      .set({ entityId: created.id })
      .where(
        and(
          eq(factEntities.projectId, projectId),
          eq(factEntities.entityId, from.id),
          inArray(factEntities.mention, norms),
        ),
      ),
    db
      .update(messageEntities)
      .set({ entityId: created.id })
      .where(
        and(
          eq(messageEntities.projectId, projectId),
          eq(messageEntities.entityId, from.id),
          inArray(messageEntities.mention, norms),
        ),
      ),
    history(db, projectId, {
      id: editId(at),
      entityId: from.id,
      event: "split",
      otherId: created.id,
      detail: { aliases: norms },
      at,
    }),
    history(db, projectId, {
      id: editId(at),
      entityId: created.id,
      event: "split_from",
      otherId: from.id,
      detail: { aliases: norms },
      at,
    }),
  ];
}

/** Closes an open review with a decision; the batch fails (409) when it was decided first. */
export function decideReviewWrites(
  db: DrizzleD1Database,
  projectId: string,
  review: { id: string; entityId: string; candidateId: string },
  decision: "accepted" | "rejected",
  reason: string | null,
  at: string,
): Batch {
  const closing: Batch = [
    db
      .update(entityReviews)
      .set({ status: decision, decidedAt: at, reason })
      .where(
        and(
          eq(entityReviews.projectId, projectId),
          eq(entityReviews.id, review.id),
          eq(entityReviews.status, "open"),
        ),
      ),
    guard(db),
  ];
  const event = decision === "accepted" ? "review_accepted" : "review_rejected";
  const detail = { review: review.id, reason };
  if (decision === "accepted") {
    return [
      ...closing,
      history(db, projectId, {
        id: editId(at),
        entityId: review.candidateId,
        event,
        otherId: review.entityId,
        detail,
        at,
      }),
    ];
  }
  return [
    ...closing,
    // Rejected: the pending node is an entity of its own from now on.
    db
      .update(entities)
      .set({ status: "active", updatedAt: at })
      .where(
        and(
          eq(entities.projectId, projectId),
          eq(entities.id, review.entityId),
          eq(entities.status, "pending"),
        ),
      ),
    history(db, projectId, {
      id: editId(at),
      entityId: review.entityId,
      event,
      otherId: review.candidateId,
      detail,
      at,
    }),
  ];
}
