import { BoundedMap } from "../compiler/cache/memo-tables";
import { jsonList } from "../d1/json-list";
import {
  FACT_CANDIDATE_LIMITS,
  NEIGHBOUR_FACTS,
  NEIGHBOUR_REFERENCES,
  NEIGHBOUR_SCAN,
  NEIGHBOURS,
} from "../facts/fact-candidates";
import { leanFactRow } from "../facts/fact-rows";
import { HeldBm25 } from "../retrieval/held-bm25";
import {
  anyFormPhrases,
  matchAnyForm,
  RANKED_MATCH_BUDGET,
  rankedTerms,
  rankedTermsWithin,
} from "../retrieval/query-terms";

/**
 * A project's facts as its index object keeps them: a read replica of the `facts` rows in D1, current
 * and closed, with a full-text index (FTS5, porter, bm25) over the current ones and the entities each
 * refers to (`fact_entities`). D1 stays the record;
 * the replica is what a compile asks instead of it for the part of the fact search that depends on the
 * question (the matches, the facts nearest the query, and their slots' versions), so a new question
 * costs a call to the object that already answers the vector half, and no D1 round trip.
 *
 * It follows D1 by the project's revision: every statement that writes a fact version stamps the row
 * with its batch's revision (src/facts/fact-repository.ts apply), so the rows changed after the
 * revision the replica is complete up to are exactly the rows whose revision is higher. A fact's entity
 * references are written in the batch that writes it, and an entity merge or split that moves them
 * stamps the facts it moved (src/entities/entity-edits.ts), so they are read with their facts. `catchUp` reads
 * them a page at a time, whole revisions only, and applies each page in one transaction; a page is
 * bounded, so a replica far behind (a project that predates it, or a bulk import) is caught up over
 * several calls, and until then answers `behind` (the reader searches D1 as before). Writers tell the
 * object after each committed write, so it is usually current before anyone asks.
 *
 * This module owns its three tables in the object's SQLite; it does no I/O but the D1 read it is given.
 */

/** Rows applied per catch-up read at most (a single revision larger than this is read whole). */
export const REPLICA_PAGE = 2_000;

/**
 * What the replica remembers between searches: each term's match count, and each named entity part (by
 * user and entities). Questions come back to the same words and the same few entities, and a write
 * mostly leaves both as they were: a page applied keeps each count, with how far the page can have
 * moved it (TermCount), and forgets only the parts of the entities it touched (touchedBy).
 */
const MEMO_TERMS = 10_000;
const MEMO_NAMED = 256;
/**
 * A page of more rows than this forgets every entity part rather than read which entities its rows
 * referred to before: a bulk write touches most of them anyway.
 */
const NAMED_PAGE = 200;

/**
 * A term's matches as counted (up to the budget plus one), with the full-text rows the replica had
 * added and removed by then: rows added and removed since bound how far the count can have moved.
 */
interface TermCount {
  count: number;
  added: number;
  removed: number;
}

/**
 * The columns of a facts row as D1 returns it; stored as the JSON of its lean form (fact-rows.ts
 * leanFactRow) and handed back so. A row stored whole, before rows were lean, reads back the same.
 */
export type RawFactRow = Record<string, unknown> & {
  id: string;
  key: string;
  user_id: string | null;
  tx_start: string;
  tx_end: string | null;
  content: string;
  revision: number;
};

interface Reference {
  fact_id: string;
  entity_id: string;
}

/** The first parameter of the entity part's statement that names an entity (FactReplica.named). */
const FIRST_ENTITY = 9;

/** The query-dependent part of a fact search (fact-candidates.ts), as the replica is asked for it. */
export interface ReplicaQuery {
  userId: string;
  /** Terms to match (query-terms.ts), none to match nothing. */
  terms: readonly string[];
  /** Ids of facts nearest the query, best first, that are not in the reader's held newest versions. */
  similarIds: readonly string[];
  /** Slots and versions whose history the reader wants besides those the answer finds (historyTargets). */
  outside: { keys: readonly string[]; ids: readonly string[] };
  /** Registered entities the question names (not pending): their facts and neighbourhood are read too. */
  entityIds: readonly string[];
  /**
   * Versions the reader holds as of `since`: the answer names them without their rows, unless they
   * changed after it (a later write closed or restamped them), so a version travels once per reader.
   */
  known: readonly string[];
  since: number;
}

/**
 * The answer: the ids each source found, in its order and one past its bound; each version found that the
 * reader does not hold as it is now, once, as the JSON of its lean D1 row (the reader decodes it; a version
 * two sources found travels once); and each term's matches as last counted (up to the budget plus one;
 * possibly off by the writes since, never by enough to change which terms rank).
 */
export interface ReplicaRows {
  revision: number;
  counts: Record<string, number>;
  rows: Record<string, string>;
  matched: string[];
  similar: string[];
  entity: string[];
  neighbour: string[];
  /** The neighbouring entities whose facts `neighbour` holds. */
  neighbours: string[];
  history: string[];
}

/** A version as a search finds it: what the search itself needs (its row is read once, at the end). */
type FoundRow = { id: string; key: string };

/**
 * The versions a stored row refers to, as a JSON array, from its D1 row's JSON: the one it supersedes and
 * those it depends on (fact-candidates.ts referencesOf); NULL when none, as for most rows. `row` must name
 * its table (`p.value`, not `value`): inside, json_each's own `value` column would shadow a bare one.
 */
const REFERENCES = (row: string) => `nullif((SELECT json_group_array(value) FROM (
    SELECT ${row} ->> 'supersedes' AS value WHERE value IS NOT NULL
    UNION ALL SELECT value FROM json_each(${jsonList(`${row} ->> 'depends_on_json'`)}))), '[]')`;

/**
 * The slots that the versions in `from`'s slots refer to (a reference that names no version names a
 * slot), through the index of the rows that refer to anything; `?3` is the reader.
 */
const REFERRED_SLOTS = (from: string) => `SELECT coalesce(t.key, r.value) FROM ${from} s
                CROSS JOIN replica_facts v INDEXED BY replica_facts_referring ON v.key = s.key
                CROSS JOIN json_each(v.refs) r
                LEFT JOIN replica_facts t ON t.id = r.value
                WHERE v.refs IS NOT NULL AND (v.user_id IS NULL OR v.user_id = ?3)`;

/** The entity part of a search: the named entities' facts, their neighbours, and the neighbours' facts. */
interface NamedPart {
  entity: FoundRow[];
  neighbour: FoundRow[];
  neighbours: string[];
}

/** A part as remembered: with the entities it was read from (those named and their neighbours). */
interface HeldPart {
  part: NamedPart;
  entities: readonly string[];
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS replica_facts (
    doc INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL,
    user_id TEXT,
    tx_start TEXT NOT NULL,
    tx_end TEXT,
    row TEXT NOT NULL,
    revision INTEGER,
    refs TEXT
  )`,
  "CREATE INDEX IF NOT EXISTS replica_facts_key ON replica_facts (key)",
  // The text D1's fact_search indexes (migration 0006): key and content.
  "CREATE VIRTUAL TABLE IF NOT EXISTS replica_search USING fts5(text, tokenize = 'porter unicode61')",
  `CREATE TABLE IF NOT EXISTS replica_refs (
    entity_id TEXT NOT NULL,
    fact_id TEXT NOT NULL,
    PRIMARY KEY (entity_id, fact_id)
  ) WITHOUT ROWID`,
  "CREATE INDEX IF NOT EXISTS replica_refs_fact ON replica_refs (fact_id)",
  "CREATE TABLE IF NOT EXISTS replica_state (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL)",
  "CREATE TABLE IF NOT EXISTS replica_layout (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)",
];

/**
 * The layout of the `refs` column the replica's rows hold. 1: a row's references were read by `apply`
 * without what it depends on (a bare `value` there named json_each's own column); 2: both. A replica
 * of an earlier layout reads them again from its rows when the object starts.
 */
const REFERENCES_LAYOUT = 2;

export class FactReplica {
  /** The catch-up in flight: one at a time, so pages are applied in order. */
  private catching: Promise<unknown> | undefined;
  private readonly termCounts = new BoundedMap<string, TermCount>(MEMO_TERMS);
  private readonly namedParts = new BoundedMap<string, HeldPart>(MEMO_NAMED);
  /** Full-text rows added, and removed at most, since the object started: what TermCount is told against. */
  private added = 0;
  private removed = 0;
  /** bm25 over the full-text index from each phrase's rows held between searches (held-bm25.ts). */
  private readonly ranking: HeldBm25;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly sql: SqlStorage = storage.sql,
  ) {
    for (const statement of SCHEMA) sql.exec(statement);
    this.ranking = new HeldBm25(sql, "replica_search");
    // A replica made before rows carried their revision: those rows are always sent (revision unknown).
    const columns = sql.exec<{ name: string }>("PRAGMA table_info(replica_facts)").toArray();
    if (!columns.some((c) => c.name === "revision")) {
      sql.exec("ALTER TABLE replica_facts ADD COLUMN revision INTEGER");
    }
    // A replica made before rows carried their references (or before they held what a row depends on)
    // reads them from the rows it holds, once.
    const layout =
      sql.exec<{ version: number }>("SELECT version FROM replica_layout WHERE id = 1").toArray()[0]
        ?.version ?? 0;
    if (layout < REFERENCES_LAYOUT) {
      storage.transactionSync(() => {
        if (!columns.some((c) => c.name === "refs")) {
          sql.exec("ALTER TABLE replica_facts ADD COLUMN refs TEXT");
        }
        sql.exec(`UPDATE replica_facts SET refs = ${REFERENCES("row")}`);
        sql.exec(
          `INSERT INTO replica_layout (id, version) VALUES (1, ?)
            ON CONFLICT (id) DO UPDATE SET version = excluded.version`,
          REFERENCES_LAYOUT,
        );
      });
    }
    // The few rows that refer to anything, by slot: following references reads these, not every version
    // of every slot found. Made here, as the column may have just been added.
    sql.exec(
      "CREATE INDEX IF NOT EXISTS replica_facts_referring ON replica_facts (key) WHERE refs IS NOT NULL",
    );
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
    // Checked again right before reading: two callers woken by the same read must not both read.
    while (this.catching) await this.catching.catch(() => undefined);
    const reading = this.readPages(database, projectId, pages);
    this.catching = reading
      .catch(() => undefined)
      .finally(() => {
        this.catching = undefined;
      });
    return reading;
  }

  /** Once the catch-up in flight, if any, is done. */
  async settled(): Promise<void> {
    while (this.catching) await this.catching.catch(() => undefined);
  }

  private async readPages(
    database: D1Database,
    projectId: string,
    pages: number,
  ): Promise<{ revision: number; latest: number }> {
    let revision = this.revision();
    let latest = revision;
    for (let page = 0; page < pages; page++) {
      const changed = `SELECT * FROM facts WHERE project_id = ?1 AND revision > ?2 ORDER BY revision LIMIT ?3`;
      const [counter, found, references] = await database.batch<Record<string, unknown>>([
        database.prepare("SELECT revision FROM fact_revisions WHERE project_id = ?").bind(projectId),
        database.prepare(changed).bind(projectId, revision, REPLICA_PAGE + 1),
        database
          .prepare(`SELECT fact_id, entity_id FROM fact_entities WHERE project_id = ?1 AND fact_id IN (
              SELECT id FROM (${changed}))`)
          .bind(projectId, revision, REPLICA_PAGE + 1),
      ]);
      latest = Number(counter?.results[0]?.revision ?? 0);
      let rows = (found?.results ?? []) as RawFactRow[];
      let refs = (references?.results ?? []) as unknown as Reference[];
      let reached = latest;
      if (rows.length > REPLICA_PAGE) {
        // Only whole revisions: the last one in the page may go on past it.
        const last = (rows[REPLICA_PAGE] as RawFactRow).revision;
        rows = rows.filter((row) => row.revision < last);
        reached = last - 1;
        if (rows.length === 0) {
          // One write larger than a page: read it whole.
          const one = `SELECT * FROM facts WHERE project_id = ?1 AND revision = ?2`;
          const [whole, wholeRefs] = await database.batch<Record<string, unknown>>([
            database.prepare(one).bind(projectId, last),
            database
              .prepare(`SELECT fact_id, entity_id FROM fact_entities WHERE project_id = ?1 AND fact_id IN (
                  SELECT id FROM (${one}))`)
              .bind(projectId, last),
          ]);
          rows = (whole?.results ?? []) as RawFactRow[];
          refs = (wholeRefs?.results ?? []) as unknown as Reference[];
          reached = last;
        }
      }
      if (reached > revision) this.apply(rows, refs, reached);
      revision = reached;
      if (reached >= latest) break;
    }
    return { revision, latest };
  }

  /**
   * One page, in one transaction: each row replaces its older copy, and is in the full-text index while
   * current; its entity references replace the ones held (a reference read for a fact outside the page,
   * the page having been cut, is skipped: it is read with its fact).
   */
  private apply(rows: readonly RawFactRow[], refs: readonly Reference[], revision: number): void {
    // A page is a few statements over JSON parameters, not several per row: applying is the index
    // object's share of a bulk write's cost.
    const page = JSON.stringify(
      rows.map((r) => [
        r.id,
        r.key,
        r.user_id,
        r.tx_start,
        r.tx_end,
        JSON.stringify(leanFactRow(r)),
        `${r.key} ${r.content}`,
        r.revision,
      ]),
    );
    const ids = new Set(rows.map((r) => r.id));
    const idList = JSON.stringify([...ids]);
    const links = JSON.stringify(
      refs.filter((ref) => ids.has(ref.fact_id)).map((ref) => [ref.entity_id, ref.fact_id]),
    );
    // Each remembered count stays, bounded by the rows this page adds and removes; each remembered
    // entity part stays unless the page touches one of its entities (touchedBy).
    const added = rows.filter((r) => r.tx_end == null).length;
    const forget =
      this.namedParts.size === 0
        ? undefined
        : rows.length > NAMED_PAGE
          ? "all"
          : this.touchedBy(idList, refs);
    const docs = this.storage.transactionSync(() => {
      this.sql.exec(
        `DELETE FROM replica_search WHERE rowid IN (
          SELECT doc FROM replica_facts WHERE id IN (SELECT value FROM json_each(?)))`,
        idList,
      );
      this.sql.exec("DELETE FROM replica_refs WHERE fact_id IN (SELECT value FROM json_each(?))", idList);
      this.sql.exec(
        `INSERT INTO replica_facts (id, key, user_id, tx_start, tx_end, row, revision, refs)
          SELECT p.value ->> 0, p.value ->> 1, p.value ->> 2, p.value ->> 3, p.value ->> 4, p.value ->> 5,
            p.value ->> 7, ${REFERENCES("(p.value ->> 5)")}
          FROM json_each(?) p WHERE true
          ON CONFLICT (id) DO UPDATE SET key = excluded.key, user_id = excluded.user_id,
            tx_start = excluded.tx_start, tx_end = excluded.tx_end, row = excluded.row,
            revision = excluded.revision, refs = excluded.refs`,
        page,
      );
      this.sql.exec(
        `INSERT INTO replica_search (rowid, text)
          SELECT f.doc, p.value ->> 6 FROM json_each(?) p CROSS JOIN replica_facts f ON f.id = p.value ->> 0
          WHERE p.value ->> 4 IS NULL`,
        page,
      );
      this.sql.exec(
        `INSERT INTO replica_refs (entity_id, fact_id) SELECT value ->> 0, value ->> 1 FROM json_each(?)
          WHERE true ON CONFLICT DO NOTHING`,
        links,
      );
      this.sql.exec(
        "INSERT INTO replica_state (id, revision) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET revision = excluded.revision",
        revision,
      );
      // The full-text rows the page deleted or wrote: the rows of its facts, old versions and new.
      return this.sql
        .exec<{ doc: number }>(
          "SELECT doc FROM replica_facts WHERE id IN (SELECT value FROM json_each(?))",
          idList,
        )
        .toArray()
        .map((r) => r.doc);
    });
    this.ranking.changed(docs);
    this.added += added;
    this.removed += rows.length;
    if (forget === "all") this.namedParts.clear();
    else if (forget?.size) {
      for (const [key, held] of this.namedParts) {
        if (held.entities.some((id) => forget.has(id))) this.namedParts.delete(key);
      }
    }
  }

  /**
   * The entities a page touches: those its rows refer to now and those they referred to before it. A
   * named part can only change through a fact that refers to one of its entities (the named ones, whose
   * latest references and their facts it reads, and the neighbours it found through those facts): a
   * fact's new version, its closing, a reference moved by a merge or a split. Any such fact is in the
   * page, with what it refers to after the page or before it.
   */
  private touchedBy(idList: string, refs: readonly Reference[]): Set<string> {
    const touched = new Set(refs.map((ref) => ref.entity_id));
    for (const { entity_id } of this.sql.exec<{ entity_id: string }>(
      `SELECT DISTINCT entity_id FROM replica_refs INDEXED BY replica_refs_fact
        WHERE fact_id IN (SELECT value FROM json_each(?))`,
      idList,
    )) {
      touched.add(entity_id);
    }
    return touched;
  }

  /**
   * The query-dependent part of a search, as D1's statement answers it (fact-repository.ts foundSql
   * without entities): the current matches this user may know of, best first by bm25 over the terms
   * worth ranking (rankedTerms; the newest matches when none is), the nearest facts by id, and every
   * version of the slots those fill and of `outside` not already in the answer, newest first.
   */
  search(query: ReplicaQuery): ReplicaRows {
    const limits = FACT_CANDIDATE_LIMITS;
    const { counts, choice } = this.rankingOf(query.terms);
    const visible = "(f.user_id IS NULL OR f.user_id = ?)";
    const matched = choice.ranked.length
      ? choice.newest
        ? this.rows(
            // The newest matches are read in rowid order, which FTS5 walks backwards and stops at the
            // limit; ordering by an expression of the rowid would sort every match first.
            `SELECT f.id, f.key FROM (
              SELECT rowid AS doc FROM replica_search WHERE replica_search MATCH ? ORDER BY rowid DESC LIMIT ?
            ) hit CROSS JOIN replica_facts f ON f.doc = hit.doc
            WHERE f.tx_end IS NULL AND ${visible}
            ORDER BY hit.doc DESC, f.tx_start DESC, f.id DESC LIMIT ?`,
            matchAnyForm([...choice.ranked].sort()),
            (limits.matched + 1) * 2,
            query.userId,
            limits.matched + 1,
          )
        : this.bestMatches(choice.ranked, query.userId)
      : [];
    const similar = query.similarIds.length
      ? this.rows(
          `SELECT f.id, f.key FROM json_each(?) s CROSS JOIN replica_facts f ON f.id = s.value
          WHERE f.tx_end IS NULL AND ${visible} ORDER BY s.key`,
          JSON.stringify(query.similarIds),
          query.userId,
        )
      : [];
    const part = `${query.userId}\u0000${query.entityIds.join("\u0000")}`;
    let named = this.namedParts.get(part)?.part;
    if (!named) {
      named = this.named(query.entityIds, query.userId);
      this.namedParts.remember(part, { part: named, entities: [...query.entityIds, ...named.neighbours] });
    }
    const found = [...matched, ...similar, ...named.entity, ...named.neighbour];
    // Every version of the slots found and of `outside`, and of the slots their versions refer to (the
    // one a correction supersedes, those a decision depends on), followed to the end of the chain (each
    // slot once, so a cycle ends; as many slots as the history holds versions): what is dead is judged
    // over the whole slot, however old, and over every slot a correction corrected.
    const foundKeys = [...new Set(found.map((r) => r.key))];
    const keys = [...new Set([...foundKeys, ...query.outside.keys])];
    const foundIds = JSON.stringify(found.map((r) => r.id));
    const history =
      keys.length || query.outside.ids.length
        ? this.rows(
            // A referred version's slot is read whole; a reference that names no version names a slot.
            `WITH RECURSIVE slot(key) AS (
              SELECT value FROM json_each(?1)
              UNION SELECT coalesce(f.key, i.value) FROM json_each(?2) i LEFT JOIN replica_facts f ON f.id = i.value
            ),
            referred(key) AS (
              ${REFERRED_SLOTS("slot")}
              UNION ${REFERRED_SLOTS("referred")}
              LIMIT ?5
            ),
            -- A found slot of one version holds nothing but the version found: no history to read. Most
            -- slots have one version, and counting to two is an index seek, not a read of the row.
            single(key) AS (
              SELECT j.value FROM json_each(?6) j
              WHERE (SELECT count(*) FROM (SELECT 1 FROM replica_facts c WHERE c.key = j.value LIMIT 2)) = 1
            )
            SELECT f.id, f.key FROM (
              SELECT key FROM slot EXCEPT SELECT key FROM single UNION SELECT key FROM referred
            ) k
              CROSS JOIN replica_facts f ON f.key = k.key
              WHERE (f.user_id IS NULL OR f.user_id = ?3) AND f.id NOT IN (SELECT value FROM json_each(?4))
              ORDER BY f.tx_start DESC, f.id DESC LIMIT ?5`,
            JSON.stringify(keys),
            JSON.stringify(query.outside.ids),
            query.userId,
            foundIds,
            limits.history + 1,
            JSON.stringify(foundKeys),
          )
        : [];
    const ids = (list: readonly FoundRow[]) => list.map((r) => r.id);
    const rows = this.rowsOf([...found, ...history], query.known, query.since);
    return {
      revision: this.revision(),
      counts,
      matched: ids(matched),
      similar: ids(similar),
      entity: ids(named.entity),
      neighbour: ids(named.neighbour),
      neighbours: named.neighbours,
      history: ids(history),
      rows,
    };
  }

  /**
   * Reads a slice of the full-text lists searches wanted and did not hold (held-bm25.ts); true while some
   * are still wanted. Called between requests, off the search's path.
   */
  prepareRanking(): boolean {
    return this.ranking.prepare();
  }

  /**
   * The current matches this user may know of, best first by bm25 over `terms` in every form
   * (matchAnyForm), as D1's statement ranks them: the best rows of the full-text index, then their facts
   * by score, newest first within a score.
   */
  private bestMatches(terms: readonly string[], userId: string): FoundRow[] {
    const limit = FACT_CANDIDATE_LIMITS.matched + 1;
    // Sorted by the terms themselves, not by rarity: bm25 adds their weights in the expression's order,
    // so counts remembered across a write, which can order two terms whose bounds overlap either way,
    // rank exactly as counts taken now.
    const { rows } = this.ranking.rank(anyFormPhrases([...terms].sort()), limit * 2);
    // Equal scores share a place, so the facts' own order decides between them.
    const places: [number, number][] = [];
    rows.forEach((row, i) => {
      const previous = rows[i - 1];
      const place = previous && previous.score === row.score ? (places[i - 1] as [number, number])[1] : i;
      places.push([row.doc, place]);
    });
    return this.rows(
      `SELECT f.id, f.key FROM json_each(?) hit CROSS JOIN replica_facts f ON f.doc = hit.value ->> 0
        WHERE f.tx_end IS NULL AND (f.user_id IS NULL OR f.user_id = ?)
        ORDER BY hit.value ->> 1, f.tx_start DESC, f.id DESC LIMIT ?`,
      JSON.stringify(places),
      userId,
      limit,
    );
  }

  /**
   * Which terms the search ranks (query-terms.ts rankedTerms), from each term's count as remembered
   * where the writes since cannot have changed the choice, counted again where they can (or where it is
   * not remembered). `counts` make the same choice: each term's matches up to the budget plus one as
   * last counted, which may be off by a few rows written since, never by enough to choose otherwise.
   */
  private rankingOf(terms: readonly string[]) {
    const cap = RANKED_MATCH_BUDGET + 1;
    const held = new Map<string, TermCount>();
    const exact = new Set<string>();
    // The terms not held are counted in one statement.
    const count = (wanted: readonly string[]) => {
      if (wanted.length === 0) return;
      const counted = this.sql.exec<{ i: number; n: number }>(
        `SELECT t.key AS i, (SELECT count(*) FROM (
           SELECT rowid FROM replica_search WHERE replica_search MATCH t.value LIMIT ?
         )) AS n FROM json_each(?) t`,
        cap,
        JSON.stringify(wanted.map((term) => matchAnyForm([term]))),
      );
      for (const { i, n } of counted) {
        const term = wanted[i] as string;
        const now = { count: n, added: this.added, removed: this.removed };
        held.set(term, now);
        this.termCounts.remember(term, now);
        exact.add(term);
      }
    };
    for (const term of terms) {
      const known = this.termCounts.get(term);
      if (known) held.set(term, known);
    }
    count(terms.filter((term) => !held.has(term)));
    for (;;) {
      const bounds = terms.map((term) => held.get(term) as TermCount);
      const low = bounds.map((b) => Math.max(0, b.count - (this.removed - b.removed)));
      const high = bounds.map((b) => Math.min(cap, b.count + (this.added - b.added)));
      const decided = rankedTermsWithin(terms, low, high);
      if ("choice" in decided) {
        const counts: Record<string, number> = {};
        for (const [i, term] of terms.entries()) counts[term] = (bounds[i] as TermCount).count;
        return { counts, choice: decided.choice };
      }
      // A term counted now is exact, and exact bounds settle the choice: each round counts at least one
      // term more, until they do.
      const again = decided.recount.filter((term) => !exact.has(term));
      const rest = again.length ? again : terms.filter((term) => !exact.has(term));
      if (rest.length === 0) {
        const counts = Object.fromEntries(terms.map((term, i) => [term, low[i] as number]));
        return { counts, choice: rankedTerms(terms, low) };
      }
      count(rest);
    }
  }

  /**
   * Seed 001's entity part of a search, as foundSql reads it: the current facts that refer to the named
   * entities (each entity's latest references, twice the source's bound, newest facts first), the
   * neighbouring entities (NEIGHBOURS at most, from each named entity's latest NEIGHBOUR_SCAN
   * references) and their current facts (each neighbour's latest NEIGHBOUR_REFERENCES, NEIGHBOUR_FACTS
   * in all) not already found.
   */
  private named(entityIds: readonly string[], userId: string): NamedPart {
    if (entityIds.length === 0) return { entity: [], neighbour: [], neighbours: [] };
    // Each named entity's latest references (`limit` of them, a parameter), entity by entity: entity
    // `i` is parameter ?{FIRST_ENTITY + i}.
    const latest = (limit: string) =>
      entityIds
        .map(
          (_, i) => `SELECT * FROM (SELECT fact_id FROM replica_refs WHERE entity_id = ?${FIRST_ENTITY + i}
            ORDER BY fact_id DESC LIMIT ${limit})`,
        )
        .join(" UNION ALL ");
    const visible = "f.tx_end IS NULL AND (f.user_id IS NULL OR f.user_id = ?2)";
    // One statement, not one per entity and step: at ten statements an entity, their own cost in the
    // Durable Object's SQL API was most of the part's.
    const found = this.sql.exec<{ part: number; id: string; key: string | null }>(
      `WITH
        entity AS MATERIALIZED (
          SELECT f.id, f.key, f.tx_start FROM (SELECT DISTINCT fact_id FROM (${latest("?3")})) r
            CROSS JOIN replica_facts f ON f.id = r.fact_id
            WHERE ${visible}
            ORDER BY f.tx_start DESC, f.id DESC LIMIT ?4
        ),
        neighbour_entity AS MATERIALIZED (
          SELECT DISTINCT o.entity_id AS id FROM (${latest("?5")}) mine
            CROSS JOIN replica_refs o INDEXED BY replica_refs_fact ON o.fact_id = mine.fact_id
            WHERE o.entity_id NOT IN (SELECT value FROM json_each(?1)) LIMIT ?6
        ),
        neighbour AS MATERIALIZED (
          SELECT f.id, f.key, f.tx_start FROM (
            SELECT DISTINCT r.value AS fact_id FROM neighbour_entity n
              CROSS JOIN json_each((SELECT json_group_array(fact_id) FROM (SELECT fact_id FROM replica_refs
                WHERE entity_id = n.id ORDER BY fact_id DESC LIMIT ?7))) r
          ) r CROSS JOIN replica_facts f ON f.id = r.fact_id
            WHERE ${visible} AND f.id NOT IN (SELECT id FROM entity)
            ORDER BY f.tx_start DESC, f.id DESC LIMIT ?8
        )
      SELECT 0 AS part, id, key, tx_start FROM entity
      UNION ALL SELECT 1 AS part, id, key, tx_start FROM neighbour
      UNION ALL SELECT 2 AS part, (SELECT json_group_array(id) FROM neighbour_entity) AS id, NULL, NULL
      ORDER BY part, tx_start DESC, id DESC`,
      JSON.stringify(entityIds),
      userId,
      FACT_CANDIDATE_LIMITS.entity * 2,
      FACT_CANDIDATE_LIMITS.entity + 1,
      NEIGHBOUR_SCAN,
      NEIGHBOURS,
      NEIGHBOUR_REFERENCES,
      NEIGHBOUR_FACTS,
      ...entityIds,
    );
    const part: NamedPart = { entity: [], neighbour: [], neighbours: [] };
    for (const row of found) {
      if (row.part === 2) part.neighbours = JSON.parse(row.id) as string[];
      else (row.part === 0 ? part.entity : part.neighbour).push({ id: row.id, key: row.key as string });
    }
    return part;
  }

  /** The stored rows of the versions found, but for those the reader holds unchanged since `since`. */
  private rowsOf(
    found: readonly FoundRow[],
    known: readonly string[],
    since: number,
  ): Record<string, string> {
    const rows: Record<string, string> = {};
    if (found.length === 0) return rows;
    const held = new Set(known);
    const ids = [...new Set(found.map((r) => r.id))];
    const read = this.sql.exec<{ id: string; row: string }>(
      `SELECT f.id, f.row FROM json_each(?1) n CROSS JOIN replica_facts f ON f.id = n.value
      UNION ALL
      SELECT f.id, f.row FROM json_each(?2) k CROSS JOIN replica_facts f ON f.id = k.value
        WHERE f.revision IS NULL OR f.revision > ?3`,
      JSON.stringify(ids.filter((id) => !held.has(id))),
      JSON.stringify(ids.filter((id) => held.has(id))),
      since,
    );
    for (const { id, row } of read) rows[id] = row;
    return rows;
  }

  private rows(statement: string, ...bindings: unknown[]): FoundRow[] {
    return this.sql.exec<FoundRow>(statement, ...bindings).toArray();
  }
}
