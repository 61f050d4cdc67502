import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { call, fact, KEYS, newThread } from "./helpers";

describe("tenant isolation", () => {
  it("a tenant's key does nothing on another tenant's path", async () => {
    const t = await newThread(undefined, { tenant: "globex" });
    await t.events([fact("secret_plan", "Globex merger", { id: "g1" })]);
    for (const [method, path, body] of [
      ["PUT", `/v1/tenants/globex/threads/${t.thread}`, { project_id: "x", identity: { user_id: "u" } }],
      ["POST", `/v1/tenants/globex/threads/${t.thread}/events`, { events: [fact("k", "v")] }],
      ["POST", `/v1/tenants/globex/threads/${t.thread}/context`, { query: "merger" }],
      ["GET", `/v1/tenants/globex/threads/${t.thread}/state`, undefined],
      ["GET", "/v1/tenants/globex/facts/g1/history", undefined],
      ["GET", "/v1/tenants/globex/facts", undefined],
    ] as const) {
      const res = await call(method, path, body, { key: KEYS.acme });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.contentType).toContain("application/problem+json");
    }
    // The write attempted with the wrong key changed nothing.
    const state = await call("GET", `/threads/${t.thread}/state`, undefined, { tenant: "globex" });
    expect(state.json.facts.map((f: any) => f.id)).toEqual(["g1"]);
  });

  it("the same thread and fact ids in two tenants are different objects in different databases", async () => {
    const identity = { user_id: "u1" };
    const a = await newThread(identity, { tenant: "acme", thread: "shared-name", project: "shared-project" });
    const g = await newThread(identity, {
      tenant: "globex",
      thread: "shared-name",
      project: "shared-project",
    });
    await a.events([fact("plan", "acme plan", { id: "same-id" })]);
    await g.events([fact("plan", "globex plan", { id: "same-id" })]);
    expect((await a.context({ query: "plan" })).json.context).not.toContain("globex plan");
    expect((await g.context({ query: "plan" })).json.context).not.toContain("acme plan");

    const acmeRows = await env.TENANT_ACME_DB.prepare(
      "SELECT value_json FROM facts WHERE id = 'same-id'",
    ).all();
    const globexRows = await env.TENANT_GLOBEX_DB.prepare(
      "SELECT value_json FROM facts WHERE id = 'same-id'",
    ).all();
    expect(acmeRows.results).toEqual([{ value_json: '"acme plan"' }]);
    expect(globexRows.results).toEqual([{ value_json: '"globex plan"' }]);
    const devRows = await env.TENANT_DEV_DB.prepare(
      "SELECT count(*) AS n FROM facts WHERE id = 'same-id'",
    ).first();
    expect(devRows).toEqual({ n: 0 });
  });

  it("unknown tenant, missing key and wrong key are all 401 (test/tenant-enumeration.test.ts)", async () => {
    expect((await call("GET", "/v1/tenants/nobody/facts", undefined, { key: KEYS.acme })).status).toBe(401);
    expect((await call("GET", "/v1/tenants/acme/facts", undefined, { key: null })).status).toBe(401);
    expect((await call("GET", "/v1/tenants/acme/facts", undefined, { key: "wrong" })).status).toBe(401);
    expect((await call("GET", "/v1/tenants/acme/facts", undefined, { key: KEYS.dev })).status).toBe(401);
  });

  it("the local development key works locally and is refused by a deployment", async () => {
    const app = createApp();
    const request = () =>
      new Request("https://tenure.test/v1/tenants/dev/facts", {
        headers: { authorization: `Bearer ${KEYS.dev}` },
      });
    expect((await app.fetch(request(), { ...env, TENURE_ENV: "local" })).status).toBe(200);
    const deployed = await app.fetch(request(), { ...env, TENURE_ENV: "production" });
    expect(deployed.status).toBe(401);
    expect(await deployed.json()).toMatchObject({ detail: expect.stringMatching(/local development key/) });
  });
});

describe("project isolation", () => {
  it("one project sees nothing of another within a tenant", async () => {
    const alpha = await newThread({ user_id: "u1" }, { project: "alpha" });
    const beta = await newThread({ user_id: "u1" }, { project: "beta" });
    await alpha.events([
      fact("launch_date", "Alpha launches March 3", { id: "al1", source: { type: "system" } }),
    ]);
    await beta.events([
      fact("launch_date", "Beta launches June 9", { id: "be1", source: { type: "system" } }),
    ]);

    const betaCtx = await beta.context({ query: "When is the launch date?" });
    expect(betaCtx.json.context).toContain("June 9");
    expect(betaCtx.json.context).not.toContain("March 3");
    const ids = [...betaCtx.json.trace.compiled, ...betaCtx.json.trace.omitted].map((o: any) => o.object_id);
    expect(ids).not.toContain("al1");

    const betaState = await call("GET", `/threads/${beta.thread}/state`);
    expect(betaState.json.facts.map((f: any) => f.id)).toEqual(["be1"]);
    // Same key in another project does not supersede.
    expect((await call("GET", "/facts/al1/history")).json.current.id).toBe("al1");
  });

  it("user memory stays with its user", async () => {
    const ann = await newThread({ user_id: "ann" }, { project: "shared" });
    const bob = await newThread({ user_id: "bob" }, { project: "shared" });
    await ann.events([fact("preferred_editor", "Ann prefers vim", { id: "ann-pref" })]);
    const bobCtx = await bob.context({ query: "preferred editor" });
    expect(bobCtx.json.context).not.toContain("vim");
  });
});
