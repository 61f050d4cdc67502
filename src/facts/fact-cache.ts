import { ulid } from "ulid";
import type { FactVersion } from "../domain/fact-version";
import type { FactRead } from "../domain/trace";
import type { FactCatchUp, FactRepository, FactWatcher } from "./fact-repository";
import type { StoredFactRow } from "./fact-schema";

/** As FactRepository.forCompile: the newest versions a compile considers. */
export const COMPILE_FACT_LIMIT = 5000;

/**
 * How long a copy is served on announcements alone before it asks D1 anyway. An announcement lost to a
 * failed call between objects can therefore hide another thread's write for this long at most, and the
 * ask renews the copy's registration in case a writer dropped it.
 */
export const FACT_RECHECK_MS = 30_000;

/**
 * A thread's copy of the facts its compiles read (its project's, and its user's own), kept in the
 * Durable Object's memory between requests. Facts live in the tenant's D1 and other threads of the
 * project write them too. Every write bumps the project's revision (fact_revisions) and, in the same
 * transaction, reads which copies are registered (fact_watchers); the writer then announces the new
 * revision to each. So a copy that holds the newest announced revision is current and is served
 * without any I/O, and one that is behind asks D1 only for the rows changed since: a supersession,
 * retirement or review flag changes the row, and so comes back with it.
 *
 * Registration happens in the same D1 transaction as the first load: a write committed before it is
 * in the load, and a write committed after it sees the registration and announces itself.
 *
 * The result equals forCompile's: the newest COMPILE_FACT_LIMIT rows by transaction time. Rows the
 * first load left out are older than every row it kept, so merging changed rows and trimming by the
 * same order gives the same set as reading afresh.
 */
export class FactCache {
  /** Names this in-memory copy; a restarted object is a new copy with a new token. */
  readonly token = ulid();
  private scope: string | undefined;
  /** The project this copy is registered (or registering) for, so announcements during the load count. */
  private watching: string | undefined;
  private revision = 0;
  /** The newest revision a writer has announced for the watched project. */
  private announced = 0;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private rows = new Map<string, FactVersion>();
  /** The revision each held row was last changed at: a late answer never replaces a newer row. */
  private rowRevisions = new Map<string, number>();
  private ordered: FactVersion[] = [];

  /** `reader.thread` names the object holding this copy, for writers to address their announcements. */
  async forCompile(
    repository: FactRepository,
    reader: { projectId: string; userId: string; thread: string },
    now = Date.now(),
  ): Promise<{ rows: FactVersion[]; read: FactRead }> {
    const { projectId, userId } = reader;
    const scope = `${projectId}\u0000${userId}`;
    const watcher: FactWatcher = { thread: reader.thread, token: this.token };
    let read: FactRead;
    if (this.scope !== scope) {
      if (this.watching !== projectId) this.announced = 0;
      this.watching = projectId;
      const loaded = await repository.forCompile(projectId, userId, COMPILE_FACT_LIMIT, watcher);
      this.rows = new Map();
      this.rowRevisions = new Map();
      this.merge(loaded.rows);
      this.revision = loaded.revision;
      this.scope = scope;
      this.order();
      read = "full";
    } else if (this.revision >= this.announced && now - this.checkedAt < FACT_RECHECK_MS) {
      read = "held";
    } else {
      const changed = await repository.changedSince(projectId, userId, this.revision, watcher);
      if (this.merge(changed.rows)) this.order();
      // Another read may have moved it on while this one waited.
      this.revision = Math.max(this.revision, changed.revision);
      read = "changes";
    }
    if (read !== "held") this.checkedAt = now;
    // A copy, so a caller that sorts or filters in place never disturbs the cache.
    return { rows: this.ordered.slice(), read };
  }

  /** Whether a writer announced a revision this copy has not read yet. */
  behind(): boolean {
    return this.revision < this.announced;
  }

  /**
   * A writer's word that the project reached `revision`. False when this is not the copy that
   * registered (the object restarted, or watches another project), so the writer can drop the entry.
   */
  announce(projectId: string, token: string, revision: number): boolean {
    if (token !== this.token || projectId !== this.watching) return false;
    this.announced = Math.max(this.announced, revision);
    return true;
  }

  /**
   * What a write through this object should read back in its own transaction to bring this copy up to
   * date (FactRepository.apply), when the copy holds the project for that user.
   */
  catchUpFor(projectId: string, userId: string): FactCatchUp | undefined {
    if (this.scope !== `${projectId}\u0000${userId}`) return undefined;
    return { userId, since: this.revision };
  }

  /**
   * Rows a write read in its own transaction: every change after `catchUp.since` up to `revision`.
   * The copy held every change up to its own revision, so when that is at least `since` it now holds
   * every change up to `revision` and is served without asking D1 again.
   */
  absorb(projectId: string, catchUp: FactCatchUp, revision: number, rows: StoredFactRow[]): void {
    if (this.scope !== `${projectId}\u0000${catchUp.userId}` || catchUp.since > this.revision) return;
    if (this.merge(rows)) this.order();
    this.revision = Math.max(this.revision, revision);
  }

  /** Takes each row unless this or a newer change of it is held already; whether any was taken. */
  private merge(rows: StoredFactRow[]): boolean {
    let taken = false;
    for (const row of rows) {
      if ((this.rowRevisions.get(row.id) ?? -1) >= row.revision) continue;
      this.rows.set(row.id, withoutRevision(row));
      this.rowRevisions.set(row.id, row.revision);
      taken = true;
    }
    return taken;
  }

  /** Newest first, ties by id descending, as the repository orders them; the rest is dropped. */
  private order(): void {
    const all = [...this.rows.values()].sort((a, b) => compare(b.txStart, a.txStart) || compare(b.id, a.id));
    this.ordered = all.slice(0, COMPILE_FACT_LIMIT);
    if (all.length > COMPILE_FACT_LIMIT) {
      this.rows = new Map(this.ordered.map((row) => [row.id, row]));
      for (const id of this.rowRevisions.keys()) if (!this.rows.has(id)) this.rowRevisions.delete(id);
    }
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Frozen: the same row objects go to every compile until D1 changes them, so none may be altered. */
function withoutRevision(row: StoredFactRow): FactVersion {
  const { revision: _revision, ...fact } = row;
  return Object.freeze(fact);
}
