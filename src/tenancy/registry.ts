import { z } from "zod";
import type { Env } from "../env";

const TENANT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

const tenantEntry = z.object({
  /**
   * Name of this tenant's own D1 binding: its home database. It holds the project directory
   * (src/tenancy/placement.ts) and the projects placed there; with no `more_dbs`, every project.
   */
  db: z.string().min(1),
  /**
   * Further D1 bindings of this tenant, added as databases fill (`npm run tenant:create -- <name>
   * --add-database`). A new project is placed on one of the databases not in `closed_dbs` (and under 80%
   * of `db_limit_bytes` while one is), by a stable hash of its id, and stays there.
   */
  more_dbs: z.array(z.string().min(1)).optional(),
  /** Databases that take no new projects (full, or being retired); their projects stay where they are. */
  closed_dbs: z.array(z.string().min(1)).optional(),
  /**
   * The size one of this tenant's D1 databases may reach: 10 GB (D1 on Workers Paid) when absent; 500 MB
   * on Workers Free. A database past 80% of it takes no new project while another has room, and
   * `GET /capacity` says so (src/tenancy/capacity.ts).
   */
  db_limit_bytes: z.number().int().min(1).optional(),
  /** Name of this tenant's own Vectorize binding (used once embeddings land). */
  vectors: z.string().min(1),
  /** Hex SHA-256 of the tenant's API key; the key itself is never stored. */
  key_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** Deployed tenants keep the hash out of configuration: the name of a secret holding it. */
  key_secret: z.string().min(1).optional(),
  /** Which extractor reads this tenant's conversations; the offline rules when absent. */
  extractor: z
    .discriminatedUnion("kind", [
      z.object({ kind: z.literal("rules") }),
      z.object({
        kind: z.literal("chat-completions"),
        url: z.url(),
        model: z.string().min(1),
        /** Name of the secret holding the endpoint's API key. */
        key_secret: z.string().min(1).optional(),
      }),
      z.object({ kind: z.literal("workers-ai"), model: z.string().min(1) }),
    ])
    .optional(),
  /** Optional replacement for the default authority ladder (src/facts/authority.ts). */
  authority_ladder: z
    .array(
      z.object({
        rank: z.number().int().min(1).max(9),
        name: z.string().min(1),
        words: z.array(z.string().min(1)),
        phrases: z.array(z.string().min(1)).optional(),
      }),
    )
    .optional(),
  /**
   * How many days a compile's trace is kept (`GET /traces/{id}`); older ones are deleted by the hourly
   * retention run (src/traces/trace-retention.ts). 30 when absent.
   */
  trace_retention_days: z.number().int().min(1).max(36_500).optional(),
  /**
   * Seed 001's entity-resolution thresholds (src/entities): a match scoring at least `bind` binds to the
   * existing entity, one above `review` (and below `bind`) becomes a pending node with a review item,
   * anything lower a new entity. 0.95 and 0.70 when absent.
   */
  entity_thresholds: z
    .object({ bind: z.number().gt(0).lte(1), review: z.number().gte(0).lt(1) })
    .refine((t) => t.review < t.bind, { message: "review must be below bind", path: ["review"] })
    .optional(),
});

export type TenantEntry = z.infer<typeof tenantEntry>;

export interface Tenant extends TenantEntry {
  name: string;
  key_sha256: string;
  /** The home database (`db`). */
  database: D1Database;
  /** Every database of the tenant by binding name, the home one first. */
  databases: Map<string, D1Database>;
}

const parsed = new Map<string, Record<string, TenantEntry>>();

/**
 * The registry's valid entries, parsed once per configuration. Each entry is checked on its own: one
 * that is malformed (a hand-edited field of the wrong type, a name that breaks the name rule) is logged
 * and left out, so that tenant is unknown (401) while every other tenant is served; a registry that is
 * not JSON at all leaves every tenant unknown, and is logged too. Never a 500 for a configuration slip.
 */
function registry(env: Env): Record<string, TenantEntry> {
  let entries = parsed.get(env.TENANTS);
  if (!entries) {
    entries = validEntries(env.TENANTS);
    parsed.set(env.TENANTS, entries);
  }
  return entries;
}

function validEntries(text: string): Record<string, TenantEntry> {
  let raw: unknown;
  try {
    raw = JSON.parse(text || "{}");
  } catch (error) {
    console.error("TENANTS is not JSON: no tenant is served", error);
    return {};
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    console.error("TENANTS is not an object of tenants: no tenant is served");
    return {};
  }
  const entries: Record<string, TenantEntry> = {};
  for (const [name, value] of Object.entries(raw)) {
    const entry = tenantEntry.safeParse(value);
    if (!TENANT_NAME.test(name)) {
      console.error(`TENANTS: '${name}' is not a valid tenant name; the entry is ignored`);
    } else if (!entry.success) {
      const fields = entry.error.issues.map((issue) => issue.path.join(".") || "(entry)").join(", ");
      console.error(`TENANTS: tenant '${name}' is malformed (${fields}); it is not served`);
    } else {
      entries[name] = entry.data;
    }
  }
  return entries;
}

/**
 * Every tenant the registry holds, with the databases it names that are bound (and those that are not,
 * by name) and its settings, whatever its key: what maintenance that does not serve requests needs
 * (trace retention), so a tenant whose key is misconfigured is still kept tidy.
 */
export function registeredTenants(env: Env): {
  name: string;
  entry: TenantEntry;
  databases: Map<string, D1Database>;
  unbound: string[];
}[] {
  return Object.entries(registry(env)).map(([name, entry]) => ({ name, entry, ...databasesOf(env, entry) }));
}

/** The entry's databases (home first) that the Worker binds, and the names of those it does not. */
function databasesOf(
  env: Env,
  entry: TenantEntry,
): { databases: Map<string, D1Database>; unbound: string[] } {
  const databases = new Map<string, D1Database>();
  const unbound: string[] = [];
  for (const binding of [entry.db, ...(entry.more_dbs ?? [])]) {
    const database = (env as unknown as Record<string, unknown>)[binding] as D1Database | undefined;
    if (database && typeof database.prepare === "function") databases.set(binding, database);
    else unbound.push(binding);
  }
  return { databases, unbound };
}

export function isTenantName(name: string): boolean {
  return TENANT_NAME.test(name);
}

/**
 * Resolves a tenant to its own bindings. A tenant whose database binding is missing is treated as
 * unknown rather than falling back to anything shared.
 */
export function lookupTenant(env: Env, name: string): Tenant | undefined {
  if (!isTenantName(name)) return undefined;
  const entry = Object.hasOwn(registry(env), name) ? registry(env)[name] : undefined;
  if (!entry) return undefined;
  const { databases, unbound } = databasesOf(env, entry);
  // Every database must be bound: a missing one would hide its projects, never fall back elsewhere.
  if (unbound.length > 0) return undefined;
  const database = databases.get(entry.db) as D1Database;
  const keySha256 =
    entry.key_sha256 ??
    (entry.key_secret ? String((env as unknown as Record<string, unknown>)[entry.key_secret] ?? "") : "");
  if (!/^[0-9a-f]{64}$/.test(keySha256)) return undefined;
  return { ...entry, key_sha256: keySha256, name, database, databases };
}

/** The databases that take new projects; when every one is closed, the newest still does (never none). */
export function openDatabases(tenant: Pick<Tenant, "databases" | "closed_dbs">): string[] {
  const all = [...tenant.databases.keys()];
  const closed = new Set(tenant.closed_dbs ?? []);
  const open = all.filter((binding) => !closed.has(binding));
  return open.length ? open : all.slice(-1);
}
