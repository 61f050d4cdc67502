import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("public, unauthenticated routes", () => {
  it("serves health", async () => {
    const res = await SELF.fetch("https://tenure.test/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("serves an OpenAPI 3.1 document generated from the request schemas", async () => {
    const res = await SELF.fetch("https://tenure.test/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/v1/tenants/{tenant}/capacity",
      "/v1/tenants/{tenant}/entities",
      "/v1/tenants/{tenant}/entities/review",
      "/v1/tenants/{tenant}/entities/review/{id}",
      "/v1/tenants/{tenant}/entities/{id}",
      "/v1/tenants/{tenant}/entities/{id}/merge",
      "/v1/tenants/{tenant}/entities/{id}/messages",
      "/v1/tenants/{tenant}/entities/{id}/split",
      "/v1/tenants/{tenant}/facts",
      "/v1/tenants/{tenant}/facts/{id}/history",
      "/v1/tenants/{tenant}/threads/{thread}",
      "/v1/tenants/{tenant}/threads/{thread}/context",
      "/v1/tenants/{tenant}/threads/{thread}/entities/backfill",
      "/v1/tenants/{tenant}/threads/{thread}/events",
      "/v1/tenants/{tenant}/threads/{thread}/extractions",
      "/v1/tenants/{tenant}/threads/{thread}/messages/{message}",
      "/v1/tenants/{tenant}/threads/{thread}/state",
      "/v1/tenants/{tenant}/threads/{thread}/state/items/{uid}/expand",
      "/v1/tenants/{tenant}/traces/{trace_id}",
    ]);
    expect(doc.components.schemas.FactEvent.properties.classification.enum).toEqual([
      "public",
      "restricted",
      "confidential",
      "highly_restricted",
    ]);
    expect(doc.components.schemas.ContextRequest.properties.budget_tokens.default).toBe(8000);
    expect(doc.components.schemas.EntityType.enum).toContain("person");
    expect(Object.keys(doc.paths["/v1/tenants/{tenant}/entities/{id}/merge"])).toEqual(["post"]);
    // An entity's message references page with the entity list's conventions.
    const messages = doc.paths["/v1/tenants/{tenant}/entities/{id}/messages"].get;
    expect(messages.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
      ["cursor", "id", "limit", "project_id", "tenant"].sort(),
    );
    expect(doc.components.schemas.EntityMessageList.required).toEqual(
      expect.arrayContaining(["messages", "message_count", "next_cursor"]),
    );
    // The bound a message's content is held to, and the 413 that names it.
    expect(doc.components.schemas.MessageEvent.properties.content).toMatchObject({ maxLength: 1_048_576 });
    const events = doc.paths["/v1/tenants/{tenant}/threads/{thread}/events"].post;
    expect(events.responses["413"].description).toContain("content");
    // A write that meets a full store is a 507 problem (src/tenancy/storage-full.ts).
    expect(events.responses["507"].content).toHaveProperty("application/problem+json");
    // The entity edits list every answer they give: a body not sent as JSON is a 415, one too large a 413,
    // a full store a 507.
    for (const [path, ok] of [
      ["/v1/tenants/{tenant}/entities/{id}/merge", "200"],
      ["/v1/tenants/{tenant}/entities/{id}/split", "201"],
      ["/v1/tenants/{tenant}/entities/review/{id}", "200"],
    ] as const) {
      const responses = doc.paths[path].post.responses;
      expect(Object.keys(responses).sort()).toEqual(
        [ok, "400", "401", "404", "409", "413", "415", "507"].sort(),
      );
      expect(responses["415"].content).toHaveProperty("application/problem+json");
    }
    expect(doc.components.schemas.EntityMerge.properties.allow_type_change.type).toBe("boolean");
    // What an extracted fact's id is made of.
    expect(doc.components.schemas.Fact.properties.id.description).toContain("`xt:<thread>:<message>:<key>`");
  });

  it("serves a docs page", async () => {
    const res = await SELF.fetch("https://tenure.test/docs");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("/openapi.json");
  });
});
