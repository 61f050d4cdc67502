import { databaseSizes, limitOf, stateOf } from "./capacity";
import { sha256Hex } from "./keys";
import { openDatabases, type Tenant } from "./registry";

/**
 * Which of a tenant's D1 databases holds a project. A tenant starts with one (its home database, `db`)
 * and gains more as they fill (`more_dbs`; D1 caps a database at 10 GB). Everything of a project lives
 * in one database: its facts, their search index, revisions and readers, and its compile traces; so a
 * compile or a fact write talks to that database alone.
 *
 * A project is placed once and never moves: the home database keeps the directory
 * (`project_placements`, migration 0007). A project not yet placed goes to the open database (not in
 * `closed_dbs`, and not past 80% of its limit while another has room: src/tenancy/capacity.ts) that
 * ranks highest for its id by rendezvous hashing (SHA-256 of binding and project id), so placements
 * spread evenly and adding a database takes only new projects. A project that has
 * facts in the home database from before the tenant had several is placed there. Two requests placing
 * the same project at once both read back the one row that won.
 *
 * A thread's own work places its project (`on-write`, the default): the thread exists, so the project
 * is in use. A read through the HTTP fact routes does not (`read-only`): a GET naming a project never
 * placed answers from the home database, which holds nothing of it, and records nothing.
 */
export async function projectDatabase(
  tenant: Tenant,
  projectId: string,
  mode: PlacementMode = "on-write",
): Promise<D1Database> {
  return tenant.databases.get(await projectBinding(tenant, projectId, mode)) ?? tenant.database;
}

export type PlacementMode = "on-write" | "read-only";

/** The binding name of the database holding a project. */
export async function projectBinding(
  tenant: Tenant,
  projectId: string,
  mode: PlacementMode = "on-write",
): Promise<string> {
  if (tenant.databases.size === 1) return tenant.db;
  const cacheKey = `${tenant.name}\u0000${projectId}`;
  const held = placed.get(cacheKey);
  if (held && tenant.databases.has(held)) return held;
  const home = tenant.database;
  const [found, existing] = await home.batch<{ database?: string; found?: number }>([
    home.prepare("SELECT database FROM project_placements WHERE project_id = ?").bind(projectId),
    home.prepare("SELECT 1 AS found FROM facts WHERE project_id = ? LIMIT 1").bind(projectId),
  ]);
  let binding = found?.results[0]?.database;
  // Unplaced and only read: whatever it has (facts from before) is in the home database.
  if (!binding && mode === "read-only") return tenant.db;
  if (!binding) {
    const choice = existing?.results.length ? tenant.db : await rendezvous(await withRoom(tenant), projectId);
    const [, stored] = await home.batch<{ database: string }>([
      home
        .prepare(
          "INSERT INTO project_placements (project_id, database, placed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        )
        .bind(projectId, choice, new Date().toISOString()),
      home.prepare("SELECT database FROM project_placements WHERE project_id = ?").bind(projectId),
    ]);
    binding = stored?.results[0]?.database ?? choice;
  }
  if (!tenant.databases.has(binding)) {
    // A directory entry naming a database the configuration no longer binds: refuse rather than guess.
    throw new Error(
      `project '${projectId}' of tenant '${tenant.name}' is placed on unbound database '${binding}'`,
    );
  }
  if (placed.size >= PLACEMENT_CACHE) placed.clear();
  placed.set(cacheKey, binding);
  return binding;
}

/**
 * The open databases a new project may go to: those not yet filling (src/tenancy/capacity.ts), read as
 * D1 reports their size; all open ones when none has room, the warning logged (the tenant needs another
 * database). Read only when a project is first placed, and only with more than one open.
 */
async function withRoom(tenant: Tenant): Promise<string[]> {
  const open = openDatabases(tenant);
  if (open.length < 2) return open;
  const sizes = await databaseSizes(tenant, open);
  const limit = limitOf(tenant);
  const roomy = open.filter((binding) => stateOf(sizes.get(binding) ?? 0, limit) === "ok");
  if (roomy.length) return roomy;
  console.warn(`tenant '${tenant.name}': every open database is filling; add one (--add-database)`);
  return open;
}

/** The binding that ranks highest for this project: SHA-256 of binding and id, ties by name. */
async function rendezvous(bindings: string[], projectId: string): Promise<string> {
  const ranked = await Promise.all(
    bindings.map(async (binding) => ({ binding, score: await sha256Hex(`${binding}\n${projectId}`) })),
  );
  ranked.sort((a, b) => (a.score < b.score ? 1 : a.score > b.score ? -1 : a.binding < b.binding ? -1 : 1));
  return (ranked[0] as { binding: string }).binding;
}

/** Placements never change, so an isolate keeps the ones it has looked up (bounded). */
const PLACEMENT_CACHE = 10_000;
const placed = new Map<string, string>();
