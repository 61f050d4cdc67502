import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { lookupTenant, openDatabases } from "../src/tenancy/registry";
import { call, fact, newThread } from "./helpers";

/**
 * Tenant `initech` has two D1 databases (vitest.config.ts): its projects are placed on one of them by a
 * stable hash, once, and everything of a project lives there (src/tenancy/placement.ts).
 */
const tenant = "initech" as const;
const databases = { home: env.TENANT_INITECH_DB, second: env.TENANT_INITECH_DB_2 };

async function factCount(database: D1Database, projectId: string): Promise<number> {
  const row = await database
    .prepare("SELECT count(*) AS n FROM facts WHERE project_id = ?")
    .bind(projectId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("projects spread over a tenant's databases", () => {
  it("places each project in one database, and reads and writes it there", async () => {
    const run = Math.random().toString(36).slice(2, 8);
    const projects = Array.from({ length: 10 }, (_, i) => `spread-${run}-${i}`);
    const where: string[] = [];
    for (const [i, project] of projects.entries()) {
      const t = await newThread(undefined, { tenant, project });
      expect(
        (await t.events([fact("office_city", `Office ${i} is in Dayton`, { id: `oc-${i}` })])).status,
      ).toBe(200);
      const home = await factCount(databases.home, project);
      const second = await factCount(databases.second, project);
      expect(home + second).toBe(1);
      where.push(home ? "home" : "second");

      const ctx = await t.context({ query: "Where is the office?" });
      expect(ctx.json.context).toContain(`Office ${i} is in Dayton`);
      // The trace went to the project's database, and GET /traces finds it there.
      const trace = await call("GET", `/v1/tenants/${tenant}/traces/${ctx.json.trace_id}`, undefined, {
        tenant,
      });
      expect(trace.status).toBe(200);
      expect(trace.json.project_id).toBe(project);

      const listed = await call("GET", `/facts?project_id=${project}&as_user=u1`, undefined, { tenant });
      expect(listed.json.facts.map((f: { id: string }) => f.id)).toEqual([`oc-${i}`]);
      const history = await call("GET", `/facts/oc-${i}/history?as_user=u1`, undefined, { tenant });
      expect(history.status).toBe(200);
    }
    // Ten projects over two databases: both are used.
    expect(new Set(where)).toEqual(new Set(["home", "second"]));

    // A second thread of a project finds the same database.
    const again = await newThread(undefined, { tenant, project: projects[0] });
    await again.events([fact("office_city", "Office 0 moved to Akron", { id: "oc-0b" })]);
    const moved = await again.context({ query: "Where is the office?" });
    expect(moved.json.context).toContain("Akron");
    expect(moved.json.context).not.toContain("Dayton");
    const first = where[0] === "home" ? databases.home : databases.second;
    expect(await factCount(first, projects[0] as string)).toBe(2);
  }, 60_000);

  it("pages through every database in one order when a read names no project", async () => {
    const run = Math.random().toString(36).slice(2, 8);
    const projects = Array.from({ length: 6 }, (_, i) => `paged-${run}-${i}`);
    for (const project of projects) {
      const t = await newThread(undefined, { tenant, project });
      await t.events([fact("paged_a", `${project} a`), fact("paged_b", `${project} b`)]);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/facts?limit=3&as_user=u1${cursor ? `&cursor=${cursor}` : ""}`;
      const page = await call("GET", query, undefined, { tenant });
      expect(page.status).toBe(200);
      for (const f of page.json.facts) seen.push(`${f.project_id}|${f.key}`);
      cursor = page.json.next_cursor;
    } while (cursor);
    const ours = seen.filter((s) => s.startsWith(`paged-${run}`));
    const expected = projects.flatMap((p) => [`${p}|paged_a`, `${p}|paged_b`]);
    expect(ours).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("keeps a project that already has facts in the home database there", async () => {
    const project = `legacy-${Math.random().toString(36).slice(2, 8)}`;
    // Facts written while the tenant had one database, before the directory knew the project.
    await databases.home
      .prepare(
        `INSERT INTO facts (project_id, id, lineage_id, key, value_json, content, tokens, memory_type, user_id, thread_id,
          source_type, authority_rank, scope, is_valid, contradiction_status, depends_on_json, needs_review,
          is_constraint, classification, allow_roles_json, deny_roles_json, valid_from, tx_start)
        VALUES (?, 'legacy-1', 'legacy-1', 'vendor', '"Acme Tools"', 'vendor: Acme Tools', 4, 'project', NULL, 'old',
          'user', 3, 'global', 1, 'none', '[]', 0, 0, 'public', '[]', '[]', '2024-01-01T00:00:00.000Z',
          '2024-01-01T00:00:00.000Z')`,
      )
      .bind(project)
      .run();
    const t = await newThread(undefined, { tenant, project });
    const ctx = await t.context({ query: "Which vendor do we use?" });
    expect(ctx.json.context).toContain("Acme Tools");
    const placed = await databases.home
      .prepare("SELECT database FROM project_placements WHERE project_id = ?")
      .bind(project)
      .first<{ database: string }>();
    expect(placed?.database).toBe("TENANT_INITECH_DB");
  });

  it("takes new projects only on open databases", () => {
    const entry = lookupTenant(env as never, tenant);
    if (!entry) throw new Error("tenant initech is configured");
    expect(openDatabases(entry)).toEqual(["TENANT_INITECH_DB", "TENANT_INITECH_DB_2"]);
    expect(openDatabases({ ...entry, closed_dbs: ["TENANT_INITECH_DB"] })).toEqual(["TENANT_INITECH_DB_2"]);
    // Every database closed: the newest still takes projects rather than none.
    const all = ["TENANT_INITECH_DB", "TENANT_INITECH_DB_2"];
    expect(openDatabases({ ...entry, closed_dbs: all })).toEqual(["TENANT_INITECH_DB_2"]);
  });
});
