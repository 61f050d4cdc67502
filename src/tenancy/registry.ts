import { z } from "zod";
import type { Env } from "../env";

const TENANT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

const tenantEntry = z.object({
  /** Name of this tenant's own D1 binding. */
  db: z.string().min(1),
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
});

const registrySchema = z.record(z.string().regex(TENANT_NAME), tenantEntry);

export type TenantEntry = z.infer<typeof tenantEntry>;

export interface Tenant extends TenantEntry {
  name: string;
  key_sha256: string;
  database: D1Database;
}

const parsed = new Map<string, Record<string, TenantEntry>>();

function registry(env: Env): Record<string, TenantEntry> {
  let entries = parsed.get(env.TENANTS);
  if (!entries) {
    entries = registrySchema.parse(JSON.parse(env.TENANTS || "{}"));
    parsed.set(env.TENANTS, entries);
  }
  return entries;
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
  const database = (env as unknown as Record<string, unknown>)[entry.db] as D1Database | undefined;
  if (!database || typeof database.prepare !== "function") return undefined;
  const keySha256 =
    entry.key_sha256 ??
    (entry.key_secret ? String((env as unknown as Record<string, unknown>)[entry.key_secret] ?? "") : "");
  if (!/^[0-9a-f]{64}$/.test(keySha256)) return undefined;
  return { ...entry, key_sha256: keySha256, name, database };
}
