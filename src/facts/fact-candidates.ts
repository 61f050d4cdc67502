import type { FactVersion } from "../domain/fact-version";
import {
  FACT_CANDIDATE_SOURCES,
  type FactCandidateSource,
  type PendingReference,
  type QueryEntity,
  type RegistryPart,
} from "../domain/trace";
import { matchAnyForm, queryTerms } from "../retrieval/query-terms";

/**
 * Which of a project's facts a compile (or an extraction run) considers, read through indexes rather than
 * from a copy of the project: however many facts the project holds, a compile reads at most the sum of
 * these (with WHOLE_PROJECT_VERSIONS + 1 newest versions in place of `recent`, to tell a project read
 * whole), and a current fact of any age is found when the query names it.
 *
 * - `recent`: the newest versions (current or not) the reader may know of. The conversation at hand
 *   writes these. A project of at most WHOLE_PROJECT_VERSIONS is read whole, as before indexes, and
 *   needs no search; past that, the newest `recent` of them are candidates and the rest is searched.
 * - `matched`: current facts whose key or text matches the query's terms (FTS5, porter, bm25 order).
 * - `thread`: the current facts the reading thread wrote, newest first: its own conversation's state,
 *   whatever else the project holds. Other threads and imports write to the same project, and can push
 *   all of it out of the newest versions; a question need not share a word with it ("What are we
 *   calling it?" of the working title) to be about it.
 * - `standing`: current constraints and policy or system rules, highest authority first, whatever the
 *   query asks: a rule applies whether or not the query names it.
 * - `entity`: current facts that refer to a registered entity the query names (the entity registry,
 *   src/entities: "Where is Atlas hosted?" finds what was written of Project Atlas in any words).
 * - `similar`: current facts nearest the query in the project's vector index (src/project-index), so
 *   a fact said in other words than the query's is found too, as far as the embedder can tell.
 * - `history`: earlier versions of the slots found by `matched`, `entity`, `similar` and `standing`
 *   outside the recent window, and the versions any candidate refers to (the one it supersedes, those it
 *   depends on) with their slots' versions, and what those refer to in turn, to the end of the chain, so
 *   supersession and dead values are judged as over the whole: a correction found by the question brings
 *   the value it corrected, and the one that corrected before it, however old. The slots a chain reaches
 *   are bounded as the versions are (history's bound, plus one): a chain that reached more would fill the
 *   history past its bound, which the trace reports.
 *
 * Each bound is explicit, ranked (recency, bm25, authority) and reported in the trace when it cut
 * anything (`trace.candidates.facts`).
 *
 * The question's own sources (`matched`, `entity`) bring new versions with every new question, and
 * each costs the compile an object to build, its row to read and send, and its slot's history; the
 * envelope's fact share holds a few dozen lines. They were 200 each until the 10,000-fact compile was
 * timed: at 100, a new question's compile there costs some 15 % less, and no figure of any dev set moved
 * (StateBench dev and train, wild, LoCoMo, BEAM, and StateBench dev and wild behind 1,000 distractors).
 * At 50 the replica's search costs another 15 % less (`npm run bench:replica`: its bm25 statement keeps a
 * shorter top list, and history and rows follow fewer versions), a compile at 10,000 facts 1–2 ms less at
 * the median (`npm run bench:paired`), and again no figure moved. A new question still brought some 100
 * versions of its own: what `matched` no longer held, `similar` and `entity` mostly found.
 * `matched` and `similar` then went to 25 each (the project index's NEAR_FACTS with it): the answer's
 * rows fell from some 100 to 60, and a compile at 10,000 facts from p50 11 / p95 15–18 ms to 9 / 11–13
 * (`npm run bench:scale -- --sizes 10000 --messages 0 --rounds 60`, two runs each), while every figure
 * of every dev set stayed the same, and so did StateBench dev and wild behind 1,000 distractors, the
 * runs where these sources are what finds a timeline's facts (only the contexts' token counts moved, by
 * a few tokens). A question naming an entity cost some 2 ms more (its entities' facts, their neighbours'
 * and their slots' history): `entity` and NEIGHBOUR_FACTS then went to 25 each, and again no figure of
 * any dev set moved, distractor runs included.
 * `recent` was 500 until then, the same bound as a project read whole. At 200 for both, the same bound
 * as `thread`, a compile at 10,000 facts was faster in 56 and 62 of 90 new questions asked of both
 * builds (`npm run bench:paired -- --facts 10000 --rounds 80 --write-rounds 10`, two runs on fresh
 * servers; paired median 1 ms): each new question's request names fewer held versions, and the passes
 * see fewer objects. At 100 it was no faster (faster in 43 and 36 of 90, paired median 0). But a project
 * of 400 versions, no longer read whole, then asked the index object for every new question: slower in
 * 75 and 73 of 90 (p50 5 → 7 ms). So the two bounds are apart: a project is read whole up to
 * WHOLE_PROJECT_VERSIONS (500), and past it has its newest `recent` (200) as candidates. Against one
 * bound of 500: at 10,000 facts faster in 57 and 59 of 90 (paired median 1 ms, mean 20.7 → 16.6 and
 * 14.7 → 12.0 ms), at 400 the same (mean 5.3 / 5.4 and 4.5 / 4.6 ms).
 */
export const FACT_CANDIDATE_LIMITS: Readonly<Record<FactCandidateSource, number>> = {
  recent: 200,
  standing: 200,
  thread: 200,
  matched: 25,
  entity: 25,
  similar: 25,
  history: 500,
};

/**
 * Seed 001's graph neighbourhood of the entities a text names: the entities their latest facts also
 * refer to (NEIGHBOURS at most, found from each named entity's latest NEIGHBOUR_SCAN references), and
 * the current facts that refer to those (each neighbour's latest NEIGHBOUR_REFERENCES, NEIGHBOUR_FACTS
 * in all). "Project Wrenfield" names Halvard Oyelaran in a fact; a fact about Halvard alone is then a
 * candidate of a question about Wrenfield. Bounded so a hub (the company itself) costs index reads, not scans.
 */
export const NEIGHBOURS = 5;
export const NEIGHBOUR_SCAN = 200;
export const NEIGHBOUR_REFERENCES = 20;
export const NEIGHBOUR_FACTS = 25;

/**
 * A project whose reader may know of at most this many versions is read whole by its newest-versions read
 * (one row past it tells that it is larger): every version a candidate, no search, no call to the index
 * object. Holding a few hundred versions costs a compile less than asking for what a new question needs.
 */
export const WHOLE_PROJECT_VERSIONS = 500;

/** Whether the newest versions read (WHOLE_PROJECT_VERSIONS + 1 at most) are the whole project. */
export function wholeProject(recent: readonly FactVersion[]): boolean {
  return recent.length <= WHOLE_PROJECT_VERSIONS;
}

/**
 * The newest versions read that are candidates: all of them when they are the whole project, else the
 * newest FACT_CANDIDATE_LIMITS.recent (the rest is found by the search, as older versions are).
 */
export function newestCandidates(recent: readonly FactVersion[]): readonly FactVersion[] {
  return wholeProject(recent) ? recent : recent.slice(0, FACT_CANDIDATE_LIMITS.recent);
}

/** Extraction reads with the words of a whole slice of messages: more terms than a question has. */
export const EXTRACTION_QUERY_TERMS = 64;

/**
 * The query-independent part of a search, as read at one revision: the newest versions and the standing
 * rules, each with one row past its bound. A reader holds it while the project does not change, so a new
 * question reads only what depends on it.
 */
export interface FactBase {
  revision: number;
  recent: readonly FactVersion[];
  standing: readonly FactVersion[];
  /** The current versions `threadId` wrote, newest first, one past the bound (none without a thread). */
  thread?: readonly FactVersion[];
  threadId?: string;
  /**
   * The entity registry's query-independent part at `revision` (src/entities/query-entities.ts), when the
   * read of this base asked: every registry change moves the revision on (a fact write resolves its
   * entities in its own batch; an entity edit is announced like a write), so it is as current as the rest.
   */
  registry?: RegistryPart;
}

export interface FactCandidates {
  /** Distinct versions, newest first (transaction time, then id, descending). */
  rows: FactVersion[];
  /** How many versions each source contributed (a version found by two counts for the first). */
  counts: Record<FactCandidateSource, number>;
  /** The sources whose bound left versions out. */
  truncated: FactCandidateSource[];
  /** The project revision the candidates are current as of. */
  revision: number;
  /** The registered entities the search named, whose facts it read. */
  entities: QueryEntity[];
  /** The current facts that refer to those entities (the `entity` source's reads, whichever source counted them). */
  entityFactIds: string[];
  /** Every name of each entity named (normalised aliases), by id: how the thread's messages said it. */
  entityNames?: Record<string, string[]>;
  /** Entities neighbouring those the search named (they share a fact), whose facts it read too. */
  neighbours?: string[];
  /** Facts that refer to a pending entity, as the search read them (query-entities.ts). */
  pending?: PendingReference[];
  /** The query-independent part this search read or was given. */
  base?: FactBase;
  /** Whether the question's own part came from the project's fact replica rather than D1. */
  replicated?: boolean;
}

/** The words a search looks for: runs of letters and digits, stopwords dropped (query-terms.ts). */
export function searchTerms(text: string, maxTerms?: number): string[] {
  return queryTerms(text, maxTerms);
}

/**
 * The FTS5 MATCH expression over `fact_search` for any of `terms`, restricted to one project by its
 * token. Terms are runs of letters and digits, each quoted, so no query can break the expression.
 */
export function factMatchExpression(projectId: string, terms: readonly string[]): string {
  return `project : "${projectToken(projectId)}" AND text : (${matchAnyForm(terms)})`;
}

/**
 * The token migration 0006 indexes each fact's project under: 'p' and the hex of its UTF-8 bytes, as
 * SQLite's hex() writes it. One run of letters and digits, so the tokenizer keeps it whole.
 */
export function projectToken(projectId: string): string {
  const bytes = new TextEncoder().encode(projectId);
  return `p${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Newest first by transaction time, then by id, as every candidate source is read. */
export function newestFirst(a: FactVersion, b: FactVersion): number {
  return compare(b.txStart, a.txStart) || compare(b.id, a.id);
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * What a version refers to: the version it supersedes and those it depends on (an id, or a key where
 * the writer named the slot). Read once per row object: held rows are frozen and shared between searches.
 * A stored list that is not a JSON list of strings (the writer always stores one) refers to nothing,
 * rather than failing every search that holds the row.
 */
export function referencesOf(row: FactVersion): readonly string[] {
  let refs = references.get(row);
  if (refs === undefined) {
    const dependsOn = dependencies(row.dependsOnJson);
    refs = row.supersedes ? [row.supersedes, ...dependsOn] : dependsOn;
    references.set(row, refs);
  }
  return refs;
}

function dependencies(json: string): string[] {
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) ? list.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

const references = new WeakMap<FactVersion, readonly string[]>();

/**
 * The keys and ids `history` reads for a base, besides the slots of what the question finds: the slots
 * of its standing rules and thread's own facts outside the recent window, and every version the window
 * or those refer to that the window does not hold. A correction in the window that supersedes a version older than it
 * (or a decision depending on one) is judged with that version, as over the whole project: its value is
 * dead, and restating it leaks. The search reads each referred version's slot (a reference that names
 * no version names a slot by its key). Worked out once per base: a base is held unchanged while the
 * project is, and every question's search asks for it.
 */
export function historyTargets(base: FactBase): HistoryTargets {
  let targets = baseTargets.get(base);
  if (targets === undefined) {
    const recent = newestCandidates(base.recent);
    const held = new Set(recent.map((r) => r.id));
    const outside = [...base.standing, ...(base.thread ?? [])].filter((r) => !held.has(r.id));
    const referred = new Set<string>();
    for (const row of [...recent, ...outside]) {
      for (const ref of referencesOf(row)) if (!held.has(ref)) referred.add(ref);
    }
    targets = { keys: [...new Set(outside.map((r) => r.key))], ids: [...referred] };
    baseTargets.set(base, targets);
  }
  return targets;
}

export interface HistoryTargets {
  readonly keys: readonly string[];
  readonly ids: readonly string[];
}

const baseTargets = new WeakMap<FactBase, HistoryTargets>();

/**
 * The candidate set from each source's rows (each read with one row past its bound, to tell a cut). The
 * first source to find a version counts it.
 */
export function assembleCandidates(
  read: Record<FactCandidateSource, readonly FactVersion[]>,
  revision: number,
  matchesCut = false,
  entities: QueryEntity[] = [],
): FactCandidates {
  const byId = new Map<string, FactVersion>();
  const counts = { recent: 0, standing: 0, thread: 0, matched: 0, entity: 0, similar: 0, history: 0 };
  const truncated: FactCandidateSource[] = matchesCut ? ["matched"] : [];
  for (const source of FACT_CANDIDATE_SOURCES) {
    // A version a source read twice counts once.
    const rows = [...new Map(read[source].map((row) => [row.id, row])).values()];
    // The newest versions are read one past a whole project: all of them when none is past it.
    const limit =
      source === "recent" && wholeProject(rows) ? WHOLE_PROJECT_VERSIONS : FACT_CANDIDATE_LIMITS[source];
    if (rows.length > limit && !truncated.includes(source)) truncated.push(source);
    for (const row of rows.slice(0, limit)) {
      if (byId.has(row.id)) continue;
      byId.set(row.id, row);
      counts[source]++;
    }
  }
  truncated.sort((a, b) => FACT_CANDIDATE_SOURCES.indexOf(a) - FACT_CANDIDATE_SOURCES.indexOf(b));
  const entityFactIds = read.entity.map((row) => row.id);
  return { rows: [...byId.values()].sort(newestFirst), counts, truncated, revision, entities, entityFactIds };
}

/**
 * How many changed versions a reader applies to the query-independent part it holds (`advanceBase`);
 * past this it reads that part afresh. It also bounds how many versions can enter the newest ones.
 */
export const BASE_CHANGES_LIMIT = 50;

/** A standing rule as the search reads them (fact-repository.ts STANDING): current, a constraint or policy/system rule. */
export function isStanding(row: FactVersion): boolean {
  return (
    row.txEnd === null && (row.isConstraint || row.sourceType === "policy" || row.sourceType === "system")
  );
}

/** Standing rules in the order the search reads them: highest authority first, then newest. */
function standingOrder(a: FactVersion, b: FactVersion): number {
  return b.authorityRank - a.authorityRank || newestFirst(a, b);
}

/**
 * The query-independent part at `revision`, from the part held at an earlier revision and every version
 * the reader may know of that was inserted or changed in between (`changed`: revision above the held
 * one, at most `revision`). Exact, as a fresh read of both sources would be: a version never leaves the
 * set a reader may know of, and its transaction time, authority and owner never change, so the newest
 * versions are the newest of the held ones and the changed ones; a standing rule that stopped standing
 * leaves a gap only when the held rules were cut at their bound, and then (undefined) the part must be
 * read afresh. So does the thread's own part, when the read held one.
 */
export function advanceBase(
  base: FactBase,
  changed: readonly FactVersion[],
  revision: number,
): FactBase | undefined {
  if (changed.length === 0) return { ...base, revision };
  const byId = new Map(changed.map((row) => [row.id, row]));
  const recentBound = WHOLE_PROJECT_VERSIONS + 1;
  const recent = [...base.recent.filter((row) => !byId.has(row.id)), ...changed]
    .sort(newestFirst)
    .slice(0, recentBound);
  const standingBound = FACT_CANDIDATE_LIMITS.standing + 1;
  const cut = base.standing.length >= standingBound;
  const kept = base.standing.filter((row) => !byId.has(row.id));
  const left = base.standing.some((row) => {
    const now = byId.get(row.id);
    return now !== undefined && !isStanding(now);
  });
  if (cut && left) return undefined;
  const standing = [...kept, ...changed.filter(isStanding)].sort(standingOrder).slice(0, standingBound);
  if (base.threadId === undefined) return { revision, recent, standing };
  const thread = advanceThread(base, byId, changed);
  if (thread === null) return undefined;
  return { revision, recent, standing, threadId: base.threadId, thread };
}

/**
 * The thread's own current versions after `changed`: those it wrote join, those closed leave. Null when
 * the list was cut at its bound and one left: the version past the bound is not held, so the part is
 * read afresh.
 */
function advanceThread(
  base: FactBase,
  byId: ReadonlyMap<string, FactVersion>,
  changed: readonly FactVersion[],
): readonly FactVersion[] | null {
  const held = base.thread ?? [];
  const bound = FACT_CANDIDATE_LIMITS.thread + 1;
  const left = held.some((row) => {
    const now = byId.get(row.id);
    return now !== undefined && now.txEnd !== null;
  });
  if (held.length >= bound && left) return null;
  const own = changed.filter((row) => row.threadId === base.threadId && row.txEnd === null);
  return [...held.filter((row) => !byId.has(row.id)), ...own].sort(newestFirst).slice(0, bound);
}
