import { createScheduledController, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { lookupTenant } from "../src/tenancy/registry";
import { PRUNE_BATCH, PRUNE_BATCHES, pruneTraces } from "../src/traces/trace-retention";
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
});
