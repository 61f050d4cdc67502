import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fullStore } from "../src/tenancy/storage-full";
import { call, fact, message, newThread } from "./helpers";

// A store at its size limit cannot be made here: local D1 and Durable Object storage refuse the pragmas
// that cap a database. So each test installs a trigger that refuses inserts with the store's own words
// when full (D1: "Exceeded maximum DB size"; a Durable Object: "database or disk is full"): the refusal
// then comes out of the real store, through its real error path, as it would at the limit.

const threadObject = (thread: string) =>
  env.THREADS.get(env.THREADS.idFromName(`tenant:acme/thread:${thread}`));

/** Runs SQL in the thread object's own storage, and reads or sets a mark on its instance. */
const inThread = (thread: string, statement?: string, mark?: string) =>
  runInDurableObject(threadObject(thread), async (instance: unknown, state: DurableObjectState) => {
    if (statement) state.storage.sql.exec(statement);
    const held = instance as { storageFullMark?: string };
    if (mark) held.storageFullMark = mark;
    return held.storageFullMark;
  });

const valuesOf = async (project: string, key: string) =>
  (await call("GET", `/facts?as_user=u1&project_id=${project}&key=${key}`)).json.facts.map(
    (f: { value: unknown }) => f.value,
  );

describe("a full store", () => {
  it("is told apart from other failures by the store's own words, at the start of its message", () => {
    expect(fullStore(new Error("D1_ERROR: Exceeded maximum DB size."))).toBe("database");
    expect(
      fullStore(new Error("D1_ERROR: Your account has exceeded D1's maximum account storage limit")),
    ).toBe("database");
    expect(fullStore(new Error("D1_ERROR: database or disk is full: SQLITE_FULL"))).toBe("database");
    expect(fullStore(new Error("database or disk is full: SQLITE_FULL"))).toBe("thread");
    // A wrapper's message is not read, its cause is: a query builder's quotes the query's parameters.
    const failedQuery = (cause: string) =>
      new Error("Failed query: insert into facts values (?)\nparams: database or disk is full", {
        cause: new Error(cause),
      });
    expect(fullStore(failedQuery("D1_ERROR: Exceeded maximum DB size."))).toBe("database");
    expect(fullStore(failedQuery("Network connection lost."))).toBeUndefined();
    for (const other of [
      "Network connection lost.",
      "D1_ERROR: D1 DB is overloaded. Too many requests queued.",
      "D1_ERROR: UNIQUE constraint failed: facts.id: SQLITE_CONSTRAINT",
      "string or blob too big: SQLITE_TOOBIG",
      "the user wrote: database or disk is full",
    ]) {
      expect(fullStore(new Error(other))).toBeUndefined();
    }
  });

  it("a full project database: 507 naming it, nothing of the batch stored, compiles go on, the batch lands once there is room", async () => {
    const t = await newThread();
    const trigger = `full_${t.project.replace(/\W/g, "_")}`;
    await env.TENANT_ACME_DB.exec(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON facts WHEN NEW.project_id = '${t.project}' BEGIN SELECT RAISE(ABORT, 'Exceeded maximum DB size'); END`,
    );
    const batch = [
      message("Our warehouse moved to Tacoma.", { id: "m-1" }),
      fact("warehouse.city", "Tacoma", { id: "f-1" }),
    ];
    await inThread(t.thread, undefined, "before");
    try {
      const refused = await t.events(batch);
      expect(refused.status).toBe(507);
      expect(refused.contentType).toContain("application/problem+json");
      expect(refused.json.title).toBe("Insufficient storage");
      expect(refused.json.detail).toContain("project's database is full");
      expect(refused.json.detail).toContain("nothing of this request was stored");

      expect(await valuesOf(t.project, "warehouse.city")).toEqual([]);
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
    // The refusal was answered, not thrown: the object was not reset (its instance keeps the mark).
    expect(await inThread(t.thread)).toBe("before");
    const landed = await t.events(batch);
    expect(landed.status).toBe(200);
    expect(landed.json.accepted).toBe(2);
    expect(landed.json.duplicates).toBe(0);
    expect(await valuesOf(t.project, "warehouse.city")).toEqual(["Tacoma"]);
    const compiled = await t.context({ query: "Where is our warehouse?" });
    expect(compiled.json.context).toContain("Tacoma");
  });

  it("a full thread storage, refusing partway through a batch: 507 naming it, the facts stored, announced and said so, no message kept, a resend takes the rest", async () => {
    const t = await newThread();
    // Another thread of the project has compiled already: it holds the project's facts as they were.
    const other = await newThread(undefined, { project: t.project });
    expect((await other.context({ query: "When is the launch?" })).json.context).not.toContain("March");
    // The second message is refused, after the first was inserted in the same transaction.
    await inThread(
      t.thread,
      "CREATE TRIGGER zz_full BEFORE INSERT ON messages WHEN NEW.id = 'm-2' BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
      "before",
    );
    const batch = [
      message("The launch moved to March.", { id: "m-1" }),
      message("And the venue is the Harbour Hall.", { id: "m-2" }),
      fact("launch.month", "March", { id: "f-1" }),
    ];
    const refused = await t.events(batch);
    expect(refused.status).toBe(507);
    expect(refused.contentType).toContain("application/problem+json");
    expect(refused.json.detail).toContain("thread's own storage");
    expect(refused.json.detail).toContain("Its facts were stored");

    expect(await valuesOf(t.project, "launch.month")).toEqual(["March"]);
    // Announced as any write is: the other thread compiles the fact at once.
    expect((await other.context({ query: "When is the launch?" })).json.context).toContain("March");
    for (const id of ["m-1", "m-2"]) {
      expect((await call("GET", `/threads/${t.thread}/messages/${id}`)).status).toBe(404);
    }
    expect((await call("GET", `/threads/${t.thread}/state`)).json.message_count).toBe(0);
    expect((await t.context({ query: "When is the launch?" })).status).toBe(200);
    expect(await inThread(t.thread, "DROP TRIGGER zz_full")).toBe("before");

    const landed = await t.events(batch);
    expect(landed.status).toBe(200);
    expect(landed.json.accepted).toBe(2);
    expect(landed.json.duplicates).toBe(1);
    for (const id of ["m-1", "m-2"]) {
      expect((await call("GET", `/threads/${t.thread}/messages/${id}`)).status).toBe(200);
    }
    const compiled = await t.context({ query: "Which venue?" });
    expect(compiled.json.context).toContain("Harbour Hall");
  });

  it("any other write that does not fit (here a thread's creation) is a 507 problem naming the store, not a 500", async () => {
    const thread = `full-${Math.random().toString(36).slice(2, 8)}`;
    await inThread(
      thread,
      "CREATE TRIGGER zz_full BEFORE INSERT ON meta BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    const body = { project_id: `p-${thread}`, identity: { user_id: "u1" } };
    const refused = await call("PUT", `/threads/${thread}`, body);
    expect(refused.status).toBe(507);
    expect(refused.contentType).toContain("application/problem+json");
    expect(refused.json.title).toBe("Insufficient storage");
    expect(refused.json.detail).toContain("thread's own storage");
    expect((await call("GET", `/threads/${thread}/state`)).status).toBe(404);
    await inThread(thread, "DROP TRIGGER zz_full");
    expect((await call("PUT", `/threads/${thread}`, body)).status).toBe(201);
  });
});
