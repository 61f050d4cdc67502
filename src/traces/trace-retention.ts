import type { Env } from "../env";
import { registeredTenants, type TenantEntry } from "../tenancy/registry";
import { TraceRepository } from "./trace-repository";

/**
 * Trace retention. Every compile stores its trace in the tenant's D1 (persist-trace.ts), one row of 1 to
 * 17 KB, so at one trace per compile traces would fill a database long before its facts do. A trace is
 * kept `trace_retention_days` (the tenant's registry entry; DEFAULT_TRACE_RETENTION_DAYS when absent),
 * and an hourly Cron Trigger (wrangler.toml) deletes what is older, oldest first, in every bound
 * database of every tenant, whether or not its key is configured. Only traces are deleted: facts,
 * messages and entities are never touched.
 *
 * A run is bounded: PRUNE_BATCH rows a statement, PRUNE_BATCHES statements a database and
 * PRUNE_STATEMENTS in all, well inside a scheduled invocation's D1 queries (1,000 on Workers Paid). Each
 * run starts at another database (by the hour), so when the run's budget is spent before the last one,
 * the next run serves the ones this one did not. A backlog larger than a run (retention shortened, or a
 * first run on a database that predates it) is worked off over the following runs, and each run
 * reports it; a database that fails is logged and the others go on.
 */

export const DEFAULT_TRACE_RETENTION_DAYS = 30;
/** Rows one DELETE removes at most: one statement stays a short write. */
export const PRUNE_BATCH = 1_000;
/** Statements one run makes per database at most. */
export const PRUNE_BATCHES = 50;
/** Statements one run makes in all. */
export const PRUNE_STATEMENTS = 500;

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/** What retention needs of a tenant: its name, its setting and its bound databases. */
export interface RetainedTenant {
  name: string;
  trace_retention_days?: TenantEntry["trace_retention_days"];
  databases: ReadonlyMap<string, D1Database>;
}

export interface PruneOutcome {
  tenant: string;
  /** Traces created before this instant were due. */
  before: string;
  deleted: number;
  /** Whether traces may be left that were due: a database had more than its share of the run, or
   * the run's budget was spent before reaching it. The next run goes on. */
  more: boolean;
  /** Databases the run could not prune (an error, logged), or that the registry names but are not bound. */
  failed: string[];
}

/** The statements a run may still make, shared by every database it prunes. */
export interface PruneBudget {
  statements: number;
}

/** The oldest due traces of one tenant's databases, as far as `budget` reaches, in the given order. */
export async function pruneTraces(
  tenant: RetainedTenant,
  now: number,
  budget: PruneBudget = { statements: PRUNE_STATEMENTS },
  order: readonly string[] = [...tenant.databases.keys()],
): Promise<PruneOutcome> {
  const days = tenant.trace_retention_days ?? DEFAULT_TRACE_RETENTION_DAYS;
  const before = new Date(now - days * DAY_MS).toISOString();
  const outcome: PruneOutcome = { tenant: tenant.name, before, deleted: 0, more: false, failed: [] };
  for (const binding of order) {
    const database = tenant.databases.get(binding);
    if (!database) continue;
    const repository = new TraceRepository(database);
    try {
      for (let batches = 0; ; batches++) {
        if (batches >= PRUNE_BATCHES || budget.statements <= 0) {
          outcome.more = true;
          break;
        }
        budget.statements--;
        const removed = await repository.deleteOlderThan(tenant.name, before, PRUNE_BATCH);
        outcome.deleted += removed;
        if (removed < PRUNE_BATCH) break;
      }
    } catch (error) {
      console.error("trace retention failed for a database", tenant.name, binding, error);
      outcome.failed.push(binding);
    }
  }
  return outcome;
}

/**
 * The scheduled run: every database of every tenant the registry holds, starting at a different one each
 * hour, within one budget. Databases the registry names but the Worker does not bind are reported.
 */
export async function pruneAllTenants(env: Env, now: number): Promise<PruneOutcome[]> {
  const tenants = registeredTenants(env);
  const budget: PruneBudget = { statements: PRUNE_STATEMENTS };
  const retained = new Map(
    tenants.map((t) => [t.name, { name: t.name, ...t.entry, databases: t.databases }] as const),
  );
  // Every tenant's outcome, with the databases the registry names but the Worker does not bind.
  const outcomes = new Map<string, PruneOutcome>(
    await Promise.all(
      tenants.map(async (t) => {
        const outcome = await pruneTraces(retained.get(t.name) as RetainedTenant, now, budget, []);
        const withUnbound: PruneOutcome = { ...outcome, more: t.unbound.length > 0, failed: [...t.unbound] };
        return [t.name, withUnbound] as [string, PruneOutcome];
      }),
    ),
  );
  const slots = tenants.flatMap((t) => [...t.databases.keys()].map((binding) => ({ name: t.name, binding })));
  const start = slots.length ? Math.floor(now / HOUR_MS) % slots.length : 0;
  for (const { name, binding } of [...slots.slice(start), ...slots.slice(0, start)]) {
    const outcome = await pruneTraces(retained.get(name) as RetainedTenant, now, budget, [binding]);
    const sum = outcomes.get(name) as PruneOutcome;
    outcomes.set(name, {
      ...sum,
      deleted: sum.deleted + outcome.deleted,
      more: sum.more || outcome.more,
      failed: [...sum.failed, ...outcome.failed],
    });
  }
  const all = [...outcomes.values()];
  for (const outcome of all) {
    if (outcome.deleted > 0 || outcome.more || outcome.failed.length > 0) {
      console.log("trace retention", JSON.stringify(outcome));
    }
  }
  return all;
}
