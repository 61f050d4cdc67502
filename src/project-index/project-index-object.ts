import { DurableObject } from "cloudflare:workers";
import { SqliteVectorIndex } from "../adapters/sqlite-vector-index/sqlite-vector-index";
import { SNAPSHOT_BYTES_PER_TURN } from "../adapters/sqlite-vector-index/stored-parts";
import type { Env } from "../env";
import { MAX_TOP_K, type VectorMatch } from "../ports/vector-index";
import { projectDatabase } from "../tenancy/placement";
import { lookupTenant } from "../tenancy/registry";
import { FactReplica } from "./fact-replica";
import type {
  FactSearchAnswer,
  FactSearchRequest,
  IndexedFact,
  NearFact,
  ProjectIndexRpc,
} from "./project-index-rpc";

/** Vectors written per upsert at most: one call's rows stay a bounded transaction. */
const UPSERT_CHUNK = 500;
/**
 * Replica pages read at once, for a writer's word or while a search waits (the rest is read by the
 * alarm; the search goes to D1 meanwhile).
 */
const CATCH_UP_PAGES = 1;
/** Replica pages read per alarm: a replica far behind catches up in the background, a run at a time. */
const ALARM_CATCH_UP_PAGES = 10;
/**
 * How long the vectors must go unwritten before their decoded copy is stored whole (decoded-snapshot.ts),
 * for the object's next cold start to read instead of every vector's row: a burst of writes (an import's
 * batches, sent one after another) has then ended. Writes after it do not make the snapshot stale (each
 * notes its ids, which a cold start reads again), so it is stored again only once they pass a quarter
 * of its vectors: an agent writing every turn does not rewrite every vector every turn, and a runtime
 * restarted right after writes (a deploy) still finds one to start from.
 */
export const SNAPSHOT_QUIET_MS = 2_000;
/**
 * How long writes that never go quiet can put the snapshot off: under them its notes would grow without
 * bound (fact versions come and go under new ids while the namespace stays the same size).
 */
export const SNAPSHOT_LONGEST_WAIT_MS = 60_000;

/**
 * The vector half of a project's fact search, offline: one Durable Object per (tenant, project) holding
 * the embeddings of the project's current facts in its own SQLite (the offline VectorIndex adapter,
 * whose inverted lists keep a query bounded past 20,000 vectors). Facts are project-wide and written by
 * any thread, so their vectors live here once, not in every thread that reads them; the thread that
 * writes a fact indexes it (src/thread/facts/project-fact-index.ts) and a compile asks for the facts
 * nearest its query, which then join its candidates whatever their age. In the deployed shape this is
 * the tenant's Vectorize index, one namespace per project.
 *
 * It also keeps the project's facts as a read replica of D1 with a full-text index (fact-replica.ts), so
 * the part of a compile's fact search that depends on its question is answered here, in the same call as
 * the nearest facts, instead of by a D1 round trip.
 *
 * The object is a thin shell: it checks that each call names the tenant and project it was created for
 * (its name is derived from both, src/project-index/project-index-stub.ts), and answers from the index.
 */
export class ProjectIndexObject extends DurableObject<Env> implements ProjectIndexRpc {
  private readonly vectors: SqliteVectorIndex;
  private readonly replica: FactReplica;
  private bound: { tenant: string; project: string } | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS project_index_owner (id INTEGER PRIMARY KEY CHECK (id = 1), tenant TEXT NOT NULL, project TEXT NOT NULL)",
    );
    // When the vectors were last written, and first since the last check of their snapshot, while that
    // check is still to come: stored, not held, because the object is often evicted before it is due,
    // and the alarm wakes a new one.
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS project_index_vector_writes (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL)",
    );
    const columns = ctx.storage.sql.exec<{ name: string }>("PRAGMA table_info(project_index_vector_writes)");
    if (!columns.toArray().some((c) => c.name === "since")) {
      ctx.storage.sql.exec("ALTER TABLE project_index_vector_writes ADD COLUMN since INTEGER");
    }
    // Decoded on writes too: a compile right after a bulk import would otherwise decode every vector.
    this.vectors = new SqliteVectorIndex(ctx.storage.sql, { decodeOnWrite: true });
    this.replica = new FactReplica(ctx.storage);
  }

  /**
   * A writer's word that the project reached `revision`: the replica reads it now, so the question that
   * usually follows a write finds it current rather than reading it while the question waits. Words
   * arriving during a read wait for it and are then mostly answered by it, so a burst of writes (a bulk
   * import) is read in a few pages rather than one read per write; past a page, the alarm goes on.
   */
  async advance(tenant: string, projectId: string, revision: number): Promise<void> {
    this.own(tenant, projectId);
    await this.replica.settled();
    if (this.replica.revision() >= revision) return;
    await this.catchUp(tenant, projectId, CATCH_UP_PAGES);
  }

  /** Whether a slice of reading full-text lists is scheduled (prepareRankingSoon). */
  private preparingRanking = false;

  /**
   * The nearest facts and, once the replica holds the reader's revision, the query-dependent part of
   * its fact search. A replica behind it reads one page while the search waits; still behind, it
   * answers without rows (the reader asks D1) and goes on catching up in the background.
   */
  async search(tenant: string, projectId: string, request: FactSearchRequest): Promise<FactSearchAnswer> {
    this.own(tenant, projectId);
    const { vector } = request;
    const near = vector
      ? await this.nearest(
          tenant,
          projectId,
          vector.namespace,
          vector.values,
          request.userId,
          request.nearLimit,
        )
      : [];
    if (this.replica.revision() < request.revision) {
      // The writer's word usually has a read in flight: it is waited for before reading again.
      await this.replica.settled();
      if (this.replica.revision() < request.revision) await this.catchUp(tenant, projectId, CATCH_UP_PAGES);
      if (this.replica.revision() < request.revision) return { near };
    }
    const held = new Set(request.heldIds);
    const rows = this.replica.search({
      userId: request.userId,
      terms: request.terms,
      similarIds: near.map((n) => n.id).filter((id) => !held.has(id)),
      outside: request.outside,
      entityIds: request.entityIds,
      known: request.knownIds,
      since: request.knownAt,
    });
    this.prepareRankingSoon();
    return { near, rows };
  }

  /**
   * The full-text lists the search wanted are read after it has answered, a slice of rows at a time,
   * each slice after whatever requests arrived meanwhile.
   */
  private prepareRankingSoon(): void {
    if (this.preparingRanking) return;
    this.preparingRanking = true;
    const slice = () => {
      let more = false;
      try {
        more = this.replica.prepareRanking();
      } catch (error) {
        // Only speed is lost: FTS5 goes on ranking the phrases not held.
        console.error("could not read full-text lists", error);
      }
      if (more) setTimeout(slice, 0);
      else this.preparingRanking = false;
    };
    setTimeout(slice, 0);
  }

  /**
   * The background catch-up of a replica left behind, and the vectors' snapshot once writes go quiet,
   * stored SNAPSHOT_BYTES_PER_TURN an alarm, each alarm setting the next for now until it is whole.
   */
  override async alarm(): Promise<void> {
    const owner = this.owner();
    if (owner) await this.catchUp(owner.tenant, owner.project, ALARM_CATCH_UP_PAGES);
    if (this.vectors.snapshotUnderway() && (await this.snapshotTurn())) return;
    const written = this.ctx.storage.sql
      .exec<{ at: number; since: number | null }>(
        "SELECT at, since FROM project_index_vector_writes WHERE id = 1",
      )
      .toArray()[0];
    if (written === undefined) return;
    const due = snapshotCheckDue(written.at, written.since ?? written.at);
    if (Date.now() < due) {
      await this.alarmBy(due);
      return;
    }
    // Writes from here on are checked by the next check, whatever this one stages.
    this.ctx.storage.sql.exec("DELETE FROM project_index_vector_writes WHERE id = 1");
    await this.snapshotTurn();
  }

  /** One turn of storing the vectors' snapshots; whether more is left, for which the alarm is set now. */
  private async snapshotTurn(): Promise<boolean> {
    try {
      const { more } = this.vectors.snapshotTurn(SNAPSHOT_BYTES_PER_TURN);
      if (more) await this.ctx.storage.setAlarm(Date.now());
      return more;
    } catch (error) {
      // Only cold starts are slower without it: the end of the next burst of writes tries again.
      console.error("could not store the vectors' snapshot", error);
      this.vectors.abandonSnapshots();
      return false;
    }
  }

  /**
   * After a write to the vectors: their snapshot is checked once they have gone SNAPSHOT_QUIET_MS
   * unwritten, or SNAPSHOT_LONGEST_WAIT_MS after the first write since the last check.
   */
  private async vectorsWritten(): Promise<void> {
    const at = Date.now();
    const { since } = this.ctx.storage.sql
      .exec<{ since: number }>(
        `INSERT INTO project_index_vector_writes (id, at, since) VALUES (1, ?1, ?1)
           ON CONFLICT (id) DO UPDATE SET at = excluded.at, since = coalesce(since, excluded.at)
           RETURNING since`,
        at,
      )
      .one();
    await this.alarmBy(snapshotCheckDue(at, since));
  }

  /** Sets the alarm for `at` unless one is set sooner (the replica's catch-up sets its own, for now). */
  private async alarmBy(at: number): Promise<void> {
    const set = await this.ctx.storage.getAlarm();
    if (set === null || set > at) await this.ctx.storage.setAlarm(at);
  }

  /**
   * Reads what changed in D1 into the replica, and sets an alarm to go on while more is left. A failed
   * read is logged and left to the next write, search or alarm: the replica only lags, never errs.
   */
  private async catchUp(tenant: string, projectId: string, pages: number): Promise<void> {
    const found = lookupTenant(this.env, tenant);
    if (!found) return;
    try {
      const database = await projectDatabase(found, projectId, "read-only");
      const { revision, latest } = await this.replica.catchUp(database, projectId, pages);
      if (revision < latest) await this.ctx.storage.setAlarm(Date.now());
    } catch (error) {
      console.error("could not bring the fact replica up to date", tenant, projectId, error);
      await this.ctx.storage.setAlarm(Date.now() + 1_000);
    }
  }

  async upsert(tenant: string, projectId: string, namespace: string, facts: IndexedFact[]): Promise<void> {
    this.own(tenant, projectId);
    try {
      await this.upsertChunks(namespace, facts);
    } finally {
      // Chunks written before a failing one are in storage: their snapshot is due as well.
      await this.vectorsWritten();
    }
  }

  private async upsertChunks(namespace: string, facts: IndexedFact[]): Promise<void> {
    for (let i = 0; i < facts.length; i += UPSERT_CHUNK) {
      await this.vectors.upsert(
        facts.slice(i, i + UPSERT_CHUNK).map((fact) => ({
          id: fact.id,
          namespace,
          values: fact.values,
          metadata: { user: fact.user },
        })),
      );
    }
  }

  async remove(tenant: string, projectId: string, namespace: string, ids: string[]): Promise<void> {
    this.own(tenant, projectId);
    try {
      await this.vectors.deleteByIds(namespace, ids);
    } finally {
      await this.vectorsWritten();
    }
  }

  /**
   * The facts nearest the vector that the user may know of: the project's, and the user's own. One
   * unfiltered query, filtered here: the index answers unfiltered queries of large namespaces from its
   * inverted lists, but a metadata filter makes it read every row (700 ms at 100,000 facts).
   * It asks for `limit` first, and for the most the index gives only when other users' own facts took
   * places in a full answer: past 20,000 vectors each match is read again from its stored row, so asking
   * for 100 to keep 50 cost a third more (13.7 against 10.3 ms a query inside workerd at 1,000,000 facts;
   * in Node 8.7 against 7.1, with the same 50 in all of 200 questions).
   */
  async nearest(
    tenant: string,
    projectId: string,
    namespace: string,
    vector: number[],
    userId: string,
    limit: number,
  ): Promise<NearFact[]> {
    this.own(tenant, projectId);
    if (vector.every((v) => v === 0)) return [];
    const wanted = Math.min(Math.max(1, limit), MAX_TOP_K);
    const visible = (matches: VectorMatch[]) =>
      matches.filter((m) => m.metadata.user === "" || m.metadata.user === userId);
    const first = await this.vectors.query(vector, { topK: wanted, namespace });
    let found = visible(first);
    if (found.length < wanted && first.length === wanted && wanted < MAX_TOP_K) {
      found = visible(await this.vectors.query(vector, { topK: MAX_TOP_K, namespace }));
    }
    return found.slice(0, wanted).map((m) => ({ id: m.id, score: m.score }));
  }

  /**
   * The tenant and project the object is bound to, once bound: a binding never changes, so it is read
   * from storage once per instance rather than on every call.
   */
  private owner(): { tenant: string; project: string } | undefined {
    this.bound ??= this.ctx.storage.sql
      .exec<{ tenant: string; project: string }>(
        "SELECT tenant, project FROM project_index_owner WHERE id = 1",
      )
      .toArray()[0];
    return this.bound;
  }

  /** Binds the object to the first tenant and project that use it, and refuses any other. */
  private own(tenant: string, projectId: string): void {
    const held = this.owner();
    if (!held) {
      this.ctx.storage.sql.exec(
        "INSERT INTO project_index_owner (id, tenant, project) VALUES (1, ?, ?)",
        tenant,
        projectId,
      );
      this.bound = { tenant, project: projectId };
      return;
    }
    if (held.tenant !== tenant || held.project !== projectId) {
      throw new Error("this project index belongs to another tenant or project");
    }
  }
}

/** When the vectors' snapshot is checked: after a quiet spell, or after the longest wait under writes. */
function snapshotCheckDue(lastWrite: number, firstWrite: number): number {
  return Math.min(lastWrite + SNAPSHOT_QUIET_MS, firstWrite + SNAPSHOT_LONGEST_WAIT_MS);
}
