import type { FactRepository } from "./fact-repository";
import type { FactRow, StoredFactRow } from "./fact-schema";

/** As FactRepository.forCompile: the newest versions a compile considers. */
export const COMPILE_FACT_LIMIT = 5000;

/**
 * A thread's copy of the facts its compiles read (its project's, and its user's own), kept in the
 * Durable Object's memory between requests. Facts live in the tenant's D1 and other threads of the
 * project write them too, so every read first asks D1 for the rows changed since the revision held
 * (fact_revisions, bumped in the same transaction as each write): an unchanged project costs one
 * index seek that returns nothing, and a change costs only the changed rows. A supersession,
 * retirement or review flag changes the row, and so comes back with it: nothing is served stale.
 *
 * The result equals forCompile's: the newest COMPILE_FACT_LIMIT rows by transaction time. Rows the
 * first load left out are older than every row it kept, so merging changed rows and trimming by the
 * same order gives the same set as reading afresh.
 */
export class FactCache {
  private scope: string | undefined;
  private revision = 0;
  private rows = new Map<string, FactRow>();
  private ordered: FactRow[] = [];

  async forCompile(repository: FactRepository, projectId: string, userId: string): Promise<FactRow[]> {
    const scope = `${projectId}\u0000${userId}`;
    if (this.scope !== scope) {
      const loaded = await repository.forCompile(projectId, userId, COMPILE_FACT_LIMIT);
      this.rows = new Map(loaded.rows.map((row) => [row.id, withoutRevision(row)]));
      this.revision = loaded.revision;
      this.scope = scope;
      this.order();
    } else {
      const changed = await repository.changedSince(projectId, userId, this.revision);
      if (changed.rows.length) {
        for (const row of changed.rows) this.rows.set(row.id, withoutRevision(row));
        this.order();
      }
      this.revision = changed.revision;
    }
    // A copy, so a caller that sorts or filters in place never disturbs the cache.
    return this.ordered.slice();
  }

  /** Newest first, ties by id descending, as the repository orders them; the rest is dropped. */
  private order(): void {
    const all = [...this.rows.values()].sort((a, b) => compare(b.txStart, a.txStart) || compare(b.id, a.id));
    this.ordered = all.slice(0, COMPILE_FACT_LIMIT);
    if (all.length > COMPILE_FACT_LIMIT) this.rows = new Map(this.ordered.map((row) => [row.id, row]));
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function withoutRevision(row: StoredFactRow): FactRow {
  const { revision: _revision, ...fact } = row;
  return fact;
}
