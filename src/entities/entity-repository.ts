import { and, asc, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type { EntityMetadata, EntityStatus, EntityType, ReviewStatus } from "../domain/entities";
import type { PendingReference } from "../domain/trace";
import {
  type EntityAliasRow,
  type EntityHistoryRow,
  type EntityReviewRow,
  type EntityRow,
  entities,
  entityAliases,
  entityHistory,
  entityReviews,
  factEntities,
  type MessageEntityRow,
  messageEntities,
} from "./entity-schema";
import { normalizeName } from "./names";
import type { EntityAlias, RegistryEntity } from "./registry-entity";

/** Candidates one write considers at most, and neighbours read per candidate. */
export const CANDIDATE_LIMIT = 2000;
const NEIGHBOUR_LIMIT = 50;
/**
 * The neighbourhood is read from an entity's latest references only: an entity named by a million facts
 * (a customer, the company itself) would otherwise cost a scan of all of them on every write that names
 * it. The co-mentions of those facts are then looked up by the primary key (INDEXED BY: without
 * statistics SQLite took the entity index, which scanned every reference of the project per fact; at
 * 10,000 facts a write's lookup went from 0.8 s to 12 ms).
 */
const NEIGHBOUR_FACTS = 200;
/** Terms (and prefixes) per candidate statement. */
const LOOKUP_CHUNK = 1000;

/**
 * Each candidate's neighbours (entities that facts referring to it also refer to), from its latest
 * references only (NEIGHBOUR_FACTS, above), as a JSON array.
 */
const NEIGHBOURS_SQL = `(SELECT json_group_array(n.entity_id) FROM (
       SELECT DISTINCT o.entity_id FROM (
           SELECT fact_id FROM fact_entities WHERE project_id = e.project_id AND entity_id = e.id
           ORDER BY fact_id DESC LIMIT ${NEIGHBOUR_FACTS}
         ) mine
         CROSS JOIN fact_entities o INDEXED BY sqlite_autoindex_fact_entities_1
           ON o.project_id = e.project_id AND o.fact_id = mine.fact_id
         WHERE o.entity_id <> e.id
         LIMIT ${NEIGHBOUR_LIMIT}) n)`;

/**
 * The entities sharing a term with the lookups (one statement: the terms and prefixes travel as one JSON
 * parameter each), with their aliases and, when asked, their neighbours. A prefix matches every term
 * that starts with it: char(1114111) is above every character.
 */
const candidatesSql = (neighbours: string) => `WITH hit(entity_id) AS (
    SELECT t.entity_id FROM json_each(?1) w
      CROSS JOIN entity_terms t ON t.project_id = ?3 AND t.term = w.value
    UNION
    SELECT t.entity_id FROM json_each(?2) p
      CROSS JOIN entity_terms t ON t.project_id = ?3 AND t.term >= p.value AND t.term < p.value || char(1114111)
  )
  SELECT e.*,
    (SELECT json_group_array(json_object('alias', a.alias, 'norm', a.norm, 'source', a.source))
       FROM entity_aliases a WHERE a.project_id = e.project_id AND a.entity_id = e.id) AS aliases_json,
    ${neighbours} AS neighbours_json
  FROM (SELECT DISTINCT entity_id FROM hit LIMIT ?4) h
  CROSS JOIN entities e ON e.project_id = ?3 AND e.id = h.entity_id
  WHERE e.status <> 'merged'`;
const CANDIDATES_SQL = candidatesSql(NEIGHBOURS_SQL);
/**
 * Without neighbours: a question's mentions are scored with no co-mentioned entities (query-entities.ts),
 * so their neighbourhood is never read, and each candidate's would cost a read of its latest references.
 */
const CANDIDATES_WITHOUT_NEIGHBOURS_SQL = candidatesSql("'[]'");

/** Every entity of the project but the merged ones, with its aliases, as candidates are read: `limit` at most. */
const ALL_ENTITIES_SQL = `SELECT e.*,
    (SELECT json_group_array(json_object('alias', a.alias, 'norm', a.norm, 'source', a.source))
       FROM entity_aliases a WHERE a.project_id = e.project_id AND a.entity_id = e.id) AS aliases_json,
    '[]' AS neighbours_json
  FROM entities e WHERE e.project_id = ?1 AND e.status <> 'merged' LIMIT ?2`;

/** References to pending entities one read returns at most. */
export const PENDING_REFERENCE_LIMIT = 500;
const PENDING_REFERENCES_SQL = `SELECT fe.fact_id AS fact_id, r.entity_id AS entity_id, e.canonical_name AS name
  FROM entity_reviews r
  CROSS JOIN entities e ON e.project_id = r.project_id AND e.id = r.entity_id
  CROSS JOIN fact_entities fe ON fe.project_id = r.project_id AND fe.entity_id = r.entity_id
  WHERE r.project_id = ?1 AND r.status = 'open' AND e.status = 'pending'
  LIMIT ?2`;

/** The references a `pendingReferencesStatement` result holds. */
export function pendingReferences(result: D1Result | undefined): PendingReference[] {
  return ((result?.results ?? []) as { fact_id: string; entity_id: string; name: string }[]).map((row) => ({
    factId: row.fact_id,
    entityId: row.entity_id,
    name: row.name,
  }));
}

interface CandidateRow {
  id: string;
  canonical_name: string;
  entity_type: EntityType;
  status: EntityStatus;
  metadata_json: string;
  provenance_json: string;
  aliases_json: string;
  neighbours_json: string;
}

/** The registry entities the results of `candidateStatements` name, each once. */
export function registryEntities(results: readonly D1Result[]): RegistryEntity[] {
  const byId = new Map<string, CandidateRow>();
  for (const result of results) for (const row of result.results as CandidateRow[]) byId.set(row.id, row);
  return [...byId.values()].map((row) => ({
    id: row.id,
    type: row.entity_type,
    status: row.status,
    canonicalName: row.canonical_name,
    aliases: JSON.parse(row.aliases_json) as EntityAlias[],
    metadata: JSON.parse(row.metadata_json) as EntityMetadata,
    provenance: JSON.parse(row.provenance_json),
    neighbours: JSON.parse(row.neighbours_json) as string[],
  }));
}

/** The order GET /entities pages in: (project_id, canonical_name, id), unique. */
export interface EntityPosition {
  projectId: string;
  name: string;
  id: string;
}

export interface EntityPageFilter {
  projectId?: string;
  type?: EntityType;
  /** A prefix of any of the entity's names, normalised. */
  name?: string;
  statuses: EntityStatus[];
}

/** The order an entity's message references page in: (thread_id, seq descending, mention), unique. */
export interface MessageLinkPosition {
  threadId: string;
  seq: number;
  mention: string;
}

/** The order GET /entities/review pages in: (project_id, created_at, id). */
export interface ReviewPosition {
  projectId: string;
  createdAt: string;
  id: string;
}

/** Reads of one D1 database's entity registries. */
export class EntityRepository {
  readonly db: DrizzleD1Database;

  constructor(readonly database: D1Database) {
    this.db = drizzle(database);
  }

  async candidates(projectId: string, terms: string[], prefixes: string[]): Promise<RegistryEntity[]> {
    const statements = this.candidateStatements(projectId, terms, prefixes);
    if (statements.length === 0) return [];
    return registryEntities(await this.database.batch(statements));
  }

  /**
   * The statements of `candidates`, for a caller that sends them in a batch of its own (a compile's
   * first read, src/facts/fact-repository.ts); `registryEntities` decodes their results.
   */
  candidateStatements(
    projectId: string,
    terms: string[],
    prefixes: string[],
    options: { neighbours: boolean } = { neighbours: true },
  ): D1PreparedStatement[] {
    const text = options.neighbours ? CANDIDATES_SQL : CANDIDATES_WITHOUT_NEIGHBOURS_SQL;
    // A large write looks up many terms: in parts, each one JSON parameter well under D1's bounds, one batch.
    const statements: D1PreparedStatement[] = [];
    for (let i = 0; i < Math.max(terms.length, prefixes.length); i += LOOKUP_CHUNK) {
      const [t, p] = [terms.slice(i, i + LOOKUP_CHUNK), prefixes.slice(i, i + LOOKUP_CHUNK)];
      statements.push(
        this.database.prepare(text).bind(JSON.stringify(t), JSON.stringify(p), projectId, CANDIDATE_LIMIT),
      );
    }
    return statements;
  }

  /**
   * The facts that refer to a pending entity (the node of an open review), bounded: pending nodes are
   * few, each waiting for a person. Found through the open reviews' index, so the read does not grow
   * with the registry.
   */
  pendingReferencesStatement(projectId: string): D1PreparedStatement {
    return this.database.prepare(PENDING_REFERENCES_SQL).bind(projectId, PENDING_REFERENCE_LIMIT);
  }

  /**
   * Every entity of the project (merged ones aside), `limit` at most, as `candidateStatements` reads
   * them without neighbours; `registryEntities` decodes the result.
   */
  allEntitiesStatement(projectId: string, limit: number): D1PreparedStatement {
    return this.database.prepare(ALL_ENTITIES_SQL).bind(projectId, limit);
  }

  /** The project's distinct lookup terms, `limit` at most (read along its primary key). */
  termsStatement(projectId: string, limit: number): D1PreparedStatement {
    return this.database
      .prepare("SELECT DISTINCT term FROM entity_terms WHERE project_id = ?1 ORDER BY term LIMIT ?2")
      .bind(projectId, limit);
  }

  /** One page of GET /entities after `after`, every filter applied before the limit. */
  async page(
    filter: EntityPageFilter,
    after: EntityPosition | undefined,
    limit: number,
  ): Promise<EntityRow[]> {
    const prefix = filter.name ? normalizeName(filter.name) : undefined;
    const named: SQL | undefined = prefix
      ? sql`EXISTS (SELECT 1 FROM ${entityAliases} a WHERE a.project_id = ${entities.projectId}
          AND a.entity_id = ${entities.id} AND substr(a.norm, 1, ${prefix.length}) = ${prefix})`
      : undefined;
    return this.db
      .select()
      .from(entities)
      .where(
        and(
          filter.projectId ? eq(entities.projectId, filter.projectId) : undefined,
          filter.type ? eq(entities.entityType, filter.type) : undefined,
          inArray(entities.status, filter.statuses),
          named,
          after
            ? sql`(${entities.projectId}, ${entities.canonicalName}, ${entities.id}) > (${after.projectId}, ${after.name}, ${after.id})`
            : undefined,
        ),
      )
      .orderBy(asc(entities.projectId), asc(entities.canonicalName), asc(entities.id))
      .limit(limit);
  }

  async find(id: string, projectId?: string): Promise<EntityRow[]> {
    return this.db
      .select()
      .from(entities)
      .where(and(eq(entities.id, id), projectId ? eq(entities.projectId, projectId) : undefined));
  }

  async aliases(projectId: string, entityId: string): Promise<EntityAliasRow[]> {
    return this.db
      .select()
      .from(entityAliases)
      .where(and(eq(entityAliases.projectId, projectId), eq(entityAliases.entityId, entityId)))
      .orderBy(asc(entityAliases.addedAt), asc(entityAliases.norm));
  }

  /** The entities of the project, merged ones aside, that go by a name (by its normal form). */
  async holdersOf(projectId: string, norm: string): Promise<string[]> {
    const rows = await this.db
      .selectDistinct({ id: entityAliases.entityId })
      .from(entityAliases)
      .innerJoin(
        entities,
        and(eq(entities.projectId, entityAliases.projectId), eq(entities.id, entityAliases.entityId)),
      )
      .where(
        and(
          eq(entityAliases.projectId, projectId),
          eq(entityAliases.norm, norm),
          sql`${entities.status} <> 'merged'`,
        ),
      );
    return rows.map((r) => r.id);
  }

  /** The aliases of several entities at once (a page of them), in one statement. */
  async aliasesFor(keys: readonly { projectId: string; id: string }[]): Promise<EntityAliasRow[]> {
    if (keys.length === 0) return [];
    const pairs = JSON.stringify(keys.map((k) => [k.projectId, k.id]));
    return this.db
      .select()
      .from(entityAliases)
      .where(
        sql`(${entityAliases.projectId}, ${entityAliases.entityId}) IN (SELECT value ->> 0, value ->> 1 FROM json_each(${pairs}))`,
      )
      .orderBy(asc(entityAliases.addedAt), asc(entityAliases.norm));
  }

  /** The fact versions that refer to an entity, newest id last, and the names they used (bounded). */
  async factLinks(
    projectId: string,
    entityId: string,
    limit: number,
  ): Promise<{ factId: string; mention: string }[]> {
    return this.db
      .select({ factId: factEntities.factId, mention: factEntities.mention })
      .from(factEntities)
      .where(and(eq(factEntities.projectId, projectId), eq(factEntities.entityId, entityId)))
      .orderBy(asc(factEntities.factId))
      .limit(limit);
  }

  /**
   * The messages that refer to an entity, by thread and newest first in each, and the names they used:
   * `limit` after `after` (a position in that order, unique: a message has one arrival number and one
   * reference per name), read along the entity's index.
   */
  async messageLinks(
    projectId: string,
    entityId: string,
    limit: number,
    after?: MessageLinkPosition,
  ): Promise<MessageEntityRow[]> {
    const { threadId, seq, mention } = messageEntities;
    return this.db
      .select()
      .from(messageEntities)
      .where(
        and(
          eq(messageEntities.projectId, projectId),
          eq(messageEntities.entityId, entityId),
          after
            ? sql`(${threadId} > ${after.threadId} OR (${threadId} = ${after.threadId} AND (${seq} < ${after.seq}
                OR (${seq} = ${after.seq} AND ${mention} > ${after.mention}))))`
            : undefined,
        ),
      )
      .orderBy(asc(threadId), desc(seq), asc(mention))
      .limit(limit);
  }

  /** How many message references an entity has (read along the entity's index). */
  async messageCount(projectId: string, entityId: string): Promise<number> {
    const [row] = await this.db
      .select({ count: sql<number>`count(*)` })
      .from(messageEntities)
      .where(and(eq(messageEntities.projectId, projectId), eq(messageEntities.entityId, entityId)));
    return row?.count ?? 0;
  }

  async history(projectId: string, entityId: string, limit: number): Promise<EntityHistoryRow[]> {
    return this.db
      .select()
      .from(entityHistory)
      .where(and(eq(entityHistory.projectId, projectId), eq(entityHistory.entityId, entityId)))
      .orderBy(desc(entityHistory.at), desc(entityHistory.id))
      .limit(limit);
  }

  /**
   * Reviews the entity is part of, as the pending node or as the candidate (itself, or one merged into
   * it since: such a review's decision is about it now), open ones first.
   */
  async reviewsOf(projectId: string, entityId: string): Promise<EntityReviewRow[]> {
    return this.db
      .select()
      .from(entityReviews)
      .where(
        and(
          eq(entityReviews.projectId, projectId),
          sql`(${entityReviews.entityId} = ${entityId} OR ${entityReviews.candidateId} = ${entityId}
            OR EXISTS (SELECT 1 FROM ${entities} m WHERE m.project_id = ${projectId}
              AND m.id = ${entityReviews.candidateId} AND m.merged_into = ${entityId}))`,
        ),
      )
      .orderBy(sql`${entityReviews.status} <> 'open'`, desc(entityReviews.createdAt))
      .limit(100);
  }

  async reviewPage(
    filter: { projectId?: string; status: ReviewStatus },
    after: ReviewPosition | undefined,
    limit: number,
  ): Promise<EntityReviewRow[]> {
    return this.db
      .select()
      .from(entityReviews)
      .where(
        and(
          filter.projectId ? eq(entityReviews.projectId, filter.projectId) : undefined,
          eq(entityReviews.status, filter.status),
          after
            ? sql`(${entityReviews.projectId}, ${entityReviews.createdAt}, ${entityReviews.id}) > (${after.projectId}, ${after.createdAt}, ${after.id})`
            : undefined,
        ),
      )
      .orderBy(asc(entityReviews.projectId), asc(entityReviews.createdAt), asc(entityReviews.id))
      .limit(limit);
  }

  async review(id: string, projectId?: string): Promise<EntityReviewRow[]> {
    return this.db
      .select()
      .from(entityReviews)
      .where(and(eq(entityReviews.id, id), projectId ? eq(entityReviews.projectId, projectId) : undefined));
  }

  /** Entities by id, merged ones included (a review may name one merged since). */
  async byIds(projectId: string, ids: string[]): Promise<EntityRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .select()
      .from(entities)
      .where(and(eq(entities.projectId, projectId), inArray(entities.id, ids)));
  }

  /** Runs a registry batch (entity-edits.ts) as one transaction. */
  async run(statements: BatchItem<"sqlite">[]): Promise<void> {
    const [first, ...rest] = statements;
    if (first) await this.db.batch([first, ...rest]);
  }
}
