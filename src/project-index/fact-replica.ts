import { FACT_CANDIDATE_LIMITS } from "../facts/fact-candidates";
import { matchExpression, RANKED_MATCH_BUDGET, rankedTerms } from "../retrieval/query-terms";

/**
 * A project's facts as its index object keeps them: a read replica of the `facts` rows in D1, current
 * and closed, with a full-text index (FTS5, porter, bm25) over the current ones. D1 stays the record;
 * the replica is what a compile asks instead of it for the part of the fact search that depends on the
 * question (the matches, the facts nearest the query, and their slots' versions), so a new question
 * costs a call to the object that already answers the vector half, and no D1 round trip.
 *
 * It follows D1 by the project's revision: every statement that writes a fact version stamps the row
 * with its batch's revision (src/facts/fact-repository.ts apply), so the rows changed after the
 * revision the replica is complete up to are exactly the rows whose revision is higher. `catchUp` reads
 * them a page at a time, whole revisions only, and applies each page in one transaction; a page is
 * bounded, so a replica far behind (a project that predates it, or a bulk import) is caught up over
 * several calls, and until then answers `behind` (the reader searches D1 as before). Writers tell the
 * object after each committed write, so it is usually current before anyone asks.
 *
 * This module owns its three tables in the object's SQLite; it does no I/O but the D1 read it is given.
 */

/** Rows applied per catch-up read at most (a single revision larger than this is read whole). */
export const REPLICA_PAGE = 2_000;

/** The columns of a facts row as D1 returns it; stored as its JSON and handed back as read. */
export type RawFactRow = Record<string, unknown> & {
  id: string;
  key: string;
  user_id: string | null;
  tx_start: string;
  tx_end: string | null;
  content: string;
  revision: number;
};

/** The query-dependent part of a fact search (fact-candidates.ts), as the replica is asked for it. */
export interface ReplicaQuery {
  userId: string;
  /** Terms to match (query-terms.ts), none to match nothing. */
  terms: readonly string[];
  /** Ids of facts nearest the query, best first, that are not in the reader's held newest versions. */
  similarIds: readonly string[];
  /** Slots and versions whose history the reader wants besides those the answer finds (historyTargets). */
  outside: { keys: readonly string[]; ids: readonly string[] };
}

/** Rows of the answer by source, each one past its bound, and each term's matches (up to the budget plus one). */
export interface ReplicaRows {
  revision: number;
  counts: Record<string, number>;
  matched: RawFactRow[];
  similar: RawFactRow[];
  history: RawFactRow[];
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS replica_facts (
    doc INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL,
    user_id TEXT,
    tx_start TEXT NOT NULL,
    tx_end TEXT,
    row TEXT NOT NULL
  )`,
  "CREATE INDEX IF NOT EXISTS replica_facts_key ON replica_facts (key)",
  // The text D1's fact_search indexes (migration 0006): key and content.
  "CREATE VIRTUAL TABLE IF NOT EXISTS replica_search USING fts5(text, tokenize = 'porter unicode61')",
  "CREATE TABLE IF NOT EXISTS replica_state (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL)",
];

export class FactReplica {
  /** The catch-up in flight: one at a time, so pages are applied in order. */
  private catching: Promise<unknown> | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly sql: SqlStorage = storage.sql,
  ) {
    for (const statement of SCHEMA) sql.exec(statement);
  }

  /**
   * The project revision every row of which the replica holds; -1 before its first read (rows written
   * before migration 0003 carry revision 0).
   */
  revision(): number {
    return (
      this.sql.exec<{ revision: number }>("SELECT revision FROM replica_state WHERE id = 1").toArray()[0]
        ?.revision ?? -1
    );
  }

  /**
   * Reads from D1 what changed after the replica's revision, up to `pages` pages: the revision the
   * replica is then complete up to, and the project's own (`latest`), which it may still be behind when
   * more changed than the pages hold. Calls run one after another, each from where the last one left off.
   */
  async catchUp(
    database: D1Database,
    projectId: string,
    pages = 1,
  ): Promise<{ revision: number; latest: number }> {
    while (this.catching) await this.catching.catch(() => undefined);
    const reading = this.readPages(database, projectId, pages);
    this.catching = reading
      .catch(() => undefined)
      .finally(() => {
        this.catching = undefined;
      });
    return reading;
  }

  private async readPages(
    database: D1Database,
    projectId: string,
    pages: number,
  ): Promise<{ revision: number; latest: number }> {
    let revision = this.revision();
    let latest = revision;
    for (let page = 0; page < pages; page++) {
      const [counter, changed] = await database.batch<Record<string, unknown>>([
        database.prepare("SELECT revision FROM fact_revisions WHERE project_id = ?").bind(projectId),
        database
          .prepare("SELECT * FROM facts WHERE project_id = ? AND revision > ? ORDER BY revision LIMIT ?")
          .bind(projectId, revision, REPLICA_PAGE + 1),
      ]);
      latest = Number(counter?.results[0]?.revision ?? 0);
      let rows = (changed?.results ?? []) as RawFactRow[];
      let reached = latest;
      if (rows.length > REPLICA_PAGE) {
        // Only whole revisions: the last one in the page may go on past it.
        const last = (rows[REPLICA_PAGE] as RawFactRow).revision;
        rows = rows.filter((row) => row.revision < last);
        reached = last - 1;
        if (rows.length === 0) {
          // One write larger than a page: read it whole.
          const whole = await database
            .prepare("SELECT * FROM facts WHERE project_id = ? AND revision = ?")
            .bind(projectId, last)
            .all<RawFactRow>();
          rows = whole.results ?? [];
          reached = last;
        }
      }
      if (reached > revision) this.apply(rows, reached);
      revision = reached;
      if (reached >= latest) break;
    }
    return { revision, latest };
  }

  /** One page, in one transaction: each row replaces its older copy, and is in the full-text index while current. */
  private apply(rows: readonly RawFactRow[], revision: number): void {
    this.storage.transactionSync(() => {
      for (const row of rows) {
        const held = this.sql
          .exec<{ doc: number }>("SELECT doc FROM replica_facts WHERE id = ?", row.id)
          .toArray()[0];
        if (held) {
          this.sql.exec("DELETE FROM replica_search WHERE rowid = ?", held.doc);
          this.sql.exec(
            "UPDATE replica_facts SET key = ?, user_id = ?, tx_start = ?, tx_end = ?, row = ? WHERE doc = ?",
            row.key,
            row.user_id,
            row.tx_start,
            row.tx_end,
            JSON.stringify(row),
            held.doc,
          );
        } else {
          this.sql.exec(
            "INSERT INTO replica_facts (id, key, user_id, tx_start, tx_end, row) VALUES (?, ?, ?, ?, ?, ?)",
            row.id,
            row.key,
            row.user_id,
            row.tx_start,
            row.tx_end,
            JSON.stringify(row),
          );
        }
        if (row.tx_end === null) {
          const doc =
            held?.doc ?? this.sql.exec<{ doc: number }>("SELECT last_insert_rowid() AS doc").one().doc;
          this.sql.exec(
            "INSERT INTO replica_search (rowid, text) VALUES (?, ?)",
            doc,
            `${row.key} ${row.content}`,
          );
        }
      }
      this.sql.exec(
        "INSERT INTO replica_state (id, revision) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET revision = excluded.revision",
        revision,
      );
    });
  }

  /**
   * The query-dependent part of a search, as D1's statement answers it (fact-repository.ts foundSql
   * without entities): the current matches this user may know of, best first by bm25 over the terms
   * worth ranking (rankedTerms; the newest matches when none is), the nearest facts by id, and every
   * version of the slots those fill and of `outside` not already in the answer, newest first.
   */
  search(query: ReplicaQuery): ReplicaRows {
    const limits = FACT_CANDIDATE_LIMITS;
    const counts: Record<string, number> = {};
    for (const term of query.terms) {
      counts[term] = this.sql
        .exec<{ n: number }>(
          "SELECT count(*) AS n FROM (SELECT rowid FROM replica_search WHERE replica_search MATCH ? LIMIT ?)",
          matchExpression([term]),
          RANKED_MATCH_BUDGET + 1,
        )
        .one().n;
    }
    const choice = rankedTerms(
      query.terms,
      query.terms.map((term) => counts[term] ?? 0),
    );
    const visible = "(f.user_id IS NULL OR f.user_id = ?)";
    const matched = choice.ranked.length
      ? this.rows(
          `SELECT f.row FROM (
            SELECT rowid AS doc, ${choice.newest ? "-rowid" : "bm25(replica_search)"} AS score
            FROM replica_search WHERE replica_search MATCH ? ORDER BY score LIMIT ?
          ) hit CROSS JOIN replica_facts f ON f.doc = hit.doc
          WHERE f.tx_end IS NULL AND ${visible}
          ORDER BY hit.score, f.tx_start DESC, f.id DESC LIMIT ?`,
          matchExpression(choice.ranked),
          (limits.matched + 1) * 2,
          query.userId,
          limits.matched + 1,
        )
      : [];
    const similar = query.similarIds.length
      ? this.rows(
          `SELECT f.row FROM json_each(?) s CROSS JOIN replica_facts f ON f.id = s.value
          WHERE f.tx_end IS NULL AND ${visible} ORDER BY s.key`,
          JSON.stringify(query.similarIds),
          query.userId,
        )
      : [];
    const found = [...matched, ...similar];
    const keys = [...new Set([...found.map((r) => r.key), ...query.outside.keys])];
    const history =
      keys.length || query.outside.ids.length
        ? this.rows(
            `SELECT row FROM (
              SELECT f.row, f.tx_start, f.id FROM json_each(?) k CROSS JOIN replica_facts f ON f.key = k.value
                WHERE ${visible} AND f.id NOT IN (SELECT value FROM json_each(?))
              UNION
              SELECT f.row, f.tx_start, f.id FROM json_each(?) i CROSS JOIN replica_facts f ON f.id = i.value
                WHERE ${visible} AND f.id NOT IN (SELECT value FROM json_each(?))
            ) ORDER BY tx_start DESC, id DESC LIMIT ?`,
            JSON.stringify(keys),
            query.userId,
            JSON.stringify(found.map((r) => r.id)),
            JSON.stringify(query.outside.ids),
            query.userId,
            JSON.stringify(found.map((r) => r.id)),
            limits.history + 1,
          )
        : [];
    return { revision: this.revision(), counts, matched, similar, history };
  }

  private rows(statement: string, ...bindings: unknown[]): RawFactRow[] {
    return this.sql
      .exec<{ row: string }>(statement, ...bindings)
      .toArray()
      .map((r) => JSON.parse(r.row) as RawFactRow);
  }
}
