import { describe, expect, it } from "vitest";
import { call, fact, newThread } from "./helpers";

/**
 * Issue 14 items 8 and 7 (fact routes): GET /facts reaches every version through cursor pages with its
 * filters applied before the limit, and the project-wide reads show only what their viewer may see.
 */

type View = { id: string; key: string; value: unknown };

const policy = (key: string, value: unknown, extra: Record<string, unknown> = {}) =>
  fact(key, value, { source: { type: "policy" }, ...extra });

describe("GET /facts pages", () => {
  it("reaches every fact past the first thousand, page by page, none twice", async () => {
    const t = await newThread();
    for (let b = 0; b < 3; b++) {
      const res = await t.events(
        Array.from({ length: 400 }, (_, i) => policy(`k${b}-${i}`, `v${b}-${i}`, { id: `f${b}-${i}` })),
      );
      expect(res.status).toBe(200);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `/facts?project_id=${t.project}&limit=500${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await call("GET", query);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      seen.push(...res.json.facts.map((f: View) => f.id));
      cursor = res.json.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toHaveLength(1200);
    expect(new Set(seen).size).toBe(1200);
    const first = await call("GET", `/facts?project_id=${t.project}`);
    expect(first.json.facts).toHaveLength(1000);
    expect(first.json.next_cursor).toEqual(expect.any(String));
  });

  it("ends with a null cursor when the last page is exactly full", async () => {
    const t = await newThread();
    await t.events(Array.from({ length: 30 }, (_, i) => policy(`p${i}`, `v${i}`, { id: `p${i}` })));
    const pages: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(
        "GET",
        `/facts?project_id=${t.project}&limit=10${cursor ? `&cursor=${cursor}` : ""}`,
      );
      pages.push(res.json.facts.length);
      cursor = res.json.next_cursor;
    } while (cursor && pages.length < 10);
    expect(pages).toEqual([10, 10, 10]);
  });

  it("finds the current version of a key with more than a thousand older versions", async () => {
    const t = await newThread();
    for (let b = 0; b < 3; b++) {
      const res = await t.events(
        Array.from({ length: 400 }, (_, i) =>
          policy("counter", `count ${b * 400 + i}`, {
            id: `c${String(b * 400 + i).padStart(4, "0")}`,
            ts: new Date(Date.UTC(2025, 0, 1) + (b * 400 + i) * 60_000).toISOString(),
          }),
        ),
      );
      expect(res.status).toBe(200);
    }
    const current = await call("GET", `/facts?project_id=${t.project}&key=counter`);
    expect(current.json.facts.map((f: View) => f.value)).toEqual(["count 1199"]);
    expect(current.json.next_cursor).toBeNull();
    const early = await call(
      "GET",
      `/facts?project_id=${t.project}&key=counter&valid_at=2025-01-01T00:10:30Z&limit=5`,
    );
    expect(early.json.facts.map((f: View) => f.value)).toEqual(["count 10"]);
  });

  it("refuses a cursor it did not issue and a limit out of range, naming the field", async () => {
    for (const [query, field] of [
      ["cursor=not-a-cursor", "cursor"],
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["limit=ten", "limit"],
      ["roles=", "roles"],
    ]) {
      const res = await call("GET", `/facts?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.contentType).toContain("application/problem+json");
      expect(JSON.stringify(res.json), query).toContain(field);
    }
  });
});

describe("who sees what in project-wide fact reads", () => {
  async function seeded() {
    const t = await newThread({ user_id: "u1", authority: "employee" });
    const res = await t.events([
      fact("home_city", "Lyon", { id: "private-u1" }),
      policy("hr_case", "Case 17 under review", { id: "hr-only", allow_roles: ["hr"] }),
      policy("forecast", "Q3 down 12%", { id: "confidential", classification: "confidential" }),
      policy("perk", "Free lunch except for interns", { id: "deny-intern", deny_roles: ["intern"] }),
      policy("deploy_key", "api key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789", { id: "with-secret" }),
      policy("office", "Berlin", { id: "public" }),
    ]);
    expect(res.status).toBe(200);
    const ids = async (viewer: string) =>
      (await call("GET", `/facts?project_id=${t.project}${viewer}`)).json.facts.map((f: View) => f.id).sort();
    return { t, ids };
  }

  it("without a viewer, only what every member may see, secrets redacted", async () => {
    const { t, ids } = await seeded();
    expect(await ids("")).toEqual(["public", "with-secret"]);
    const res = await call("GET", `/facts?project_id=${t.project}&key=deploy_key`);
    expect(res.json.facts[0].value).toBe("api key [REDACTED:api_key]");
  });

  it("a named viewer sees what their user and roles entitle them to, as compile would", async () => {
    const { t, ids } = await seeded();
    expect(await ids("&as_user=u2")).toEqual(["deny-intern", "public", "with-secret"]);
    expect(await ids("&as_user=u1")).toEqual(["deny-intern", "private-u1", "public", "with-secret"]);
    expect(await ids("&roles=hr")).toEqual(["deny-intern", "hr-only", "public", "with-secret"]);
    expect(await ids("&roles=vp")).toEqual(["confidential", "deny-intern", "public", "with-secret"]);
    expect(await ids("&roles=intern")).toEqual(["public", "with-secret"]);
    const cleared = await call("GET", `/facts?project_id=${t.project}&key=deploy_key&roles=secrets:read`);
    expect(cleared.json.facts[0].value).toContain("sk-proj-");
    // Compile applies the same rule to the same facts for the thread's own user.
    const ctx = await t.context({ query: "hr case forecast city" });
    expect(ctx.json.context).toContain("Lyon");
    expect(ctx.json.context).not.toContain("Case 17");
    expect(ctx.json.context).not.toContain("Q3 down");
  });

  it("history of a fact the viewer may not see reads as absent", async () => {
    const { t } = await seeded();
    const q = `project_id=${t.project}`;
    expect((await call("GET", `/facts/hr-only/history?${q}`)).status).toBe(404);
    expect((await call("GET", `/facts/hr-only/history?${q}&roles=hr`)).status).toBe(200);
    expect((await call("GET", `/facts/private-u1/history?${q}&as_user=u2`)).status).toBe(404);
    const own = await call("GET", `/facts/private-u1/history?${q}&as_user=u1`);
    expect(own.json.current.value).toBe("Lyon");
    const secret = await call("GET", `/facts/with-secret/history?${q}`);
    expect(secret.json.current.value).toBe("api key [REDACTED:api_key]");
    expect(JSON.stringify(secret.json)).not.toContain("sk-proj-");
  });
});
