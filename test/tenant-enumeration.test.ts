import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { call, KEYS } from "./helpers";

/**
 * Without a key that opens it, a tenant's path answers the same whether the tenant exists or not:
 * otherwise the difference lists the tenants to anyone.
 */
const ROUTES = [
  ["PUT", "/threads/t1", { project_id: "p", identity: { user_id: "u" } }],
  ["POST", "/threads/t1/events", { events: [{ type: "fact", key: "k", value: "v" }] }],
  ["POST", "/threads/t1/context", { query: "anything" }],
  ["GET", "/threads/t1/state", undefined],
  ["GET", "/threads/t1/extractions", undefined],
  ["GET", "/facts", undefined],
  ["GET", "/facts/f1/history", undefined],
  ["GET", "/traces/01HZZZZZZZZZZZZZZZZZZZZZZZ", undefined],
] as const;

async function answer(tenant: string, method: string, path: string, body: unknown, key: string | null) {
  const res = await call(method, `/v1/tenants/${tenant}${path}`, body, { key });
  return { status: res.status, contentType: res.contentType, body: res.json };
}

describe("no tenant enumeration", () => {
  it.each(ROUTES)(
    "%s %s: an unknown tenant answers exactly as a known one with a wrong key",
    async (method, path, body) => {
      const known = await answer("acme", method, path, body, "not-the-key");
      expect(known.status).toBe(401);
      expect(known.contentType).toContain("application/problem+json");
      // Unknown names: well-formed, malformed (fails the name rule), and a real tenant's key sent to
      // a tenant that does not exist.
      for (const [tenant, key] of [
        ["nobody", "not-the-key"],
        ["Not_A-Valid%20Name", "not-the-key"],
        ["nobody", KEYS.acme],
      ] as const) {
        expect(await answer(tenant, method, path, body, key), `${tenant} with ${key}`).toEqual(known);
      }
    },
  );

  it("a missing key gets the same answer from an unknown tenant as from a known one", async () => {
    const known = await answer("acme", "GET", "/facts", undefined, null);
    expect(known.status).toBe(401);
    expect(await answer("nobody", "GET", "/facts", undefined, null)).toEqual(known);
  });

  it("the local development key is refused outside local mode the same way for any tenant", async () => {
    const app = createApp();
    const deployed = { ...env, TENURE_ENV: "production" };
    const request = (tenant: string) =>
      app.fetch(
        new Request(`https://tenure.test/v1/tenants/${tenant}/facts`, {
          headers: { authorization: `Bearer ${KEYS.dev}` },
        }),
        deployed,
      );
    const known = await request("dev");
    const unknown = await request("nobody");
    expect(known.status).toBe(401);
    expect(unknown.status).toBe(known.status);
    expect(await unknown.json()).toEqual(await known.json());
  });

  it("a known tenant with its own key still gets in", async () => {
    expect((await call("GET", "/v1/tenants/acme/facts", undefined, { key: KEYS.acme })).status).toBe(200);
  });
});
