import { and, asc, desc, eq, gt, inArray, isNull, lte, ne, notExists, or, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import { alias } from "drizzle-orm/sqlite-core";
import type { FactVersion } from "../domain/fact-version";
import type { FactPosition } from "./fact-cursor";
import { storedFactRow } from "./fact-rows";
import {
  factDependencies,
  factPlanChecks,
  factRevisions,
  facts,
  factWatchers,
  type StoredFactRow,
} from "./fact-schema";
import type { FactPlan } from "./plan-writes";

/** D1 binds at most 100 parameters per statement; lookups are chunked well under that. */
const CHUNK = 80;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

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
  /**
   * With a `catchUp` request: the rows that user may know of changed after the given revision, this
   * write's included, read in the write's own transaction (see FactCache.absorb).
   */
  changed?: StoredFactRow[];
}

/** The writer's own copy of the facts, which the write can bring up to date on its way. */
export interface FactCatchUp {
  userId: string;
  /** The revision the copy holds every change up to. */
  since: number;
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
    const found = new Map<string, FactVersion>();
    for (const part of chunks([...new Set(ids)])) {
      for (const row of await this.db
        .select()
        .from(facts)
        .where(and(eq(facts.projectId, projectId), inArray(facts.id, part)))) {
        found.set(row.id, row);
      }
    }
    for (const part of chunks([...new Set(keys)])) {
      const rows = await this.db
        .select()
        .from(facts)
        .where(and(eq(facts.projectId, projectId), inArray(facts.key, part), isNull(facts.txEnd)));
      for (const row of rows) found.set(row.id, row);
    }
    const lineages = [
      ...new Set(
        [...found.values()]
          .filter((r) => r.supersededBy || (oldest !== undefined && r.validFrom >= oldest))
          .map((r) => r.lineageId),
      ),
    ];
    for (const part of chunks(lineages)) {
      const rows = await this.db
        .select()
        .from(facts)
        .where(and(eq(facts.projectId, projectId), inArray(facts.lineageId, part)));
      for (const row of rows) found.set(row.id, row);
    }
    return [...found.values()];
  }

  /**
   * Applies a plan as one D1 batch, which D1 runs as a single transaction. The batch first bumps the
   * project's revision, and every row it inserts or changes is stamped with it, so readers that cache
   * facts (fact-cache.ts) can ask for exactly what changed. It ends by reading the new revision and the
   * copies registered to be told of it, in the same transaction: a copy registered later loads after
   * this commit and so already holds the write. Nothing written, nothing returned.
   *
   * With `catchUp`, the batch also reads what changed since the writer's own copy was current, so the
   * writer's next compile needs no read of its own: one round trip instead of two per write.
   *
   * The plan was made against rows read earlier, and other threads of the project write concurrently.
   * Every closure and relink is guarded (it must still find the row as planned, see fact_plan_checks),
   * and the storage allows one current version per slot (facts_one_current); either failing rolls the
   * whole batch back and throws StaleFactPlan, and the caller plans again against what won.
   */
  async apply(projectId: string, plan: FactPlan, catchUp?: FactCatchUp): Promise<FactsWritten | undefined> {
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
    for (const row of plan.inserts) {
      statements.push(
        this.db
          .insert(facts)
          .values({ ...row, revision })
          // Only a repeated id is skipped: a second current version of a slot must fail the batch.
          .onConflictDoNothing({ target: [facts.projectId, facts.id] }),
      );
    }
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
    const bump = this.db
      .insert(factRevisions)
      .values({ projectId, revision: 1 })
      .onConflictDoUpdate({
        target: factRevisions.projectId,
        set: { revision: sql`${factRevisions.revision} + 1` },
      });
    const results = await this.db
      .batch([
        bump,
        ...statements,
        this.counter(projectId),
        this.db
          .select({ thread: factWatchers.thread, token: factWatchers.token })
          .from(factWatchers)
          .where(eq(factWatchers.projectId, projectId)),
        ...(catchUp ? [this.changedRows(projectId, catchUp.userId, catchUp.since)] : []),
      ])
      .catch((error: unknown) => {
        throw isStalePlan(error) ? new StaleFactPlan(projectId, error) : error;
      });
    const tail = results.slice(catchUp ? -3 : -2);
    const [counter, watchers, changed] = tail as [{ revision: number }[], FactWatcher[], StoredFactRow[]?];
    return { revision: counter[0]?.revision ?? 0, watchers, ...(changed ? { changed } : {}) };
  }

  /** Fails the batch (CHECK fact_plan_stale) unless the statement just before it changed exactly one row. */
  private matchedOne() {
    return this.db
      .insert(factPlanChecks)
      .values({ id: 1, matched: sql<number>`changes()` })
      .onConflictDoUpdate({ target: factPlanChecks.id, set: { matched: sql<number>`changes()` } });
  }

  private changedRows(projectId: string, userId: string, revision: number) {
    return this.db
      .select()
      .from(facts)
      .where(and(eq(facts.projectId, projectId), gt(facts.revision, revision), visibleTo(userId)));
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
   * Candidates for a compile: the newest versions in the project this user may know of, newest first,
   * with the project revision they are current as of. One batch, one transaction: the copy is
   * registered, and the counter and rows agree with each other and with every later announcement.
   */
  async forCompile(
    projectId: string,
    userId: string,
    limit: number,
    watcher: FactWatcher,
  ): Promise<{ revision: number; rows: StoredFactRow[] }> {
    return this.watchedRead(
      projectId,
      watcher,
      this.db
        .select()
        .from(facts)
        .where(and(eq(facts.projectId, projectId), visibleTo(userId)))
        .orderBy(desc(facts.txStart), desc(facts.id))
        .limit(limit),
    );
  }

  /**
   * Rows this user may know of that were inserted or changed after `revision`, and the project revision
   * they bring the reader to (the same transaction, so nothing between the two is missed). An unchanged
   * project answers with no rows from an index seek. The copy's registration is renewed on the way.
   */
  async changedSince(
    projectId: string,
    userId: string,
    revision: number,
    watcher: FactWatcher,
  ): Promise<{ revision: number; rows: StoredFactRow[] }> {
    const changed = await this.watchedRead(projectId, watcher, this.changedRows(projectId, userId, revision));
    return { revision: Math.max(revision, changed.revision), rows: changed.rows };
  }

  /**
   * One transaction: the copy's registration renewed, the project's revision, and the rows read. The
   * statements are drizzle's, sent as D1's own batch (also one transaction) so the rows skip drizzle's
   * generic mapping for storedFactRow's (see fact-rows.ts): a full read is thousands of rows.
   */
  private async watchedRead(
    projectId: string,
    watcher: FactWatcher,
    rows: { toSQL(): { sql: string; params: unknown[] } },
  ): Promise<{ revision: number; rows: StoredFactRow[] }> {
    const [, counter, read] = await this.database.batch([
      this.prepared(this.watch(projectId, watcher)),
      this.prepared(this.counter(projectId)),
      this.prepared(rows),
    ]);
    const revision = (counter?.results[0] as { revision: number } | undefined)?.revision ?? 0;
    return {
      revision,
      rows: (read?.results ?? []).map((row) => storedFactRow(row as Record<string, unknown>)),
    };
  }

  private prepared(query: { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
    const { sql: text, params } = query.toSQL();
    return this.database.prepare(text).bind(...params);
  }

  async currentInProject(projectId: string): Promise<FactVersion[]> {
    return this.db
      .select()
      .from(facts)
      .where(and(eq(facts.projectId, projectId), isNull(facts.txEnd)))
      .orderBy(asc(facts.key), asc(facts.txStart));
  }

  async byId(id: string, projectId?: string): Promise<FactVersion[]> {
    return this.db
      .select()
      .from(facts)
      .where(projectId ? and(eq(facts.id, id), eq(facts.projectId, projectId)) : eq(facts.id, id));
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
