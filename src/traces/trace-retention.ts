import type { Env } from "../env";
import { lookupTenant, type Tenant, tenantNames } from "../tenancy/registry";
import { TraceRepository } from "./trace-repository";

/**
 * Trace retention. Every compile stores its trace in the tenant's D1 (persist-trace.ts), one row of 1 to
 * 17 KB, so at one trace per compile traces would fill a database long before its facts do. A trace is
 * kept `trace_retention_days` (the tenant's registry entry; DEFAULT_TRACE_RETENTION_DAYS when absent),
 * and an hourly Cron Trigger (wrangler.toml) deletes what is older, oldest first, in every database of
 * every tenant. Only traces are deleted: facts, messages and entities are never touched.
 *
 * A run is bounded (PRUNE_BATCHES statements of PRUNE_BATCH rows per database) so it stays well inside a
 * scheduled invocation's limits; a backlog larger than that (retention shortened, or a first run on a
 * database that predates it) is worked off over the following runs, and the run reports it.
 */

export const DEFAULT_TRACE_RETENTION_DAYS = 30;
/** Rows one DELETE removes at most: one statement stays a short write. */
export const PRUNE_BATCH = 1_000;
/** Statements one run makes per database at most. */
export const PRUNE_BATCHES = 50;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PruneOutcome {
  tenant: string;
  /** Traces created before this instant were due. */
  before: string;
  deleted: number;
  /** Whether a database had more due than one run deletes: the next run goes on. */
  more: boolean;
}

/** Deletes the tenant's traces older than its retention as of `now` (epoch ms), database by database. */
export async function pruneTraces(tenant: Tenant, now: number): Promise<PruneOutcome> {
  const days = tenant.trace_retention_days ?? DEFAULT_TRACE_RETENTION_DAYS;
  const before = new Date(now - days * DAY_MS).toISOString();
  let deleted = 0;
  let more = false;
  for (const database of tenant.databases.values()) {
    const repository = new TraceRepository(database);
    let batches = 0;
    for (;;) {
      const removed = await repository.deleteOlderThan(tenant.name, before, PRUNE_BATCH);
      deleted += removed;
      batches++;
      if (removed < PRUNE_BATCH) break;
      if (batches >= PRUNE_BATCHES) {
        more = true;
        break;
      }
    }
  }
  return { tenant: tenant.name, before, deleted, more };
}

/**
 * The scheduled run: every tenant in turn. A tenant whose databases cannot be reached is logged and
 * skipped, so one tenant's failure never stops the others' retention.
 */
export async function pruneAllTenants(env: Env, now: number): Promise<PruneOutcome[]> {
  const outcomes: PruneOutcome[] = [];
  for (const name of tenantNames(env)) {
    const tenant = lookupTenant(env, name);
    if (!tenant) continue;
    try {
      const outcome = await pruneTraces(tenant, now);
      outcomes.push(outcome);
      if (outcome.deleted > 0 || outcome.more) console.log("trace retention", JSON.stringify(outcome));
    } catch (error) {
      console.error("trace retention failed", name, error);
    }
  }
  return outcomes;
}
