import type { FactVersion } from "../../domain/fact-version";
import type { Embedder } from "../../ports/embedder";
import { MAX_TOP_K, type VectorIndex } from "../../ports/vector-index";
import type { SqlHost } from "../host";
import { embedIntoIndex } from "./embed-into-index";

export const FACT_VECTOR_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS fact_embedded (embedder TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (embedder, id))`,
];

/** Facts embedded per upkeep pass at most, as for messages: one pass on a cold thread stays bounded. */
export const FACT_EMBED_PER_PASS = 2_000;

/**
 * The vector side of fact retrieval: the current facts this thread compiles with, embedded through the
 * Embedder port into the thread's VectorIndex under one namespace per embedder. Facts are project-wide
 * and written by any thread, so each thread indexes the ones its copy holds once they reach it (on the
 * write path: src/thread/upkeep.ts; a fact version's text never changes, so once is enough), and drops
 * the ones no longer current,
 * which keeps the index to what a compile can use. Which facts are in the index is kept in the thread's
 * SQLite (`fact_embedded`), so a restarted object does not embed them again.
 */
export class FactVectors {
  /** Ids in the index, per embedder, loaded from `fact_embedded` on first use. */
  private readonly indexed = new Map<string, Set<string>>();
  /**
   * The project revision at which the index last held every current fact the reader may know of, per
   * embedder (`heldWhole`); any sync since forgets it until it is said again.
   */
  private readonly whole = new Map<string, number>();

  private readonly sql: SqlStorage;

  constructor(
    host: SqlHost,
    private readonly vectors: VectorIndex,
  ) {
    this.sql = host.sql;
    for (const statement of FACT_VECTOR_SCHEMA) this.sql.exec(statement);
  }

  /** The indexed facts nearest the query vector, nearest first. */
  async nearest(
    embedder: Embedder,
    namespace: string,
    query: number[],
    limit: number,
  ): Promise<{ id: string; score: number }[]> {
    if (this.ids(embedder).size === 0 || query.every((v) => v === 0)) return [];
    const matches = await this.vectors.query(query, { topK: Math.min(limit, MAX_TOP_K), namespace });
    return matches.map((m) => ({ id: m.id, score: m.score }));
  }

  /**
   * The caller synced the index, to the end, with every version of the project the reader may know of
   * at `revision` (a read whose newest versions were not cut): the index then holds the project's
   * current facts, each as the project's own index holds it.
   */
  heldWhole(embedder: Embedder, revision: number): void {
    this.whole.set(embedder.name, revision);
  }

  /** Whether the index holds the project's current facts at `revision` (see `heldWhole`). */
  holdsWhole(embedder: Embedder, revision: number): boolean {
    return this.whole.get(embedder.name) === revision;
  }

  private ids(embedder: Embedder): Set<string> {
    let ids = this.indexed.get(embedder.name);
    if (!ids) {
      ids = new Set(
        this.sql
          .exec<{ id: string }>("SELECT id FROM fact_embedded WHERE embedder = ?", embedder.name)
          .toArray()
          .map((r) => r.id),
      );
      this.indexed.set(embedder.name, ids);
    }
    return ids;
  }

  /**
   * Brings the index to the current facts among `rows`: embeds up to FACT_EMBED_PER_PASS not indexed
   * yet, and drops those no longer current. True when some may remain for another pass.
   */
  async sync(rows: readonly FactVersion[], embedder: Embedder, namespace: string): Promise<boolean> {
    this.whole.delete(embedder.name);
    const ids = this.ids(embedder);
    const current = new Set<string>();
    const pending: FactVersion[] = [];
    let stillCurrent = 0;
    for (const row of rows) {
      if (!row.isValid || row.txEnd !== null) continue;
      current.add(row.id);
      if (ids.has(row.id)) stillCurrent++;
      else if (pending.length < FACT_EMBED_PER_PASS) pending.push(row);
    }
    const more = current.size - stillCurrent > pending.length;
    // Every indexed fact still current, as on nearly every compile: nothing to look for.
    const retired = stillCurrent === ids.size ? [] : [...ids].filter((id) => !current.has(id));
    if (retired.length) {
      await this.vectors.deleteByIds(namespace, retired);
      for (const id of retired) {
        ids.delete(id);
        this.sql.exec("DELETE FROM fact_embedded WHERE embedder = ? AND id = ?", embedder.name, id);
      }
    }
    const entries = pending.map((row) => ({ id: row.id, text: row.content }));
    await embedIntoIndex(embedder, this.vectors, namespace, "fact", entries, (embedded) => {
      for (const id of embedded) {
        ids.add(id);
        this.sql.exec(
          "INSERT INTO fact_embedded (embedder, id) VALUES (?, ?) ON CONFLICT DO NOTHING",
          embedder.name,
          id,
        );
      }
    });
    return more;
  }
}
