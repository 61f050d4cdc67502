import {
  and,
  asc,
  desc,
  eq,
  getTableColumns,
  gt,
  inArray,
  isNull,
  lte,
  ne,
  notExists,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import { alias } from "drizzle-orm/sqlite-core";
import { jsonList } from "../d1/json-list";
import { jsonRuns } from "../d1/json-runs";
import type { FactVersion } from "../domain/fact-version";
import type { QueryEntity, RegistryPart } from "../domain/trace";
import type { ReplicaRows } from "../project-index/fact-replica";
import { RANKED_MATCH_BUDGET, rankedTerms } from "../retrieval/query-terms";
import {
  advanceBase,
  assembleCandidates,
  BASE_CHANGES_LIMIT,
  FACT_CANDIDATE_LIMITS,
  type FactBase,
  type FactCandidates,
  factMatchExpression,
  type HistoryTargets,
  historyTargets,
  NEIGHBOUR_FACTS,
  NEIGHBOUR_REFERENCES,
  NEIGHBOUR_SCAN,
  NEIGHBOURS,
  newestCandidates,
  newestFirst,
  projectToken,
  WHOLE_PROJECT_VERSIONS,
  wholeProject,
} from "./fact-candidates";
import type { FactPosition } from "./fact-cursor";
import { fullFactRow, storedFactRow } from "./fact-rows";
import { factDependencies, factPlanChecks, factRevisions, facts, factWatchers } from "./fact-schema";
import type { FactPlan } from "./plan-writes";

/** Current facts about a write's entities that it is weighed against as one slot (currentReferencing). */
const SLOT_CANDIDATES = 500;

/** D1 binds at most 100 parameters per statement; lookups are chunked well under that. */
const CHUNK = 80;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** The columns of `facts`, in the table's order: every part of a search's answer lists them alike. */
const FACT_COLUMNS = Object.values(getTableColumns(facts)).map((column) => column.name);
const columnsOf = (table: string) => FACT_COLUMNS.map((name) => `${table}.${name} AS ${name}`).join(", ");

/**
 * A full-text search of one project's current facts (fact-candidates.ts), counted, chosen and ranked
 * inside one statement: each term's matches are counted up to the ranking budget, the terms worth ranking
 * chosen as query-terms.ts rankedTerms chooses them (rarest first while their matches together stay
 * within the budget; when even the rarest passes it, every matching term, newest matches first), and the
 * best matches read. Counting in the same statement spares the search a round trip before ranking.
 */
interface MatchSearch {
  terms: readonly string[];
  projectId: string;
  userId: string;
}

/**
 * The CTEs `counted` (each term's matches, up to the budget plus one) and `chosen_search` (the MATCH
 * expression of the terms worth ranking, and whether they rank by bm25).
 */
function choiceSql(search: MatchSearch, bind: (value: unknown) => string): string {
  const perTerm = search.terms.map((term) => [term, factMatchExpression(search.projectId, [term])]);
  const budget = bind(RANKED_MATCH_BUDGET);
  // The project's clause of every expression (factMatchExpression); a search none of whose terms
  // matches asks for nothing (an expression no row matches), as FTS5 refuses an empty one.
  const project = bind(`project : "${projectToken(search.projectId)}"`);
  return `search_terms AS (
      SELECT json_extract(value, '$[0]') AS term, json_extract(value, '$[1]') AS expression
      FROM json_each(${bind(JSON.stringify(perTerm))})
    ),
    counted AS MATERIALIZED (
      SELECT term, (SELECT count(*) FROM (
        SELECT rowid FROM fact_search WHERE fact_search MATCH search_terms.expression LIMIT ${budget} + 1
      )) AS n FROM search_terms
    ),
    by_rarity AS (
      SELECT term, SUM(n) OVER (ORDER BY n, term ROWS UNBOUNDED PRECEDING) AS total FROM counted WHERE n > 0
    ),
    ranked_terms AS (SELECT term FROM by_rarity WHERE total <= ${budget}),
    chosen_terms AS (
      SELECT term FROM ranked_terms
      UNION ALL SELECT term FROM by_rarity WHERE NOT EXISTS (SELECT 1 FROM ranked_terms)
    ),
    chosen_search AS MATERIALIZED (
      SELECT coalesce(
          ${project} || ' AND text : (' || group_concat('"' || term || '"', ' OR ') || ')',
          ${project} || ' NOT ' || ${project}
        ) AS expression,
        EXISTS (SELECT 1 FROM ranked_terms) AS by_rank
      FROM chosen_terms
    )`;
}

/**
 * The current facts a search matches, best first (bm25, or the newest when no term is rare enough to
 * rank). The ordering runs inside the full-text index, over twice the limit (room for other users' own
 * facts, which the join then drops), and only those are joined to `facts`, in that order (CROSS JOIN:
 * left to right, never a scan of the project's facts). bm25 weighs the `project` column 0, as every hit
 * carries the project's token. Needs choiceSql's CTEs.
 */
function matchesSql(search: MatchSearch, bind: (value: unknown) => string): string {
  const limit = FACT_CANDIDATE_LIMITS.matched + 1;
  // Two arms, one of which reads nothing: ranked by bm25, or the newest matches in rowid order, which
  // FTS5 walks backwards and stops at the limit (an expression of the rowid would sort every match).
  const depth = bind(limit * 2);
  return `SELECT f.* FROM (
      SELECT * FROM (
        SELECT rowid AS doc, bm25(fact_search, 0.0, 1.0) AS score FROM fact_search
        WHERE fact_search MATCH (SELECT expression FROM chosen_search) AND (SELECT by_rank FROM chosen_search)
        ORDER BY score LIMIT ${depth})
      UNION ALL
      SELECT * FROM (
        SELECT rowid AS doc, -rowid AS score FROM fact_search
        WHERE fact_search MATCH (SELECT expression FROM chosen_search) AND NOT (SELECT by_rank FROM chosen_search)
        ORDER BY rowid DESC LIMIT ${depth})
    ) hit
    CROSS JOIN fact_search_docs d ON d.doc = hit.doc
    CROSS JOIN facts f ON f.project_id = d.project_id AND f.id = d.fact_id
    WHERE d.project_id = ${bind(search.projectId)} AND f.tx_end IS NULL
      AND (f.user_id IS NULL OR f.user_id = ${bind(search.userId)})
    ORDER BY hit.score, f.tx_start DESC, f.id DESC
    LIMIT ${bind(limit)}`;
}

/**
 * The facts every compile weighs whatever it asks: constraints, and rules from policy or the system
 * (what the compiler places as critical, src/compiler/passes/group-parts.ts isCritical). In literals,
 * as the partial index `facts_current_standing` (migration 0006) states it, so SQLite can use it.
 */
const STANDING = sql`(${facts.isConstraint} = 1 OR ${facts.sourceType} IN ('policy', 'system'))`;

/**
 * The project fact replica's answer to a search's own part, when asked (src/facts/fact-candidate-cache.ts):
 * its rows (none when it could not answer), whether it was asked for the named entities' facts too, the
 * versions the reader holds, which the answer names without sending them again, and what it was asked
 * with (the entities, the newest versions it was told the reader holds, and the slots outside them).
 */
export interface ReplicaRead {
  rows: Promise<ReplicaRows | undefined>;
  named: boolean;
  /** The versions the reader holds, which the replica was told not to send. */
  known: Pick<ReadonlyMap<string, FactVersion>, "get">;
  asked: { entityIds: readonly string[]; heldIds: readonly string[]; outside: HistoryTargets };
}

const REPLICA_SOURCES = ["matched", "similar", "entity", "neighbour", "history"] as const;

/** Whether two lists hold the same members, whatever their order. */
function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((x) => set.has(x));
}

/**
 * The replica's answer read as foundSql's would be: each version it sent decoded once, each it named
 * taken from what the reader holds; undefined when it names a version that is neither.
 */
function replicaRows(
  answer: ReplicaRows,
  known: Pick<ReadonlyMap<string, FactVersion>, "get"> = new Map(),
): { answer: ReplicaRows; rows: Map<string, FactVersion> } | undefined {
  const rows = new Map<string, FactVersion>();
  for (const source of REPLICA_SOURCES) {
    for (const id of answer[source]) {
      if (rows.has(id)) continue;
      const sent = answer.rows[id];
      const row = sent === undefined ? known.get(id) : frozenRow(fullFactRow(JSON.parse(sent)));
      if (!row) return undefined;
      rows.set(id, row);
    }
  }
  return { answer, rows };
}

/** Which part of a search's answer a row belongs to; `counts` carries each term's match count. */
type FoundAs = "matched" | "entity" | "neighbour" | "similar" | "history" | "counts" | "neighbours";

/**
 * One statement for the query-dependent part of a search: the full-text matches (`found_as` "matched",
 * with a "counts" row whose value_json holds each term's count), the current facts that refer to the
 * entities the text names ("entity", newest first), the current facts the project's vector index found
 * nearest the text ("similar"), and every version the reader may know of in the slots those fill, in
 * `outside`'s (the standing rules' slots outside the newest versions, and the versions those rules and
 * the newest versions refer to: historyTargets) and in the slots the versions of those slots refer to
 * (the one a correction supersedes, those a decision depends on), followed to the end of the chain
 * (each slot once; as many slots as the history holds versions), not already in the answer
 * ("history", newest first); each one past its bound. The matches and the entity facts are computed
 * once (MATERIALIZED) and serve the history too. Slots are looked up
 * by key (CROSS JOIN from the keys, so each is an index seek); lists travel as one JSON parameter each,
 * whatever their length.
 */
function foundSql(
  read: {
    search: MatchSearch | undefined;
    entityIds: string[];
    similarIds: string[];
    outside: HistoryTargets;
    projectId: string;
    userId: string;
  },
  bind: (value: unknown) => string,
): string {
  const { search, entityIds, similarIds, outside } = read;
  const project = bind(read.projectId);
  const user = bind(read.userId);
  const visible = `(f.user_id IS NULL OR f.user_id = ${user})`;
  // The slots the versions in `from`'s slots refer to (a supersedes that names no version names a slot),
  // through the partial indexes of referring versions (migration 0011).
  const referring = (from: string) => `
      SELECT coalesce(t.key, v.supersedes) FROM ${from} s
        CROSS JOIN facts v ON v.project_id = ${project} AND v.key = s.key
        LEFT JOIN facts t ON t.project_id = ${project} AND t.id = v.supersedes
        WHERE v.supersedes IS NOT NULL AND (v.user_id IS NULL OR v.user_id = ${user})
      UNION SELECT coalesce(t.key, d.value) FROM ${from} s
        CROSS JOIN facts v ON v.project_id = ${project} AND v.key = s.key
        CROSS JOIN json_each(${jsonList("v.depends_on_json")}) d
        LEFT JOIN facts t ON t.project_id = ${project} AND t.id = d.value
        WHERE v.depends_on_json <> '[]' AND (v.user_id IS NULL OR v.user_id = ${user})`;
  const matches = search ? matchesSql(search, bind) : "SELECT * FROM facts WHERE 0";
  const counts = search
    ? `SELECT 'counts' AS found_as, ${FACT_COLUMNS.map((name) =>
        name === "value_json"
          ? `(SELECT json_group_object(term, n) FROM counted) AS ${name}`
          : `NULL AS ${name}`,
      ).join(", ")}
    UNION ALL
    `
    : "";
  // The neighbours read, as one row whose value_json lists their ids (only when an entity was named).
  // D1 allows five terms in a compound SELECT: the named entities' facts, their neighbours' and the
  // neighbours' ids are one term of the answer (entity_part).
  const neighbourIds = entityIds.length
    ? `
      UNION ALL
      SELECT 'neighbours' AS found_as, ${FACT_COLUMNS.map((name) =>
        name === "value_json"
          ? `(SELECT json_group_array(id) FROM neighbour_entity) AS ${name}`
          : `NULL AS ${name}`,
      ).join(", ")}`
    : "";
  return `WITH RECURSIVE ${search ? `${choiceSql(search, bind)},` : ""}
    matched AS MATERIALIZED (${matches}),
    entity AS MATERIALIZED (
      SELECT * FROM (
        SELECT DISTINCT f.* FROM (${entityReferences(entityIds, project, bind)}) fe
          CROSS JOIN facts f ON f.project_id = ${project} AND f.id = fe.fact_id
          WHERE f.tx_end IS NULL AND ${visible}
      ) ORDER BY tx_start DESC, id DESC LIMIT ${bind(FACT_CANDIDATE_LIMITS.entity + 1)}
    ),
    neighbour_entity AS MATERIALIZED (
      SELECT DISTINCT o.entity_id AS id
        FROM (${entityReferences(entityIds, project, bind, NEIGHBOUR_SCAN)}) mine
        CROSS JOIN fact_entities o INDEXED BY sqlite_autoindex_fact_entities_1
          ON o.project_id = ${project} AND o.fact_id = mine.fact_id
        WHERE o.entity_id NOT IN (SELECT value FROM json_each(${bind(JSON.stringify(entityIds))}))
        LIMIT ${bind(NEIGHBOURS)}
    ),
    neighbour AS MATERIALIZED (
      SELECT * FROM (
        SELECT DISTINCT f.* FROM neighbour_entity n
          CROSS JOIN json_each((SELECT json_group_array(fact_id) FROM (SELECT fact_id FROM fact_entities
            WHERE project_id = ${project} AND entity_id = n.id ORDER BY fact_id DESC
            LIMIT ${bind(NEIGHBOUR_REFERENCES)}))) r
          CROSS JOIN facts f ON f.project_id = ${project} AND f.id = r.value
          WHERE f.tx_end IS NULL AND ${visible} AND f.id NOT IN (SELECT id FROM entity)
      ) ORDER BY tx_start DESC, id DESC LIMIT ${bind(NEIGHBOUR_FACTS)}
    ),
    similar AS MATERIALIZED (
      SELECT f.* FROM json_each(${bind(JSON.stringify(similarIds))}) s
        CROSS JOIN facts f ON f.project_id = ${project} AND f.id = s.value
        WHERE f.tx_end IS NULL AND ${visible}
    ),
    entity_part AS (
      SELECT 'entity' AS found_as, ${columnsOf("entity")} FROM entity
      UNION ALL
      SELECT 'neighbour' AS found_as, ${columnsOf("neighbour")} FROM neighbour${neighbourIds}
    ),
    found_all AS (
      SELECT id, key, supersedes, depends_on_json FROM matched
      UNION ALL SELECT id, key, supersedes, depends_on_json FROM entity
      UNION ALL SELECT id, key, supersedes, depends_on_json FROM neighbour
      UNION ALL SELECT id, key, supersedes, depends_on_json FROM similar
    ),
    found_ids(id) AS (SELECT id FROM found_all),
    slot_keys(key) AS (
      SELECT key FROM found_all
      UNION SELECT value FROM json_each(${bind(JSON.stringify(outside.keys))})
      UNION SELECT coalesce(f.key, o.value) FROM json_each(${bind(JSON.stringify(outside.ids))}) o
        LEFT JOIN facts f ON f.project_id = ${project} AND f.id = o.value
    ),
    referred(key) AS (
      ${referring("slot_keys")}
      UNION ${referring("referred")}
      LIMIT ${bind(FACT_CANDIDATE_LIMITS.history + 1)}
    ),
    -- A found slot of one version holds nothing but the version found: no history to read there.
    single(key) AS (
      SELECT a.key FROM (SELECT DISTINCT key FROM found_all) a
      WHERE (SELECT count(*) FROM (
        SELECT 1 FROM facts c WHERE c.project_id = ${project} AND c.key = a.key LIMIT 2)) = 1
    ),
    history AS (
      SELECT * FROM (
        SELECT f.* FROM (
          SELECT key FROM slot_keys EXCEPT SELECT key FROM single UNION SELECT key FROM referred
        ) k
          CROSS JOIN facts f ON f.project_id = ${project} AND f.key = k.key
          WHERE ${visible} AND f.id NOT IN (SELECT id FROM found_ids)
      ) ORDER BY tx_start DESC, id DESC LIMIT ${bind(FACT_CANDIDATE_LIMITS.history + 1)}
    )
    ${counts}SELECT 'matched' AS found_as, ${columnsOf("matched")} FROM matched
    UNION ALL
    SELECT found_as, ${columnsOf("entity_part")} FROM entity_part
    UNION ALL
    SELECT 'similar' AS found_as, ${columnsOf("similar")} FROM similar
    UNION ALL
    SELECT 'history' AS found_as, ${columnsOf("history")} FROM history`;
}

/**
 * The latest references to each entity (fact ids are ULIDs, so the latest written), each entity's read
 * bounded apart: an entity a project names in a hundred thousand facts costs a bounded index read, not
 * a scan of them all. Room for closed versions among them: twice what the source keeps.
 */
function entityReferences(
  entityIds: string[],
  project: string,
  bind: (value: unknown) => string,
  perEntity = FACT_CANDIDATE_LIMITS.entity * 2,
): string {
  if (entityIds.length === 0) return "SELECT NULL AS fact_id WHERE 0";
  return entityIds
    .map(
      (id) => `SELECT * FROM (SELECT fact_id FROM fact_entities
        WHERE project_id = ${project} AND entity_id = ${bind(id)} ORDER BY fact_id DESC LIMIT ${perEntity})`,
    )
    .join(" UNION ALL ");
}

/** The columns a write inserts from its rows, by field, in the table's order; `revision`, last, is the batch's own. */
const INSERTED_COLUMNS = Object.entries(getTableColumns(facts)).filter(([field]) => field !== "revision");

/**
 * A write's new versions as few statements: each inserts a run of rows from one JSON parameter (an array
 * of rows, each an array of cells in INSERTED_COLUMNS order), stamped with the batch's revision. D1 runs
 * a batch's statements one by one, and 500 facts as 500 statements cost more than their rows did. The
 * rows go in the order given, as one statement per row did (the full-text index's triggers fire per row).
 * Only a repeated id is skipped: a second current version of a slot must fail the batch.
 */
function insertStatements(
  db: DrizzleD1Database,
  projectId: string,
  rows: readonly FactVersion[],
): BatchItem<"sqlite">[] {
  const cells = INSERTED_COLUMNS.map((_, i) => `json_extract(value, '$[${i}]')`).join(", ");
  const values = rows.map((row) =>
    INSERTED_COLUMNS.map(([field]) => {
      const value = (row as unknown as Record<string, unknown>)[field];
      // Booleans are stored as drizzle's boolean mode stores them.
      return typeof value === "boolean" ? (value ? 1 : 0) : (value ?? null);
    }),
  );
  // The selection lists every column in the table's order, `revision` last, as drizzle inserts them.
  return jsonRuns(values).map((run) =>
    db
      .insert(facts)
      .select(
        sql`SELECT ${sql.raw(cells)}, (SELECT revision FROM ${factRevisions} WHERE project_id = ${projectId})
          FROM json_each(${run}) WHERE true`,
      )
      .onConflictDoNothing({ target: [facts.projectId, facts.id] }),
  );
}

/**
 * Frozen: a thread holds a search's rows and hands the same objects to every compile that asks it again,
 * so none may be altered (and the compiler's cache recognises them as unchanged).
 */
const frozenRow = (raw: unknown) => Object.freeze(storedFactRow(raw as Record<string, unknown>));

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Facts of the whole project, and the user's own. */
const visibleTo = (userId: string) => or(isNull(facts.userId), eq(facts.userId, userId));

/** A thread object's in-memory copy of a project's facts (src/facts/fact-cache.ts), as registered in D1. */
export interface FactWatcher {
  thread: string;
  token: string;
}

/** What a committed write tells the copies it changed: the revision it brought the project to. */
export interface FactsWritten {
  revision: number;
  watchers: FactWatcher[];
}

/** A write planned against versions another writer changed first: plan again and retry. */
export class StaleFactPlan extends Error {
  constructor(projectId: string, cause: unknown) {
    super(`fact write in project '${projectId}' raced another writer`, { cause });
    this.name = "StaleFactPlan";
  }
}

/** The two constraints that reject a stale plan (migration 0005), as D1 reports them. */
function isStalePlan(error: unknown): boolean {
  const text = `${error instanceof Error ? error.message : String(error)} ${
    error instanceof Error && error.cause instanceof Error ? error.cause.message : ""
  }`;
  return /facts_one_current|fact_plan_stale|UNIQUE constraint failed: index/.test(text);
}

/** The entities a text names, and every name of each (normalised aliases) by id. */
export interface NamedIn {
  entities: QueryEntity[];
  names?: Record<string, string[]>;
}

/**
 * A read that rides in a search's first batch (the entity registry's lookup of the names a text
 * uses, src/entities/query-entities.ts): its statements, and the entities their results bind.
 */
export interface NamedLookup {
  statements: D1PreparedStatement[];
  decode(results: readonly D1Result[]): NamedIn;
  /**
   * The registry's query-independent part (src/entities/query-entities.ts): read with the base, held
   * with it (FactBase.registry), and what tells a lookup that cannot match from one that can.
   */
  registryStatements(withTerms: boolean): D1PreparedStatement[];
  decodeRegistry(results: readonly D1Result[]): RegistryPart;
  mayMatch(terms: readonly string[] | undefined): boolean;
  /** The entities the text names, from a held registry part that holds every entity; undefined otherwise. */
  decodeHeld(registry: RegistryPart): NamedIn | undefined;
}

/** Storage adapter for facts in one tenant's D1 database. */
export class FactRepository {
  private readonly db: DrizzleD1Database;

  constructor(private readonly database: D1Database) {
    this.db = drizzle(database);
  }

  /**
   * Everything planFactWrites needs: rows named by id, current rows by key, and the whole lineage of a
   * row that was superseded or that is not older than the oldest incoming write (which may have to be
   * spliced into its chain by valid time). `oldest` is that write's valid_from.
   */
  async loadForPlanning(
    projectId: string,
    ids: string[],
    keys: string[],
    oldest?: string,
  ): Promise<FactVersion[]> {
    // Each list travels as one JSON parameter (never past D1's bound on parameters), and the versions by
    // id and the current versions by key are read in one batch: a write of 500 facts costs two round
    // trips, not one per chunk of ids, keys and lineages.
    const among = (values: string[]) => sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;
    const found = new Map<string, FactVersion>();
    const [byId, byKey] = await this.db.batch([
      this.db
        .select()
        .from(facts)
        .where(and(eq(facts.projectId, projectId), inArray(facts.id, among([...new Set(ids)])))),
      this.db
        .select()
        .from(facts)
        .where(
          and(
            eq(facts.projectId, projectId),
            inArray(facts.key, among([...new Set(keys)])),
            // Unary + keeps SQLite on facts_project_key: by (project_id, tx_end) it would read every
            // current version of the project to find a few hundred keys.
            sql`+${facts.txEnd} IS NULL`,
          ),
        ),
    ]);
    for (const row of [...byId, ...byKey]) found.set(row.id, row);
    const lineages = [
      ...new Set(
        [...found.values()]
          .filter((r) => r.supersededBy || (oldest !== undefined && r.validFrom >= oldest))
          .map((r) => r.lineageId),
      ),
    ];
    if (lineages.length) {
      const rows = await this.db
        .select()
        .from(facts)
        .where(and(eq(facts.projectId, projectId), inArray(facts.lineageId, among(lineages))));
      for (const row of rows) found.set(row.id, row);
    }
    return [...found.values()];
  }

  /**
   * Current versions that refer to any of these entities, newest first and bounded: where a write looks
   * for its slot filed under another key (plan-writes.ts). One statement, the ids as one JSON parameter.
   */
  async currentReferencing(projectId: string, entityIds: readonly string[]): Promise<FactVersion[]> {
    if (!entityIds.length) return [];
    const found = await this.statement(
      (bind) => `SELECT * FROM facts WHERE project_id = ${bind(projectId)} AND tx_end IS NULL AND id IN (
          SELECT fact_id FROM fact_entities WHERE project_id = ${bind(projectId)}
            AND entity_id IN (SELECT value FROM json_each(${bind(JSON.stringify([...new Set(entityIds)]))})))
        ORDER BY tx_start DESC, id DESC LIMIT ${bind(SLOT_CANDIDATES)}`,
    ).all();
    return (found.results ?? []).map((raw) => storedFactRow(raw as Record<string, unknown>));
  }

  /**
   * Applies a plan as one D1 batch, which D1 runs as a single transaction. The batch first bumps the
   * project's revision, and every row it inserts or changes is stamped with it, so readers that cache
   * facts (fact-cache.ts) can ask for exactly what changed. It ends by reading the new revision and the
   * copies registered to be told of it, in the same transaction: a copy registered later loads after
   * this commit and so already holds the write. Nothing written, nothing returned.
   *
   * The plan was made against rows read earlier, and other threads of the project write concurrently.
   * Every closure and relink is guarded (it must still find the row as planned, see fact_plan_checks),
   * and the storage allows one current version per slot (facts_one_current); either failing rolls the
   * whole batch back and throws StaleFactPlan, and the caller plans again against what won.
   */
  async apply(
    projectId: string,
    plan: FactPlan,
    /** Statements that belong to the same write (the entity registry's, src/entities), run after the facts'. */
    alongside: BatchItem<"sqlite">[] = [],
  ): Promise<FactsWritten | undefined> {
    const revision: SQL<number> = sql`(SELECT ${factRevisions.revision} FROM ${factRevisions} WHERE ${factRevisions.projectId} = ${projectId})`;
    const statements: BatchItem<"sqlite">[] = [];
    // Closures first, so that the slot is free when its new current version is inserted; then relinks,
    // as a version closed by one write of the batch may be relinked by a later one.
    for (const closure of plan.closures) {
      statements.push(
        this.db
          .update(facts)
          .set({ isValid: false, supersededBy: closure.supersededBy, txEnd: closure.txEnd, revision })
          .where(and(eq(facts.projectId, projectId), eq(facts.id, closure.id), isNull(facts.txEnd))),
        this.matchedOne(),
      );
    }
    for (const relink of plan.relinks) {
      const column = relink.field === "supersedes" ? facts.supersedes : facts.supersededBy;
      statements.push(
        this.db
          .update(facts)
          .set({ [relink.field]: relink.to, revision })
          .where(
            and(
              eq(facts.projectId, projectId),
              eq(facts.id, relink.id),
              relink.from === null ? isNull(column) : eq(column, relink.from),
            ),
          ),
        this.matchedOne(),
      );
    }
    statements.push(...insertStatements(this.db, projectId, plan.inserts));
    for (const [factId, dependsOn] of plan.dependencies) {
      for (const dependsOnId of dependsOn) {
        statements.push(
          this.db.insert(factDependencies).values({ projectId, factId, dependsOnId }).onConflictDoNothing(),
        );
      }
    }
    for (const invalidated of plan.invalidated) {
      statements.push(
        this.db
          .update(facts)
          .set({ needsReview: true, revision })
          .where(
            and(
              eq(facts.projectId, projectId),
              inArray(
                facts.id,
                this.db
                  .select({ id: factDependencies.factId })
                  .from(factDependencies)
                  .where(
                    and(
                      eq(factDependencies.projectId, projectId),
                      inArray(factDependencies.dependsOnId, [invalidated.id, invalidated.key]),
                    ),
                  ),
              ),
            ),
          ),
      );
    }
    if (statements.length === 0) return undefined;
    const results = await this.db
      .batch([
        this.bump(projectId),
        ...statements,
        ...alongside,
        this.counter(projectId),
        this.watchers(projectId),
      ])
      .catch((error: unknown) => {
        throw isStalePlan(error) ? new StaleFactPlan(projectId, error) : error;
      });
    const [counter, watchers] = results.slice(-2) as [{ revision: number }[], FactWatcher[]];
    return { revision: counter[0]?.revision ?? 0, watchers };
  }

  /**
   * Moves the project's revision on without writing a version: a change to how stored facts compile
   * (an entity review decided, a merge or a split: seed 001 keeps facts naming a pending entity out of the
   * hard constraints) is announced like a write, so that readers holding the project's facts search
   * again. Returns the revision and the copies to tell, as a write does.
   */
  async touch(projectId: string): Promise<FactsWritten> {
    const [, counter, watchers] = (await this.db.batch([
      this.bump(projectId),
      this.counter(projectId),
      this.watchers(projectId),
    ])) as [unknown, { revision: number }[], FactWatcher[]];
    return { revision: counter[0]?.revision ?? 0, watchers };
  }

  private bump(projectId: string) {
    return this.db
      .insert(factRevisions)
      .values({ projectId, revision: 1 })
      .onConflictDoUpdate({
        target: factRevisions.projectId,
        set: { revision: sql`${factRevisions.revision} + 1` },
      });
  }

  private watchers(projectId: string) {
    return this.db
      .select({ thread: factWatchers.thread, token: factWatchers.token })
      .from(factWatchers)
      .where(eq(factWatchers.projectId, projectId));
  }

  /** Fails the batch (CHECK fact_plan_stale) unless the statement just before it changed exactly one row. */
  private matchedOne() {
    return this.db
      .insert(factPlanChecks)
      .values({ id: 1, matched: sql<number>`changes()` })
      .onConflictDoUpdate({ target: factPlanChecks.id, set: { matched: sql<number>`changes()` } });
  }

  private counter(projectId: string) {
    return this.db
      .select({ revision: factRevisions.revision })
      .from(factRevisions)
      .where(eq(factRevisions.projectId, projectId));
  }

  /** Registers (or renews) a copy to be told of every later write to the project. */
  private watch(projectId: string, watcher: FactWatcher) {
    return this.db
      .insert(factWatchers)
      .values({ projectId, ...watcher })
      .onConflictDoUpdate({
        target: [factWatchers.projectId, factWatchers.thread],
        set: { token: watcher.token },
      });
  }

  /**
   * The project's revision as D1 holds it now, read in the same batch as `watcher` registers (or renews
   * its registration): a write committed before the batch is counted, one committed after it is told.
   */
  async revisionNow(projectId: string, watcher: FactWatcher): Promise<number> {
    const results = await this.database.batch([
      this.prepared(this.watch(projectId, watcher)),
      this.prepared(this.counter(projectId)),
    ]);
    return (results[1]?.results[0] as { revision: number } | undefined)?.revision ?? 0;
  }

  /** Drops registrations whose copies are gone; a copy that registered again has a new token and stays. */
  async forget(projectId: string, gone: FactWatcher[]): Promise<void> {
    const [first, ...rest] = gone.map((w) =>
      this.db
        .delete(factWatchers)
        .where(
          and(
            eq(factWatchers.projectId, projectId),
            eq(factWatchers.thread, w.thread),
            eq(factWatchers.token, w.token),
          ),
        ),
    );
    if (first) await this.db.batch([first, ...rest]);
  }

  /**
   * The candidate facts of a compile or an extraction run for this reader (fact-candidates.ts), with
   * the project revision they are current as of. The facts nearest the text in the project's vector index
   * (`near`) are awaited first (the caller bounds that wait); then one D1 batch, one transaction: the
   * reader's registration, when given, made or renewed (so every later write announces itself to it);
   * unless the caller holds them at the current revision, the revision, the newest versions and the
   * standing rules; the entity registry's read for the names in the text (`named`); and one statement
   * that counts, chooses and ranks the full-text matches, reads the nearest facts, and the earlier
   * versions of every slot those fill (and, with the newest versions held, of the standing rules' slots
   * outside them). A second read follows only when the text names a registered entity (its facts and
   * their slots) or when the newest versions were read in the first (the standing rules' slots outside
   * them). D1 runs one statement at a time, so every read it is spared is time off the compile.
   */
  async candidates(
    projectId: string,
    userId: string,
    terms: readonly string[],
    watcher: FactWatcher | undefined,
    named: NamedLookup | undefined = undefined,
    near: PromiseLike<string[]> = Promise.resolve([]),
    held?: FactBase,
    since?: FactBase,
    /** The question's own part, as the project's fact replica answers it (only with `held`). */
    replicated?: ReplicaRead,
    /** The reading thread, whose own current facts are a source (`thread`); none without it. */
    thread?: string,
  ): Promise<FactCandidates> {
    const registering = watcher ? [this.prepared(this.watch(projectId, watcher))] : [];
    // The query-independent part (revision, newest versions, standing rules) is read unless the caller
    // holds it at the project's current revision; held at an earlier one (`since`), only the versions
    // written or changed after it are read, and merged in.
    const baseStatements = held
      ? []
      : [
          this.prepared(this.counter(projectId)),
          ...(since
            ? [this.changedSince(projectId, userId, since)]
            : this.baseReads(projectId, userId, thread)),
        ];
    const none = { keys: [] as string[], ids: [] as string[] };
    // With the newest versions held, the nearest facts are awaited (the caller bounds that wait) and read
    // in the first batch, and so are the slots of the standing rules outside the newest versions; a
    // project the newest versions hold whole has nothing to add from them. Otherwise the first batch goes
    // at once, and they follow in the second read, which then knows the newest versions.
    const wholeHeld = held !== undefined && wholeProject(held.recent);
    const heldIds = held && !wholeHeld ? new Set(newestCandidates(held.recent).map((r) => r.id)) : undefined;
    const heldOutside = held ? historyTargets(held) : none;
    const search: MatchSearch | undefined = terms.length ? { terms, projectId, userId } : undefined;
    // The question's own part: the replica's answer when it has one (D1's first batch then carries only
    // what the replica cannot answer), else one statement, in the first batch or after it.
    const foundStatement = async () => {
      const nearFirst = heldIds ? (await near).filter((id) => !heldIds.has(id)) : [];
      return search || nearFirst.length || heldOutside.keys.length || heldOutside.ids.length
        ? [
            this.statement((bind) =>
              foundSql(
                { search, entityIds: [], similarIds: nearFirst, outside: heldOutside, projectId, userId },
                bind,
              ),
            ),
          ]
        : [];
    };
    const fromReplica = (held || since) && replicated ? replicated.rows : undefined;
    const found = fromReplica ? [] : await foundStatement();
    // The registry's query-independent part (pending references, and its terms while they are few) is
    // held with a base at the current revision and not read again; a question whose names share no
    // held term then reads nothing of the registry either: the lookup could find no entity.
    const registry = held?.registry;
    // A registry past the bound of terms held is not asked for them again: a large registry only grows
    // (a merge keeps the absorbed names), and without them any name may match, which is always safe.
    const withTerms = since?.registry === undefined || since.registry.terms !== undefined;
    const registryRead = named && !registry ? named.registryStatements(withTerms) : [];
    // A registry held whole resolves the text's names without a read.
    const heldNames = named && registry ? named.decodeHeld(registry) : undefined;
    const lookup =
      named && !heldNames && (!registry || named.mayMatch(registry.terms)) ? named.statements : [];
    // Names resolved from the held registry: their facts are read in the first batch too, unless the
    // replica was asked for them.
    const replicaNamed = fromReplica !== undefined && replicated?.named === true;
    const namedEarly =
      held && heldNames && !replicaNamed ? heldNames.entities.filter((e) => !e.pending).map((e) => e.id) : [];
    const early = namedEarly.length
      ? [
          this.statement((bind) =>
            foundSql(
              { search: undefined, entityIds: namedEarly, similarIds: [], outside: none, projectId, userId },
              bind,
            ),
          ),
        ]
      : [];
    const first = [...registering, ...baseStatements, ...lookup, ...registryRead, ...found, ...early];
    const results = first.length ? (await this.database.batch(first)).slice(registering.length) : [];
    const rowsOf = (result: D1Result | undefined) => (result?.results ?? []).map(frozenRow);
    const revision = (results[0]?.results[0] as { revision: number } | undefined)?.revision ?? 0;
    const lookedUp = results.slice(baseStatements.length, baseStatements.length + lookup.length);
    const registryAt = baseStatements.length + lookup.length;
    const readRegistry =
      named && registryRead.length
        ? named.decodeRegistry(results.slice(registryAt, registryAt + registryRead.length))
        : undefined;
    const pending = registry?.pending ?? readRegistry?.pending ?? [];
    const readBase: FactBase =
      held ??
      (since
        ? await this.advanced(projectId, userId, since, rowsOf(results[1]), revision)
        : baseOf(revision, results.slice(1), thread));
    // Read in the same batch as the base's revision, the registry's part is held with it.
    const base: FactBase = held || !readRegistry ? readBase : { ...readBase, registry: readRegistry };
    const { entities, names: entityNames } =
      heldNames ?? (named && lookup.length ? named.decode(lookedUp) : { entities: [] });
    const answers: (D1Result | undefined)[] = results.slice(results.length - found.length - early.length);
    const answered = fromReplica ? await fromReplica : undefined;
    // After a write (the part held brought up to date here), the replica's answer counts only at the very
    // revision D1 read the changes at, and only when it read the entities D1's registry now names.
    const namedIds = entities.filter((e) => !e.pending).map((e) => e.id);
    const inStep =
      held !== undefined ||
      (answered?.revision === revision &&
        sameMembers(replicated?.asked.entityIds ?? [], replicaNamed ? namedIds : []));
    // Every version the answer names is sent or held; one neither (which a correct replica never
    // answers) makes the answer unusable, and D1 is asked as when the replica is behind.
    const replica = answered && inStep ? replicaRows(answered, replicated?.known) : undefined;
    if (!replica && fromReplica) {
      const statement = await foundStatement();
      if (statement[0]) answers.push(await statement[0].all());
    }
    // Pending entities name no facts here; those read early, or by the replica, are read.
    const entityIds = early.length || (replica && replicaNamed) ? [] : namedIds;
    const later = held
      ? { similarIds: [], outside: none }
      : replica && replicated
        ? await this.nearAndOutsideBeyond(base, near, replicated.asked)
        : await this.nearAndOutside(base, near);
    if (
      entityIds.length ||
      later.similarIds.length ||
      later.outside.keys.length ||
      later.outside.ids.length
    ) {
      answers.push(
        await this.statement((bind) =>
          foundSql({ search: undefined, entityIds, ...later, projectId, userId }, bind),
        ).all(),
      );
    }
    const read = {
      recent: base.recent,
      standing: base.standing,
      thread: base.thread ?? [],
      matched: [] as FactVersion[],
      entity: [] as FactVersion[],
      neighbour: [] as FactVersion[],
      similar: [] as FactVersion[],
      history: [] as FactVersion[],
    };
    let counted: Record<string, number> = {};
    let neighbours: string[] = [];
    if (replica) {
      for (const source of REPLICA_SOURCES) {
        for (const id of replica.answer[source]) read[source].push(replica.rows.get(id) as FactVersion);
      }
      counted = replica.answer.counts;
      neighbours = replica.answer.neighbours;
    }
    for (const answer of answers) {
      for (const raw of (answer?.results ?? []) as (Record<string, unknown> & { found_as: FoundAs })[]) {
        if (raw.found_as === "counts") counted = JSON.parse((raw.value_json as string | null) ?? "{}");
        else if (raw.found_as === "neighbours")
          neighbours = JSON.parse((raw.value_json as string | null) ?? "[]");
        else read[raw.found_as].push(frozenRow(raw));
      }
    }
    // Two reads each bring the newest of their slots' versions: together, newest first, as one source.
    if (answers.length + (replica ? 1 : 0) > 1) read.history.sort(newestFirst);
    // The choice the statement made, for the trace: whether a term was left out of the ranking.
    const choice = rankedTerms(
      terms,
      terms.map((term) => counted[term] ?? 0),
    );
    // The neighbours' facts count with the entity source, after the named entities' own; only those
    // are the facts the question names (entityFactIds), so only those weigh as relevant to it.
    const direct = read.entity.map((row) => row.id);
    const assembled = assembleCandidates(
      { ...read, entity: [...read.entity, ...read.neighbour] },
      base.revision,
      choice.dropped > 0 || choice.newest,
      entities,
    );
    return {
      ...assembled,
      entityFactIds: direct,
      neighbours,
      pending: [...pending],
      ...(entityNames ? { entityNames } : {}),
      base,
      ...(replica ? { replicated: true } : {}),
    };
  }

  /** The newest versions the reader may know of and the current standing rules, each one past its bound. */
  private baseReads(projectId: string, userId: string, thread?: string): D1PreparedStatement[] {
    const limits = FACT_CANDIDATE_LIMITS;
    const visible = and(eq(facts.projectId, projectId), visibleTo(userId));
    const own =
      thread === undefined
        ? []
        : [
            this.prepared(
              this.db
                .select()
                .from(facts)
                .where(and(visible, eq(facts.threadId, thread), isNull(facts.txEnd)))
                .orderBy(desc(facts.txStart), desc(facts.id))
                .limit(limits.thread + 1),
            ),
          ];
    return [
      this.prepared(
        this.db
          .select()
          .from(facts)
          .where(visible)
          .orderBy(desc(facts.txStart), desc(facts.id))
          .limit(WHOLE_PROJECT_VERSIONS + 1),
      ),
      this.prepared(
        this.db
          .select()
          .from(facts)
          .where(and(visible, isNull(facts.txEnd), STANDING))
          .orderBy(desc(facts.authorityRank), desc(facts.txStart), desc(facts.id))
          .limit(limits.standing + 1),
      ),
      ...own,
    ];
  }

  /**
   * The versions the reader may know of that were written or changed after `since` was read: every
   * statement that writes a version stamps it with its batch's revision. One past BASE_CHANGES_LIMIT.
   */
  private changedSince(projectId: string, userId: string, since: FactBase): D1PreparedStatement {
    return this.prepared(
      this.db
        .select()
        .from(facts)
        .where(and(eq(facts.projectId, projectId), gt(facts.revision, since.revision), visibleTo(userId)))
        .limit(BASE_CHANGES_LIMIT + 1),
    );
  }

  /**
   * The held part brought to `revision` with the versions changed since (advanceBase). When more changed
   * than BASE_CHANGES_LIMIT, or the merge cannot be exact, the part is read afresh in a read of its own;
   * it keeps the revision of the batch the rest of the search was read in, so a write in between is
   * announced as newer than what the reader holds and read at its next search.
   */
  private async advanced(
    projectId: string,
    userId: string,
    since: FactBase,
    changed: FactVersion[],
    revision: number,
  ): Promise<FactBase> {
    const merged = changed.length <= BASE_CHANGES_LIMIT ? advanceBase(since, changed, revision) : undefined;
    if (merged) return merged;
    const results = await this.database.batch(this.baseReads(projectId, userId, since.threadId));
    return baseOf(revision, results, since.threadId);
  }

  /** What a search that read the newest versions reads after them: the nearest facts outside them, and the standing rules' slots. */
  private async nearAndOutside(
    base: FactBase,
    near: PromiseLike<string[]>,
  ): Promise<{ similarIds: string[]; outside: HistoryTargets }> {
    const outside = historyTargets(base);
    // Newest versions that are the whole project hold every fact the index could find: none outside.
    if (wholeProject(base.recent)) return { similarIds: [], outside };
    const inRecent = new Set(newestCandidates(base.recent).map((r) => r.id));
    return { similarIds: (await near).filter((id) => !inRecent.has(id)), outside };
  }

  /**
   * What a search that read the changes since the part it held reads after them, besides what the
   * replica was asked with that part: the nearest facts the write pushed out of the newest versions, and
   * the standing rules' slots that fell outside them. Usually nothing.
   */
  private async nearAndOutsideBeyond(
    base: FactBase,
    near: PromiseLike<string[]>,
    asked: ReplicaRead["asked"],
  ): Promise<{ similarIds: string[]; outside: HistoryTargets }> {
    const all = await this.nearAndOutside(base, near);
    const wasHeld = new Set(asked.heldIds);
    const keys = new Set(asked.outside.keys);
    const ids = new Set(asked.outside.ids);
    return {
      similarIds: all.similarIds.filter((id) => wasHeld.has(id)),
      outside: {
        keys: all.outside.keys.filter((key) => !keys.has(key)),
        ids: all.outside.ids.filter((id) => !ids.has(id)),
      },
    };
  }

  /** A statement whose text numbers its parameters as `bind` hands them out. */
  private statement(build: (bind: (value: unknown) => string) => string): D1PreparedStatement {
    const params: unknown[] = [];
    const text = build((value) => {
      params.push(value);
      return `?${params.length}`;
    });
    return this.database.prepare(text).bind(...params);
  }

  private prepared(query: { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
    const { sql: text, params } = query.toSQL();
    return this.database.prepare(text).bind(...params);
  }

  /**
   * The newest `limit` current versions this user may know of, by key then transaction time; one more
   * is read to tell whether any was left out.
   */
  async currentInProject(
    projectId: string,
    userId: string,
    limit: number,
  ): Promise<{ rows: FactVersion[]; truncated: boolean }> {
    const newest = await this.db
      .select()
      .from(facts)
      .where(and(eq(facts.projectId, projectId), isNull(facts.txEnd), visibleTo(userId)))
      .orderBy(desc(facts.txStart), desc(facts.id))
      .limit(limit + 1);
    const rows = newest
      .slice(0, limit)
      .sort((a, b) => compareText(a.key, b.key) || compareText(a.txStart, b.txStart));
    return { rows, truncated: newest.length > limit };
  }

  async byId(id: string, projectId?: string): Promise<FactVersion[]> {
    return this.db
      .select()
      .from(facts)
      .where(projectId ? and(eq(facts.id, id), eq(facts.projectId, projectId)) : eq(facts.id, id));
  }

  /** Versions of one project by id, in id order (chunked under D1's parameter limit). */
  async byIds(projectId: string, ids: readonly string[]): Promise<FactVersion[]> {
    const rows: FactVersion[] = [];
    for (const part of chunks([...new Set(ids)])) {
      rows.push(
        ...(await this.db
          .select()
          .from(facts)
          .where(and(eq(facts.projectId, projectId), inArray(facts.id, part)))),
      );
    }
    return rows.sort((a, b) => compareText(a.id, b.id));
  }

  async lineage(projectId: string, lineageId: string): Promise<FactVersion[]> {
    return this.db
      .select()
      .from(facts)
      .where(and(eq(facts.projectId, projectId), eq(facts.lineageId, lineageId)))
      .orderBy(asc(facts.txStart), asc(facts.validFrom));
  }

  /**
   * One page of GET /facts: versions matching every filter, in cursor order (fact-cursor.ts), after
   * `after`. Every filter is applied here, before the limit, so a page is never cut from a prefix of the
   * table. The temporal filters are facts/temporal.ts's, in SQL: `validAt` keeps a version whose valid
   * time covers it and whose successor (as known at `asOf`) had not begun by then; `asOf` alone, what
   * was believed then; neither, the current versions unless `history`.
   */
  async page(filter: FactPageFilter, after: FactPosition | undefined, limit: number): Promise<FactVersion[]> {
    const successor = alias(facts, "successor");
    const notDisputed = ne(facts.contradictionStatus, "disputed");
    const { asOf, validAt } = filter;
    const temporal = validAt
      ? and(
          notDisputed,
          lte(facts.validFrom, validAt),
          or(isNull(facts.validUntil), gt(facts.validUntil, validAt)),
          asOf ? lte(facts.txStart, asOf) : undefined,
          notExists(
            this.db
              .select({ id: successor.id })
              .from(successor)
              .where(
                and(
                  eq(successor.projectId, facts.projectId),
                  eq(successor.id, facts.supersededBy),
                  lte(successor.validFrom, validAt),
                  asOf ? lte(successor.txStart, asOf) : undefined,
                ),
              ),
          ),
        )
      : asOf
        ? and(notDisputed, lte(facts.txStart, asOf), or(isNull(facts.txEnd), gt(facts.txEnd, asOf)))
        : filter.history
          ? undefined
          : and(notDisputed, isNull(facts.txEnd), eq(facts.isValid, true));
    return this.db
      .select()
      .from(facts)
      .where(
        and(
          filter.projectId ? eq(facts.projectId, filter.projectId) : undefined,
          filter.key ? eq(facts.key, filter.key) : undefined,
          filter.userId === null ? isNull(facts.userId) : visibleTo(filter.userId),
          temporal,
          after
            ? sql`(${facts.projectId}, ${facts.key}, ${facts.txStart}, ${facts.id}) > (${after.projectId}, ${after.key}, ${after.txStart}, ${after.id})`
            : undefined,
        ),
      )
      .orderBy(asc(facts.projectId), asc(facts.key), asc(facts.txStart), asc(facts.id))
      .limit(limit);
  }
}

/** The filters of one GET /facts page. */
export interface FactPageFilter {
  key?: string;
  projectId?: string;
  asOf?: string;
  validAt?: string;
  /** Every version, not only current ones (ignored with asOf or validAt). */
  history: boolean;
  /** Whose private facts may be read; null: nobody's, shared facts only. */
  userId: string | null;
}

/** The query-independent part as baseReads' statements answered it, at `revision`. */
function baseOf(revision: number, results: readonly (D1Result | undefined)[], thread?: string): FactBase {
  const rows = (result: D1Result | undefined) => (result?.results ?? []).map(frozenRow);
  return {
    revision,
    recent: rows(results[0]),
    standing: rows(results[1]),
    ...(thread === undefined ? {} : { threadId: thread, thread: rows(results[2]) }),
  };
}
