import { describe, expect, it } from "vitest";
import { call, fact, newThread } from "./helpers";

async function expectProblem(res: Awaited<ReturnType<typeof call>>, field: string) {
  expect(res.status).toBe(400);
  expect(res.contentType).toContain("application/problem+json");
  expect(res.json.errors.map((e: { field: string }) => e.field)).toContain(field);
}

describe("malformed input gets a 4xx problem naming the field", () => {
  it.each([
    ["project_id missing", { identity: { user_id: "u" } }, "project_id"],
    ["project_id wrong type", { project_id: 5, identity: { user_id: "u" } }, "project_id"],
    ["identity missing", { project_id: "p" }, "identity"],
    ["identity.user_id empty", { project_id: "p", identity: { user_id: "" } }, "identity.user_id"],
    [
      "identity.roles not a list",
      { project_id: "p", identity: { user_id: "u", roles: "admin" } },
      "identity.roles",
    ],
    [
      "environment.now not a date",
      { project_id: "p", identity: { user_id: "u" }, environment: { now: "soon" } },
      "environment.now",
    ],
  ])("PUT thread: %s", async (_name, body, field) => {
    await expectProblem(await call("PUT", "/threads/v-thread", body), field);
  });

  it("PUT thread: bad thread id in the path", async () => {
    await expectProblem(
      await call("PUT", "/threads/bad%20id!", { project_id: "p", identity: { user_id: "u" } }),
      "param.thread",
    );
  });

  it.each([
    ["events missing", {}, "events"],
    ["events empty", { events: [] }, "events"],
    ["too many events", { events: Array.from({ length: 501 }, (_, i) => fact(`k${i}`, "v")) }, "events"],
    ["unknown event type", { events: [{ type: "note", content: "x" }] }, "events.0.type"],
    ["message without content", { events: [{ type: "message", role: "user" }] }, "events.0.content"],
    [
      "message with bad role",
      { events: [{ type: "message", role: "robot", content: "x" }] },
      "events.0.role",
    ],
    [
      "message with bad ts",
      { events: [{ type: "message", role: "user", content: "x", ts: "yesterday" }] },
      "events.0.ts",
    ],
    ["fact without key", { events: [{ type: "fact", value: "x" }] }, "events.0.key"],
    ["fact with null value", { events: [fact("k", null)] }, "events.0.value"],
    ["fact with bad layer", { events: [fact("k", "v", { layer: "cache" })] }, "events.0.layer"],
    ["fact with bad scope", { events: [fact("k", "v", { scope: "everywhere" })] }, "events.0.scope"],
    [
      "fact with bad classification",
      { events: [fact("k", "v", { classification: "secret" })] },
      "events.0.classification",
    ],
    [
      "fact with bad source type",
      { events: [fact("k", "v", { source: { type: "rumour" } })] },
      "events.0.source.type",
    ],
    [
      "fact with allow_roles not a list",
      { events: [fact("k", "v", { allow_roles: "hr" })] },
      "events.0.allow_roles",
    ],
    [
      "fact valid_until before valid_from",
      {
        events: [fact("k", "v", { valid_from: "2025-02-01T00:00:00Z", valid_until: "2025-01-01T00:00:00Z" })],
      },
      "events.0.valid_until",
    ],
    ["bad event id", { events: [fact("k", "v", { id: "has space" })] }, "events.0.id"],
  ])("POST events: %s", async (_name, body, field) => {
    const t = await newThread();
    await t.events([fact("keep", "kept value", { id: "keep-1" })]);
    const before = await call("GET", `/threads/${t.thread}/state`);
    await expectProblem(await call("POST", `/threads/${t.thread}/events`, body), field);
    const after = await call("GET", `/threads/${t.thread}/state`);
    expect(after.json).toEqual(before.json);
  });

  it.each([
    ["query missing", {}, "query"],
    ["budget too small", { query: "q", budget_tokens: 10 }, "budget_tokens"],
    ["budget not an integer", { query: "q", budget_tokens: 100.5 }, "budget_tokens"],
    ["now not a date", { query: "q", now: "later" }, "now"],
    ["roles not a list", { query: "q", roles: "admin" }, "roles"],
    ["facts_share above 1", { query: "q", facts_share: 1.5 }, "facts_share"],
    ["trace_detail unknown", { query: "q", trace_detail: "verbose" }, "trace_detail"],
  ])("POST context: %s", async (_name, body, field) => {
    const t = await newThread();
    await expectProblem(await call("POST", `/threads/${t.thread}/context`, body), field);
  });

  it.each([
    ["as_of not a date", "/facts?as_of=tuesday", "query.as_of"],
    ["valid_at not a date", "/facts?valid_at=tuesday", "query.valid_at"],
  ])("GET facts: %s", async (_name, path, field) => {
    await expectProblem(await call("GET", path), field);
  });

  it("malformed JSON is a 400 problem, not a 5xx", async () => {
    const t = await newThread();
    const res = await call("POST", `/threads/${t.thread}/events`, "{not json");
    expect(res.status).toBe(400);
    expect(res.contentType).toContain("application/problem+json");
    // The same shape as every other problem: an errors list, here naming the whole body.
    expect(res.json.errors).toEqual([{ field: "", message: expect.any(String) }]);
  });

  it("a thread that was never created is a 404 problem", async () => {
    const res = await call("POST", "/threads/never-made/context", { query: "x" });
    expect(res.status).toBe(404);
    expect(res.contentType).toContain("application/problem+json");
  });
});
