import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { isStorageFull } from "../src/tenancy/storage-full";
import { call, fact, message, newThread } from "./helpers";

// A store at its size limit cannot be made here: local D1 and Durable Object storage refuse the pragmas
// that cap a database. So each test installs a trigger that refuses inserts with the store's own words
// when full (D1: "Exceeded maximum DB size"; a Durable Object: "database or disk is full"): the refusal
// then comes out of the real store, through its real error path, as it would at the limit.

const threadObject = (thread: string) =>
  env.THREADS.get(env.THREADS.idFromName(`tenant:acme/thread:${thread}`));

describe("a full store", () => {
  it("tells the store's refusal apart from other failures by its words alone", () => {
    expect(isStorageFull(new Error("D1_ERROR: Exceeded maximum DB size."))).toBe(true);
    expect(
      isStorageFull(new Error("D1_ERROR: Your account has exceeded D1's maximum account storage limit")),
    ).toBe(true);
    expect(isStorageFull(new Error("database or disk is full: SQLITE_FULL"))).toBe(true);
    expect(isStorageFull(new Error("wrapped", { cause: new Error("SQLITE_FULL") }))).toBe(true);
    for (const other of [
      "Network connection lost.",
      "D1_ERROR: D1 DB is overloaded. Too many requests queued.",
      "D1_ERROR: UNIQUE constraint failed: facts.id: SQLITE_CONSTRAINT",
      "string or blob too big: SQLITE_TOOBIG",
    ]) {
      expect(isStorageFull(new Error(other))).toBe(false);
    }
  });

  it("a full facts database: 507 naming it, nothing of the batch stored, compiles go on, the batch lands once there is room", async () => {
    const t = await newThread();
    const trigger = `full_${t.project.replace(/\W/g, "_")}`;
    await env.TENANT_ACME_DB.exec(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON facts WHEN NEW.project_id = '${t.project}' BEGIN SELECT RAISE(ABORT, 'Exceeded maximum DB size'); END`,
    );
    const batch = [
      message("Our warehouse moved to Tacoma.", { id: "m-1" }),
      fact("warehouse.city", "Tacoma", { id: "f-1" }),
    ];
    try {
      const refused = await t.events(batch);
      expect(refused.status).toBe(507);
      expect(refused.contentType).toContain("application/problem+json");
      expect(refused.json.title).toBe("Insufficient storage");
      expect(refused.json.detail).toContain("database holding this project's facts is full");
      expect(refused.json.detail).toContain("nothing of this request was stored");

      const facts = await call("GET", `/facts?as_user=u1&project_id=${t.project}&key=warehouse.city`);
      expect(facts.status).toBe(200);
      expect(facts.json.facts).toEqual([]);
      const state = await call("GET", `/threads/${t.thread}/state`);
      expect(state.status).toBe(200);
      expect(state.json.message_count).toBe(0);
      expect(state.json.facts).toEqual([]);
      const compiled = await t.context({ query: "Where is our warehouse?" });
      expect(compiled.status).toBe(200);
      expect(compiled.json.context).not.toContain("Tacoma");
    } finally {
      await env.TENANT_ACME_DB.exec(`DROP TRIGGER IF EXISTS ${trigger}`);
    }
    // The object was not reset by the refusal, and the same batch is taken whole once there is room.
    const landed = await t.events(batch);
    expect(landed.status).toBe(200);
    expect(landed.json.accepted).toBe(2);
    expect(landed.json.duplicates).toBe(0);
    const stored = await call("GET", `/facts?as_user=u1&project_id=${t.project}&key=warehouse.city`);
    expect(stored.json.facts.map((f: { value: unknown }) => f.value)).toEqual(["Tacoma"]);
    const compiled = await t.context({ query: "Where is our warehouse?" });
    expect(compiled.json.context).toContain("Tacoma");
  });

  it("a full thread storage: 507 naming it, the facts stored and said so, the messages not, and a resend counts the facts once", async () => {
    const t = await newThread();
    await runInDurableObject(
      threadObject(t.thread),
      async (_instance: unknown, state: DurableObjectState) => {
        state.storage.sql.exec(
          "CREATE TRIGGER zz_full BEFORE INSERT ON messages BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
        );
      },
    );
    const batch = [
      message("The launch moved to March.", { id: "m-1" }),
      fact("launch.month", "March", { id: "f-1" }),
    ];
    const refused = await t.events(batch);
    expect(refused.status).toBe(507);
    expect(refused.contentType).toContain("application/problem+json");
    expect(refused.json.detail).toContain("thread's own storage");
    expect(refused.json.detail).toContain("Its facts were stored");

    const facts = await call("GET", `/facts?as_user=u1&project_id=${t.project}&key=launch.month`);
    expect(facts.json.facts.map((f: { value: unknown }) => f.value)).toEqual(["March"]);
    const message_ = await call("GET", `/threads/${t.thread}/messages/m-1`);
    expect(message_.status).toBe(404);
    expect((await t.context({ query: "When is the launch?" })).status).toBe(200);

    await runInDurableObject(
      threadObject(t.thread),
      async (_instance: unknown, state: DurableObjectState) => {
        state.storage.sql.exec("DROP TRIGGER zz_full");
      },
    );
    const landed = await t.events(batch);
    expect(landed.status).toBe(200);
    expect(landed.json.accepted).toBe(1);
    expect(landed.json.duplicates).toBe(1);
    expect((await call("GET", `/threads/${t.thread}/messages/m-1`)).status).toBe(200);
  });

  it("any other write that does not fit (here a thread's creation) is a 507 problem, not a 500", async () => {
    const thread = `full-${Math.random().toString(36).slice(2, 8)}`;
    await runInDurableObject(threadObject(thread), async (_instance: unknown, state: DurableObjectState) => {
      state.storage.sql.exec(
        "CREATE TRIGGER zz_full BEFORE INSERT ON meta BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
      );
    });
    const body = { project_id: `p-${thread}`, identity: { user_id: "u1" } };
    const refused = await call("PUT", `/threads/${thread}`, body);
    expect(refused.status).toBe(507);
    expect(refused.contentType).toContain("application/problem+json");
    expect(refused.json.title).toBe("Insufficient storage");
    expect((await call("GET", `/threads/${thread}/state`)).status).toBe(404);
    await runInDurableObject(threadObject(thread), async (_instance: unknown, state: DurableObjectState) => {
      state.storage.sql.exec("DROP TRIGGER zz_full");
    });
    expect((await call("PUT", `/threads/${thread}`, body)).status).toBe(201);
  });
});
