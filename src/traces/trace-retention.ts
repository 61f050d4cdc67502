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

/** Traces of the tenant created before this instant are due at `now`. */
function dueBefore(tenant: Pick<RetainedTenant, "trace_retention_days">, now: number): string {
  const days = tenant.trace_retention_days ?? DEFAULT_TRACE_RETENTION_DAYS;
  return new Date(now - days * DAY_MS).toISOString();
}

/**
 * Deletes one database's due traces of the tenant, oldest first, as far as its share of the run and
 * `budget` reach; whether some may be left. A failure is logged, and reported as `failed`.
 */
async function pruneDatabase(
  tenant: string,
  binding: string,
  database: D1Database,
  before: string,
  budget: PruneBudget,
): Promise<{ deleted: number; more: boolean; failed: boolean }> {
  const repository = new TraceRepository(database);
  let deleted = 0;
  try {
    for (let batches = 0; batches < PRUNE_BATCHES && budget.statements > 0; batches++) {
      budget.statements--;
      const removed = await repository.deleteOlderThan(tenant, before, PRUNE_BATCH);
      deleted += removed;
      if (removed < PRUNE_BATCH) return { deleted, more: false, failed: false };
    }
    return { deleted, more: true, failed: false };
  } catch (error) {
    console.error("trace retention failed for a database", tenant, binding, error);
    return { deleted, more: true, failed: true };
  }
}

/** The oldest due traces of one tenant's databases, as far as `budget` reaches, in the given order. */
export async function pruneTraces(
  tenant: RetainedTenant,
  now: number,
  budget: PruneBudget = { statements: PRUNE_STATEMENTS },
  order: readonly string[] = [...tenant.databases.keys()],
): Promise<PruneOutcome> {
  const outcome: PruneOutcome = {
    tenant: tenant.name,
    before: dueBefore(tenant, now),
    deleted: 0,
    more: false,
    failed: [],
  };
  for (const binding of order) {
    const database = tenant.databases.get(binding);
    if (database)
      add(outcome, binding, await pruneDatabase(tenant.name, binding, database, outcome.before, budget));
  }
  return outcome;
}

function add(outcome: PruneOutcome, binding: string, run: Awaited<ReturnType<typeof pruneDatabase>>): void {
  outcome.deleted += run.deleted;
  outcome.more ||= run.more;
  if (run.failed) outcome.failed.push(binding);
}

/**
 * The scheduled run: every database of every tenant the registry holds, starting at a different one each
 * hour, within one budget. Databases the registry names but the Worker does not bind are reported.
 */
export async function pruneAllTenants(env: Env, now: number): Promise<PruneOutcome[]> {
  const tenants = registeredTenants(env);
  const budget: PruneBudget = { statements: PRUNE_STATEMENTS };
  const outcomes = new Map<string, PruneOutcome>(
    tenants.map((t) => [
      t.name,
      {
        tenant: t.name,
        before: dueBefore(t.entry, now),
        deleted: 0,
        more: t.unbound.length > 0,
        failed: [...t.unbound],
      },
    ]),
  );
  const slots = tenants.flatMap((t) =>
    [...t.databases].map(([binding, database]) => ({ t, binding, database })),
  );
  const start = slots.length ? Math.floor(now / HOUR_MS) % slots.length : 0;
  for (const { t, binding, database } of [...slots.slice(start), ...slots.slice(0, start)]) {
    const outcome = outcomes.get(t.name) as PruneOutcome;
    add(outcome, binding, await pruneDatabase(t.name, binding, database, outcome.before, budget));
  }
  const all = [...outcomes.values()];
  for (const outcome of all) {
    if (outcome.deleted > 0 || outcome.more || outcome.failed.length > 0) {
      console.log("trace retention", JSON.stringify(outcome));
    }
  }
  return all;
}
