import { openDatabases, type Tenant } from "./registry";

/** D1's cap on one database on the Workers Paid plan (500 MB on Free: set `db_limit_bytes`). */
export const D1_DATABASE_LIMIT_BYTES = 10_000_000_000;

/**
 * The share of its limit past which a database is `filling`: it takes no new project while another
 * open database has room, and the tenant is told to add one when none has. A project placed there
 * before goes on growing in it (placements never move), hence the headroom.
 */
export const FILLING_SHARE = 0.8;
/** The share past which a database is `full`: writes to its projects may soon fail. */
export const FULL_SHARE = 0.95;

export type DatabaseState = "ok" | "filling" | "full";

/** One of a tenant's D1 databases as it stands. */
export interface DatabaseCapacity {
  binding: string;
  home: boolean;
  /** Whether it takes new projects by configuration (not in `closed_dbs`). */
  open: boolean;
  /** Size in bytes, as D1 reports it after a statement (`meta.size_after`). */
  size_bytes: number;
  limit_bytes: number;
  share: number;
  state: DatabaseState;
  /** Projects placed on it (the home database's directory; a tenant of one database places none). */
  projects: number;
}

export function limitOf(tenant: Tenant): number {
  return tenant.db_limit_bytes ?? D1_DATABASE_LIMIT_BYTES;
}

export function stateOf(size: number, limit: number): DatabaseState {
  if (size >= limit * FULL_SHARE) return "full";
  if (size >= limit * FILLING_SHARE) return "filling";
  return "ok";
}

/** Each database's size, read with one trivial statement each (D1 answers every one with the size). */
export async function databaseSizes(
  tenant: Tenant,
  bindings: readonly string[],
): Promise<Map<string, number>> {
  const sizes = await Promise.all(
    bindings.map(async (binding) => {
      const database = tenant.databases.get(binding);
      const result = database ? await database.prepare("SELECT 1").run() : undefined;
      return [binding, Number(result?.meta.size_after ?? 0)] as const;
    }),
  );
  return new Map(sizes);
}

/**
 * Every database of the tenant with its size, state and projects, home first. What an operator reads
 * before one fills: the advice says what to run.
 */
export async function tenantCapacity(tenant: Tenant): Promise<{
  databases: DatabaseCapacity[];
  advice: string[];
}> {
  const bindings = [...tenant.databases.keys()];
  const limit = limitOf(tenant);
  const [sizes, placed] = await Promise.all([
    databaseSizes(tenant, bindings),
    bindings.length > 1
      ? tenant.database
          .prepare("SELECT database, count(*) AS n FROM project_placements GROUP BY database")
          .all<{ database: string; n: number }>()
          .then((r) => new Map(r.results.map((row) => [row.database, row.n])))
      : Promise.resolve(new Map<string, number>()),
  ]);
  const open = new Set(openDatabases(tenant));
  const databases = bindings.map((binding) => {
    const size = sizes.get(binding) ?? 0;
    return {
      binding,
      home: binding === tenant.db,
      open: open.has(binding),
      size_bytes: size,
      limit_bytes: limit,
      share: size / limit,
      state: stateOf(size, limit),
      projects: placed.get(binding) ?? 0,
    };
  });
  const advice: string[] = [];
  const roomy = databases.filter((d) => d.open && d.state === "ok");
  if (roomy.length === 0) {
    advice.push(
      `Every open database is past ${Math.round(FILLING_SHARE * 100)}% of its limit: add one ` +
        `(npm run tenant:create -- ${tenant.name} --add-database).`,
    );
  }
  for (const d of databases) {
    if (d.open && d.state === "full" && roomy.length > 0) {
      advice.push(
        `${d.binding} is past ${Math.round(FULL_SHARE * 100)}% of its limit: close it to new projects ` +
          `(npm run tenant:create -- ${tenant.name} --close-db ${d.binding}).`,
      );
    }
  }
  return { databases, advice };
}
