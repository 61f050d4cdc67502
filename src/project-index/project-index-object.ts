import { DurableObject } from "cloudflare:workers";
import { SqliteVectorIndex } from "../adapters/sqlite-vector-index/sqlite-vector-index";
import type { Env } from "../env";
import { MAX_TOP_K } from "../ports/vector-index";
import type { IndexedFact, NearFact, ProjectIndexRpc } from "./project-index-rpc";

/** Vectors written per upsert at most: one call's rows stay a bounded transaction. */
const UPSERT_CHUNK = 500;

/**
 * The vector half of a project's fact search, offline: one Durable Object per (tenant, project) holding
 * the embeddings of the project's current facts in its own SQLite (the offline VectorIndex adapter,
 * whose inverted lists keep a query bounded past 20,000 vectors). Facts are project-wide and written by
 * any thread, so their vectors live here once, not in every thread that reads them; the thread that
 * writes a fact indexes it (src/thread/facts/project-fact-index.ts) and a compile asks for the facts
 * nearest its query, which then join its candidates whatever their age. In the deployed shape this is
 * the tenant's Vectorize index, one namespace per project.
 *
 * The object is a thin shell: it checks that each call names the tenant and project it was created for
 * (its name is derived from both, src/project-index/project-index-stub.ts), and answers from the index.
 */
export class ProjectIndexObject extends DurableObject<Env> implements ProjectIndexRpc {
  private readonly vectors: SqliteVectorIndex;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS project_index_owner (id INTEGER PRIMARY KEY CHECK (id = 1), tenant TEXT NOT NULL, project TEXT NOT NULL)",
    );
    this.vectors = new SqliteVectorIndex(ctx.storage.sql);
  }

  async upsert(tenant: string, projectId: string, namespace: string, facts: IndexedFact[]): Promise<void> {
    this.own(tenant, projectId);
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
    await this.vectors.deleteByIds(namespace, ids);
  }

  /**
   * The facts nearest the vector that the user may know of: the project's, and the user's own. One
   * unfiltered query, filtered here: the index answers unfiltered queries of large namespaces from its
   * inverted lists, but a metadata filter makes it read every row (700 ms at 100,000 facts).
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
    const nearest = await this.vectors.query(vector, { topK: MAX_TOP_K, namespace });
    return nearest
      .filter((m) => m.metadata.user === "" || m.metadata.user === userId)
      .slice(0, Math.min(Math.max(1, limit), MAX_TOP_K))
      .map((m) => ({ id: m.id, score: m.score }));
  }

  /** Binds the object to the first tenant and project that use it, and refuses any other. */
  private own(tenant: string, projectId: string): void {
    const sql = this.ctx.storage.sql;
    const held = sql
      .exec<{ tenant: string; project: string }>(
        "SELECT tenant, project FROM project_index_owner WHERE id = 1",
      )
      .toArray()[0];
    if (!held) {
      sql.exec("INSERT INTO project_index_owner (id, tenant, project) VALUES (1, ?, ?)", tenant, projectId);
      return;
    }
    if (held.tenant !== tenant || held.project !== projectId) {
      throw new Error("this project index belongs to another tenant or project");
    }
  }
}
