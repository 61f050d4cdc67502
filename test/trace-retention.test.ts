import { createScheduledController, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../src/env";
import worker from "../src/index";
import { lookupTenant } from "../src/tenancy/registry";
import { PRUNE_BATCH, PRUNE_BATCHES, pruneAllTenants, pruneTraces } from "../src/traces/trace-retention";
import { call, fact, message, newThread } from "./helpers";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Backdates a stored trace, as if its compile ran `days` ago. */
async function age(database: D1Database, traceId: string, days: number): Promise<void> {
  const createdAt = new Date(Date.now() - days * DAY_MS).toISOString();
  const result = await database
    .prepare("UPDATE traces SET created_at = ? WHERE trace_id = ?")
    .bind(createdAt, traceId)
    .run();
  expect(result.meta.changes).toBe(1);
}

/** The hourly Cron Trigger, as the runtime delivers it. */
async function runRetention(): Promise<void> {
  const controller = createScheduledController({ scheduledTime: Date.now(), cron: "17 * * * *" });
  await worker.scheduled(controller, env);
}

async function compile(tenant: "acme" | "globex", query: string) {
  const t = await newThread(undefined, { tenant });
  await t.events([fact("deploy_region", "eu-west-1"), message("Where do we deploy?")]);
  const compiled = await t.context({ query, budget_tokens: 200 });
  expect(compiled.status).toBe(200);
  return { t, traceId: compiled.json.trace_id as string };
}

describe("trace retention", () => {
  it("deletes the traces past each tenant's retention and nothing else", async () => {
    const [old, recent, fresh] = [
      await compile("acme", "which region do we deploy to?"),
      await compile("acme", "where is the service deployed?"),
      await compile("acme", "what region again?"),
    ];
    const week = await compile("globex", "which region do we deploy to?");
    // acme keeps the default 30 days, globex 7 (vitest.config.ts).
    await age(env.TENANT_ACME_DB, old.traceId, 31);
    await age(env.TENANT_ACME_DB, recent.traceId, 29);
    await age(env.TENANT_GLOBEX_DB, week.traceId, 8);

    await runRetention();

    const status = async (tenant: "acme" | "globex", id: string) =>
      (await call("GET", `/v1/tenants/${tenant}/traces/${id}`, undefined, { tenant })).status;
    expect(await status("acme", old.traceId)).toBe(404);
    expect(await status("acme", recent.traceId)).toBe(200);
    expect(await status("acme", fresh.traceId)).toBe(200);
    expect(await status("globex", week.traceId)).toBe(404);
    // The compile's facts and messages are not traces: the thread still answers from them.
    const again = await old.t.context({ query: "which region do we deploy to?", budget_tokens: 200 });
    expect(again.json.context).toContain("eu-west-1");
  });

  it("deletes a backlog in bounded runs, in every database of the tenant", async () => {
    const tenant = lookupTenant(env, "initech");
    if (!tenant) throw new Error("the initech test tenant is not configured");
    const [home, second] = [env.TENANT_INITECH_DB, env.TENANT_INITECH_DB_2];
    const due = new Date(Date.now() - 40 * DAY_MS).toISOString();
    const kept = new Date(Date.now() - DAY_MS).toISOString();
    const insert = (database: D1Database, prefix: string, count: number, createdAt: string) =>
      database
        .prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
          INSERT INTO traces (tenant, trace_id, project_id, thread, created_at, query_sha256, query_chars,
            budget_tokens, tokens, compile_ms, candidate_count, compiled_count, omitted_count,
            quarantined_count, trace_json)
          SELECT 'initech', ? || i, 'p-backlog', 't-backlog', ?, '', 0, 0, 0, 0, 0, 0, 0, 0, '{}' FROM n`,
        )
        .bind(count, prefix, createdAt)
        .run();
    const backlog = PRUNE_BATCH * PRUNE_BATCHES + 5;
    await insert(home, "due-", backlog, due);
    await insert(home, "kept-", 3, kept);
    await insert(second, "due-2-", 2, due);
    const left = async (database: D1Database) =>
      (
        await database
          .prepare("SELECT count(*) AS n FROM traces WHERE tenant = 'initech' AND thread = 't-backlog'")
          .first<{ n: number }>()
      )?.n;

    const first = await pruneTraces(tenant, Date.now());
    expect(first.deleted).toBe(PRUNE_BATCH * PRUNE_BATCHES + 2);
    expect(first.more).toBe(true);
    expect(await left(second)).toBe(0);
    const next = await pruneTraces(tenant, Date.now());
    expect(next).toMatchObject({ deleted: 5, more: false });
    expect(await left(home)).toBe(3);
  }, 60_000);

  it("keeps a tenant whose key is not configured tidy, and reports a database that is not bound", async () => {
    const t = await newThread();
    await t.events([fact("deploy_region", "eu-west-1")]);
    const compiled = await t.context({ query: "which region?", budget_tokens: 200 });
    await age(env.TENANT_ACME_DB, compiled.json.trace_id, 40);
    // acme's key hash lives in a secret nobody set, and it names a second database nobody bound.
    const registry = {
      acme: { db: "TENANT_ACME_DB", more_dbs: ["TENANT_ACME_DB_GONE"], vectors: "V", key_secret: "UNSET" },
    };
    const misconfigured = { ...env, TENANTS: JSON.stringify(registry) } as unknown as Env;
    expect(lookupTenant(misconfigured, "acme")).toBeUndefined();
    const [outcome] = await pruneAllTenants(misconfigured, Date.now());
    expect(outcome).toMatchObject({ tenant: "acme", more: true, failed: ["TENANT_ACME_DB_GONE"] });
    expect(outcome?.deleted).toBeGreaterThanOrEqual(1);
    const gone = await env.TENANT_ACME_DB.prepare("SELECT count(*) AS n FROM traces WHERE trace_id = ?")
      .bind(compiled.json.trace_id)
      .first<{ n: number }>();
    expect(gone?.n).toBe(0);
  });

  it("stops a run when its budget of statements is spent, and says more is due", async () => {
    const tenant = lookupTenant(env, "initech");
    if (!tenant) throw new Error("the initech test tenant is not configured");
    const due = new Date(Date.now() - 40 * DAY_MS).toISOString();
    await env.TENANT_INITECH_DB_2.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO traces (tenant, trace_id, project_id, thread, created_at, query_sha256, query_chars,
        budget_tokens, tokens, compile_ms, candidate_count, compiled_count, omitted_count,
        quarantined_count, trace_json)
      SELECT 'initech', 'budget-' || i, 'p-budget', 't-budget', ?, '', 0, 0, 0, 0, 0, 0, 0, 0, '{}' FROM n`,
    )
      .bind(PRUNE_BATCH * 3, due)
      .run();
    const budget = { statements: 2 };
    const first = await pruneTraces(tenant, Date.now(), budget, ["TENANT_INITECH_DB_2"]);
    expect(first).toMatchObject({ deleted: PRUNE_BATCH * 2, more: true });
    expect(budget.statements).toBe(0);
    const rest = await pruneTraces(tenant, Date.now());
    expect(rest).toMatchObject({ deleted: PRUNE_BATCH, more: false });
  });
});

/**
 * A registry entry an operator hand-edited wrongly costs that tenant, never the others: the entry is
 * logged and left out (its requests are unauthorized), and the service goes on.
 */
describe("a malformed tenant registry", () => {
  it("leaves out the malformed entry and serves the others", () => {
    const registry = {
      acme: { db: "TENANT_ACME_DB", vectors: "V", key_sha256: "0".repeat(64), trace_retention_days: "14" },
      globex: { db: "TENANT_GLOBEX_DB", vectors: "V", key_sha256: "1".repeat(64), trace_retention_days: 14 },
    };
    const configured = { ...env, TENANTS: JSON.stringify(registry) } as unknown as Env;
    expect(lookupTenant(configured, "acme")).toBeUndefined();
    expect(lookupTenant(configured, "globex")?.trace_retention_days).toBe(14);
    const broken = { ...env, TENANTS: "{not json" } as unknown as Env;
    expect(lookupTenant(broken, "globex")).toBeUndefined();
  });
});
