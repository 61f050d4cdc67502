import { ulid } from "ulid";
import type { FactVersion } from "../domain/fact-version";
import type { FactRead, RegistryPart } from "../domain/trace";
import type { FactSearchAnswer, FactSearchRequest, NearFact } from "../project-index/project-index-rpc";
import {
  type FactBase,
  type FactCandidates,
  historyTargets,
  newestCandidates,
  wholeProject,
} from "./fact-candidates";
import type { FactRepository, FactWatcher, NamedIn, NamedLookup, ReplicaRead } from "./fact-repository";

/**
 * How long held candidates are served on announcements alone before D1 is asked anyway. An announcement
 * lost to a failed call between objects can therefore hide another thread's write for this long, and
 * the one read that finds the ask due, at most: that read is served from what is held while D1 is asked
 * beside it (FactCandidateCache.recheck). The ask renews the reader's registration in case a writer
 * dropped it.
 */
export const FACT_RECHECK_MS = 30_000;

/** Candidate sets held per thread object: the last few searches, so a repeated question reads nothing. */
export const HELD_SEARCHES = 4;

/**
 * The project's fact index (src/project-index) as a search uses it: the facts nearest the text, and,
 * when it can answer it, the part of the search that depends on the text (its fact replica).
 */
export interface ProjectFactSearch {
  nearest(): Promise<NearFact[]>;
  /** `withNearest`: whether the index also works out the nearest facts (not for a project held whole). */
  search?(
    request: Pick<
      FactSearchRequest,
      "revision" | "terms" | "heldIds" | "knownIds" | "knownAt" | "outside" | "entityIds"
    >,
    withNearest: boolean,
  ): Promise<FactSearchAnswer | undefined>;
}

const noIndex: ProjectFactSearch = { nearest: () => Promise.resolve([]) };

/**
 * The answer of `start`, started only once something waits for it. A project the thread's own index
 * holds whole has nothing to add from the project index's nearest facts, and a compile then does not
 * wait for them (src/thread/compilation.ts): asking anyway would only spend the index object's time,
 * which locally is the same thread's.
 */
function lazily<T>(start: () => Promise<T>): PromiseLike<T> {
  let started: Promise<T> | undefined;
  return {
    // biome-ignore lint/suspicious/noThenProperty: a thenable is what `await` and the callers take.
    then: (fulfilled, rejected) => {
      started ??= start();
      return started.then(fulfilled, rejected);
    },
  };
}

/** `resolve`, answering a repeated call with the same input from its last answer. */
function memoLast<T, R>(resolve: (input: T) => R): (input: T) => R {
  let last: { input: T; answer: R } | undefined;
  return (input) => {
    if (last?.input !== input) last = { input, answer: resolve(input) };
    return last.answer;
  };
}

/**
 * The candidate facts of a thread's last few searches (fact-candidates.ts), kept in the Durable Object's
 * memory between requests and served without I/O while the project has not changed. What is held is
 * bounded by HELD_SEARCHES × the candidate limits, however many facts the project holds.
 *
 * Invalidation is by the project's revision: every fact write bumps it (fact_revisions) and, in the same
 * transaction, reads which readers are registered (fact_watchers); the writer then announces the new
 * revision to each (src/thread/facts/thread-facts.ts). A search registers its reader in the same D1
 * transaction as it reads, so a write committed before it is in the answer and one committed after sees
 * the registration. Held sets are served while no newer revision was announced; once D1 was last asked
 * FACT_RECHECK_MS ago, it is asked again beside the read that finds it due (`recheck`), and a newer
 * revision it finds counts as announced. Any newer revision empties the table.
 */
export class FactCandidateCache {
  /** Names this reader; a restarted object is a new reader with a new token. */
  readonly token = ulid();
  /** The project this reader is registered (or registering) for, so announcements during a search count. */
  private watching: string | undefined;
  private revision = 0;
  /** The newest revision a writer has announced for the watched project. */
  private announced = 0;
  private checkedAt = Number.NEGATIVE_INFINITY;
  /** When this reader last registered in D1: a search renews it once per FACT_RECHECK_MS, not every time. */
  private registeredAt = Number.NEGATIVE_INFINITY;
  /**
   * Whether the last search read every version the reader may know of in its newest ones (a project of
   * at most WHOLE_PROJECT_VERSIONS, its recent window not cut): a search then needs no full-text part, as
   * nothing lies outside those versions.
   */
  private fitsInRecent = false;
  /** The query-independent part of the last search, at `base.revision`. */
  private base: FactBase | undefined;
  private baseUser: string | undefined;
  /** Candidate sets by reader and search, least recently used first, all at `revision`. */
  private readonly held = new HeldSearches();
  /** The ask of D1 in flight, once FACT_RECHECK_MS passed without one (`recheck`). */
  private rechecking: Promise<void> | undefined;
  /** What knownRows last answered, for which base and held sets (`version`, -1 when not counted). */
  private known: { base: FactBase; version: number; rows: KnownRows } | undefined;

  /** `reader.thread` names the object holding this cache, for writers to address their announcements. */
  async read(
    repository: FactRepository,
    reader: { projectId: string; userId: string; thread: string },
    terms: readonly string[],
    now = Date.now(),
    named: () => NamedLookup | undefined = () => undefined,
    index: ProjectFactSearch = noIndex,
  ): Promise<{ candidates: FactCandidates; read: FactRead; near: PromiseLike<NearFact[]> }> {
    const { projectId, userId } = reader;
    const key = `${userId}\u0000${terms.join(" ")}`;
    if (this.watching !== projectId) {
      this.watching = projectId;
      this.announced = 0;
      this.revision = 0;
      this.registeredAt = Number.NEGATIVE_INFINITY;
      this.fitsInRecent = false;
      this.base = undefined;
      this.held.clear();
    }
    // Past FACT_RECHECK_MS since D1 was last asked, it is asked again whether a write went unannounced
    // (a lost call between objects), but not on this read's path: a compile would wait for D1 once in
    // every FACT_RECHECK_MS for what is almost always nothing. This read is served from what is held, as
    // the reads before it were; a newer revision the ask finds counts as announced, so the next read
    // brings what is held up to it. A reader that holds nothing reads D1 below, and that is the ask.
    const upToDate = this.revision >= this.announced;
    const due = now - Math.min(this.checkedAt, this.registeredAt) >= FACT_RECHECK_MS;
    if (due && upToDate && this.base !== undefined) this.rechecking ??= this.recheck(repository, reader, now);
    const current = upToDate && (!due || this.rechecking !== undefined);
    const held = current ? this.held.use(key) : undefined;
    // A project the last search read whole in its newest versions: nearest facts only when awaited.
    const nearest = () => (this.fitsInRecent ? lazily(() => index.nearest()) : index.nearest());
    if (held) return { candidates: held, read: "held", near: nearest() };
    // The first search registers in the same transaction as it reads, so no write is missed in between.
    const register = !current && now - this.registeredAt >= FACT_RECHECK_MS;
    const watcher: FactWatcher | undefined = register
      ? { thread: reader.thread, token: this.token }
      : undefined;
    // A project that fitted its recent window last time is read in one round trip, without searching;
    // should it have grown past the window since, the search follows.
    // The entities the text names are looked up in the first read, not after it; a registry that cannot
    // be decoded costs the entity source, never the compile.
    const lookup = named();
    const orNone =
      <T, R extends NamedIn | undefined>(resolve: (input: T) => R) =>
      (input: T): R | NamedIn => {
        try {
          return resolve(input);
        } catch (error) {
          console.error("could not look up the entities a search names", projectId, error);
          return { entities: [] };
        }
      };
    const entities: NamedLookup | undefined = lookup && {
      statements: lookup.statements,
      decode: orNone((results: readonly D1Result[]) => lookup.decode(results)),
      registryStatements: (withTerms) => lookup.registryStatements(withTerms),
      decodeRegistry: (results) => lookup.decodeRegistry(results),
      mayMatch: (terms) => lookup.mayMatch(terms),
      // Resolved once per search: the replica's request and the search's own read both ask.
      decodeHeld: orNone(memoLast((registry: RegistryPart) => lookup.decodeHeld(registry))),
    };
    // The newest versions and the standing rules do not depend on the question: held at the current
    // revision, a new question reads only its own part. Held at an earlier one (a write was announced,
    // or the recheck is due), they are brought to the current revision by reading only what changed.
    const mine = this.baseUser === userId ? this.base : undefined;
    const base = current && mine?.revision === this.revision ? mine : undefined;
    // Right after a write this reader was told of (its own, or another thread's), the part it holds is
    // brought up to date from D1 (only what changed, and the registry), while the replica, at the
    // announced revision or later, answers the question's own part in parallel: D1 is spared the search.
    // Not when the recheck is due: then D1 is asked whether anything was missed, as below.
    const announcedOnly =
      base === undefined &&
      mine?.revision === this.revision &&
      this.revision < this.announced &&
      now - this.checkedAt < FACT_RECHECK_MS;
    const from = base ?? (announcedOnly ? mine : undefined);
    const searched = this.fitsInRecent ? [] : terms;
    // The names a held registry resolves, whose facts the search reads.
    const heldNames = from?.registry && entities ? entities.decodeHeld(from.registry) : undefined;
    const entityIds = (heldNames?.entities ?? []).filter((e) => !e.pending).map((e) => e.id);
    // With the rest held and more versions than the newest ones, the question's own part is asked of the
    // project's fact replica, with the nearest facts, in one call and no D1 search; a replica still
    // behind the revision asked answers without it, and D1 is searched as before. A project held whole
    // asks the replica only for what its rows do not say: which of them refer to the entities the
    // question names, and their neighbours (an index object's few statements rather than a D1 read).
    const pastNewest = from !== undefined && !wholeProject(from.recent);
    const replicated = from && (pastNewest || entityIds.length > 0) ? index.search : undefined;
    let near: PromiseLike<NearFact[]>;
    let rows: ReplicaRead | undefined;
    if (from && replicated) {
      const newest = newestCandidates(from.recent);
      const outside = historyTargets(from);
      const known = this.knownRows(from);
      const heldIds = newest.map((r) => r.id);
      const asked = replicated(
        {
          revision: base ? base.revision : this.announced,
          terms: [...searched],
          heldIds,
          knownIds: known.ids,
          knownAt: from.revision,
          outside,
          entityIds,
        },
        pastNewest,
      ).catch(() => undefined);
      near = pastNewest ? asked.then((answer) => answer?.near ?? []) : nearest();
      rows = {
        rows: asked.then((answer) => answer?.rows),
        named: heldNames !== undefined,
        known,
        asked: { entityIds, heldIds, outside },
      };
    } else {
      near = nearest();
    }
    const nearIds = lazily(async () => (await near).map((f) => f.id));
    let found = await repository.candidates(
      projectId,
      userId,
      searched,
      watcher,
      entities,
      nearIds,
      base,
      base ? undefined : mine,
      rows,
      reader.thread,
    );
    const cut = found.truncated.includes("recent");
    if (this.fitsInRecent && cut && terms.length) {
      found = await repository.candidates(
        projectId,
        userId,
        terms,
        undefined,
        entities,
        nearIds,
        found.base,
        undefined,
        undefined,
        reader.thread,
      );
    }
    this.fitsInRecent = !cut;
    if (register) this.registeredAt = now;
    // Another search may have moved on while this one waited: only the newest answers are kept.
    if (found.revision > this.revision) {
      this.held.clear();
      this.revision = found.revision;
    }
    if (found.base && found.base.revision === this.revision) {
      this.base = found.base;
      this.baseUser = userId;
    }
    // At one revision a version is the same row whichever search found it: one object is kept of each.
    const candidates = { ...found, rows: found.rows.map((row) => this.held.row(row.id) ?? row) };
    if (candidates.revision === this.revision) this.held.hold(key, candidates, HELD_SEARCHES);
    // Only a read of the revision itself counts as asking D1 whether the project changed.
    if (!base) this.checkedAt = now;
    return { candidates, read: found.replicated ? "replica" : "searched", near };
  }

  /**
   * Asks D1 for the project's revision and renews this reader's registration in the same batch
   * (FactRepository.revisionNow). A revision past the one held is taken as announced. A failed ask is
   * logged and made again by the next read.
   */
  private async recheck(
    repository: FactRepository,
    reader: { projectId: string; thread: string },
    at: number,
  ): Promise<void> {
    try {
      const revision = await repository.revisionNow(reader.projectId, {
        thread: reader.thread,
        token: this.token,
      });
      if (this.watching !== reader.projectId) return;
      this.announced = Math.max(this.announced, revision);
      this.checkedAt = Math.max(this.checkedAt, at);
      this.registeredAt = Math.max(this.registeredAt, at);
    } catch (error) {
      console.error("could not ask D1 for the project's fact revision", reader.projectId, error);
    } finally {
      this.rechecking = undefined;
    }
  }

  /** Resolves once no ask of D1 is in flight (`recheck`): for tests that follow one to its end. */
  async settled(): Promise<void> {
    await this.rechecking;
  }

  /** How many distinct fact versions the held searches and base keep (rows shared by two count once). */
  heldRows(): number {
    return this.base ? this.knownRows(this.base).ids.length : 0;
  }

  /**
   * Every version held at `base.revision`: the base's and the held searches' (which are all at the
   * cache's revision, and so at the base's when a search uses it). A search asks the replica not to send
   * these again. Worked out again only when the base or the held sets change.
   */
  private knownRows(base: FactBase): KnownRows {
    const withHeld = base.revision === this.revision;
    const version = withHeld ? this.held.version : -1;
    if (this.known?.base === base && this.known.version === version) return this.known.rows;
    const own = baseRows(base);
    const ids = [...own.keys()];
    const held = this.held;
    if (withHeld) for (const id of held.ids()) if (!own.has(id)) ids.push(id);
    const rows: KnownRows = {
      ids,
      // A held search's object of a version before the base's, as it is the one compiles were handed;
      // once the held sets change (another search ended meanwhile), the base's alone.
      get: withHeld
        ? (id) => (held.version === version ? held.row(id) : undefined) ?? own.get(id)
        : (id) => own.get(id),
    };
    this.known = { base, version, rows };
    return rows;
  }

  /** Whether a writer announced a revision this cache has not read yet. */
  behind(): boolean {
    return this.revision < this.announced;
  }

  /**
   * A writer's word that the project reached `revision`. False when this is not the reader that
   * registered (the object restarted, or watches another project), so the writer can drop the entry.
   */
  announce(projectId: string, token: string, revision: number): boolean {
    if (token !== this.token || projectId !== this.watching) return false;
    this.announced = Math.max(this.announced, revision);
    return true;
  }
}

/**
 * The versions a reader holds, for the replica: their ids, and each one's row. `get` reads the held
 * searches only while they are as they were when the ids were listed: once another search has changed
 * them, a version only they held is not found, and the answer is read from D1 instead
 * (fact-repository.ts replicaRows), as when the replica is behind.
 */
interface KnownRows {
  readonly ids: string[];
  get(id: string): FactVersion | undefined;
}

/** A base's rows by id (its newest versions, standing rules, then the thread's own; the last of an id kept). */
function baseRows(base: FactBase): Map<string, FactVersion> {
  let rows = baseRowMaps.get(base);
  if (!rows) {
    rows = new Map();
    for (const row of base.recent) rows.set(row.id, row);
    for (const row of base.standing) rows.set(row.id, row);
    for (const row of base.thread ?? []) rows.set(row.id, row);
    baseRowMaps.set(base, rows);
  }
  return rows;
}

const baseRowMaps = new WeakMap<FactBase, Map<string, FactVersion>>();

/**
 * The candidate sets of a reader's last few searches, least recently used first, with the rows they hold
 * indexed by id, each counted by the sets that hold it: a new search's rows are matched to the objects
 * already held, and the replica told which versions the reader has, without walking every set each time.
 */
class HeldSearches {
  private readonly sets = new Map<string, FactCandidates>();
  private readonly rows = new Map<string, { row: FactVersion; sets: number }>();
  /** Moves on with every change to the sets held. */
  version = 0;

  /** The set held for `key`, now the most recently used. */
  use(key: string): FactCandidates | undefined {
    const set = this.sets.get(key);
    if (set) {
      this.sets.delete(key);
      this.sets.set(key, set);
    }
    return set;
  }

  /** Holds `candidates` for `key` (replacing any), letting the least recently used go past `limit`. */
  hold(key: string, candidates: FactCandidates, limit: number): void {
    this.drop(key);
    this.sets.set(key, candidates);
    for (const row of candidates.rows) {
      const held = this.rows.get(row.id);
      if (held) held.sets++;
      else this.rows.set(row.id, { row, sets: 1 });
    }
    for (const oldest of this.sets.keys()) {
      if (this.sets.size <= limit) break;
      this.drop(oldest);
    }
    this.version++;
  }

  clear(): void {
    this.sets.clear();
    this.rows.clear();
    this.version++;
  }

  /** The held object of a version, if a held set has it. */
  row(id: string): FactVersion | undefined {
    return this.rows.get(id)?.row;
  }

  /** The ids of every version a held set has, each once. */
  ids(): IterableIterator<string> {
    return this.rows.keys();
  }

  private drop(key: string): void {
    const set = this.sets.get(key);
    if (!set) return;
    this.sets.delete(key);
    for (const row of set.rows) {
      const held = this.rows.get(row.id);
      if (held && --held.sets === 0) this.rows.delete(row.id);
    }
  }
}
