import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, fact, newThread } from "./helpers";

/**
 * Tenant `umbrella` has two D1 databases limited to 400 KB each (vitest.config.ts), so one can be filled
 * here: `GET /capacity` reports each database's size against the limit, a database past 80% of it takes
 * no new project while the other has room (src/tenancy/placement.ts), and once none has room the advice
 * is to add one.
 */
const tenant = "umbrella" as const;
const HOME = "TENANT_UMBRELLA_DB";
const SECOND = "TENANT_UMBRELLA_DB_2";

interface Capacity {
  databases: {
    binding: string;
    size_bytes: number;
    state: string;
    projects: number;
    open: boolean;
    home: boolean;
  }[];
  advice: string[];
}

const capacity = async (): Promise<Capacity> => {
  const res = await call("GET", `/v1/tenants/${tenant}/capacity`, undefined, { tenant });
  expect(res.status).toBe(200);
  return res.json as Capacity;
};
const database = (c: Capacity, binding: string) => c.databases.find((d) => d.binding === binding);

async function placedOn(project: string): Promise<string | undefined> {
  const row = await env.TENANT_UMBRELLA_DB.prepare(
    "SELECT database FROM project_placements WHERE project_id = ?",
  )
    .bind(project)
    .first<{ database: string }>();
  return row?.database;
}

/** A new project of the tenant, placed by its first fact; where it went. */
async function newProject(
  label: string,
): Promise<{ project: string; binding: string; events: (e: unknown[]) => Promise<unknown> }> {
  const t = await newThread(undefined, {
    tenant,
    project: `${label}-${Math.random().toString(36).slice(2, 8)}`,
  });
  expect((await t.events([fact("office_city", "The office is in Dayton")])).status).toBe(200);
  return { project: t.project, binding: (await placedOn(t.project)) as string, events: t.events };
}

/** Writes facts with long texts to a project until its database is past 80% of the limit. */
async function fill(project: { binding: string; events: (e: unknown[]) => Promise<unknown> }): Promise<void> {
  const padding = "the kiln log notes a steady firing curve with no cracks in the glaze ".repeat(12);
  for (let round = 0; round < 40; round++) {
    if (database(await capacity(), project.binding)?.state !== "ok") return;
    await project.events(
      Array.from({ length: 25 }, (_, i) =>
        fact(`kiln_log_${round}_${i}`, `Firing ${round}.${i}: ${padding}`),
      ),
    );
  }
  throw new Error(`${project.binding} did not fill`);
}

describe("a tenant's database capacity", () => {
  it("is reported per database, steers new projects off a filling one, and asks for another when all are", async () => {
    const start = await capacity();
    expect(start.databases.map((d) => d.binding)).toEqual([HOME, SECOND]);
    for (const d of start.databases) {
      expect(d.size_bytes).toBeGreaterThan(0);
      expect(d.state).toBe("ok");
      expect(d.open).toBe(true);
    }
    expect(database(start, HOME)?.home).toBe(true);
    expect(start.advice).toEqual([]);

    const first = await newProject("umbrella-fill");
    await fill(first);
    const filled = await capacity();
    expect(database(filled, first.binding)?.state).not.toBe("ok");
    expect(database(filled, first.binding)?.projects).toBeGreaterThanOrEqual(1);
    // The other database has room: nothing to provision yet.
    expect(filled.advice.filter((a) => a.includes("--add-database"))).toEqual([]);

    // New projects all go to the database with room; by the hash alone, about half would not.
    const other = first.binding === HOME ? SECOND : HOME;
    const placed = [];
    for (let i = 0; i < 8; i++) placed.push((await newProject(`umbrella-new-${i}`)).binding);
    expect(placed).toEqual(Array(8).fill(other));
    // A project placed before keeps its database: its next write goes there.
    expect(
      (await first.events([fact("office_city", "The office moved to Akron")])) as { status: number },
    ).toMatchObject({
      status: 200,
    });
    expect(await placedOn(first.project)).toBe(first.binding);

    // Once every open database is filling, new projects go by the hash again and the advice says to add one.
    await fill({ binding: other, events: (await newProject("umbrella-fill-2")).events });
    const full = await capacity();
    expect(full.databases.every((d) => d.state !== "ok")).toBe(true);
    expect(full.advice.some((a) => a.includes("npm run tenant:create -- umbrella --add-database"))).toBe(
      true,
    );
    const anywhere = await newProject("umbrella-late");
    expect([HOME, SECOND]).toContain(anywhere.binding);
  }, 120_000);

  it("needs the tenant's key", async () => {
    const res = await call("GET", `/v1/tenants/${tenant}/capacity`, undefined, { tenant, key: null });
    expect(res.status).toBe(401);
    expect(res.contentType).toContain("application/problem+json");
  });
});
