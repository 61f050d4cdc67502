import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { projectDatabase } from "../src/tenancy/placement";
import { lookupTenant, type Tenant } from "../src/tenancy/registry";
import { call, fact, message, newThread, until } from "./helpers";
import { bareThread } from "./support/bare-thread";
import {
  type EntityView,
  extracted,
  type MessageRef,
  named,
  registry,
  smallTalk,
  tool,
} from "./support/entity-messages";

/**
 * Issue 17 item 1, the back-fill: messages extracted before their mentions were read, and weak mentions
 * of a name no entity went by yet, become references through POST /threads/:thread/entities/backfill.
 */

const at = (minute: number) => new Date(Date.UTC(2026, 4, 11, 9, minute)).toISOString();

async function messagesOf(id: string) {
  const res = await call("GET", `/entities/${id}`);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return { messages: res.json.messages as MessageRef[], count: res.json.message_count as number };
}

const backfill = (thread: string, body: unknown = {}) =>
  call("POST", `/threads/${thread}/entities/backfill`, body);

/** The thread as it was before mentions were read: extracted, with no reference and no mention watermark. */
async function forgetMentions(t: { thread: string; project: string }) {
  const database = await projectDatabase(lookupTenant(env, "acme") as Tenant, t.project);
  await database.prepare("DELETE FROM message_entities WHERE thread_id = ?").bind(t.thread).run();
  const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
  await runInDurableObject(env.THREADS.get(id), async (_instance, state) => {
    for (const table of ["message_names", "weak_mentions", "weak_names"])
      state.storage.sql.exec(`DELETE FROM ${table}`);
    state.storage.sql.exec("DELETE FROM meta WHERE k IN ('mentioned_seq', 'weak_names_checked')");
  });
}

describe("POST /threads/:thread/entities/backfill", () => {
  it("reads the mentions of messages extracted before they were read, in calls of `limit` messages", async () => {
    const t = await newThread();
    await t.events([
      tool("restarted the Kestrel service on node 2", { id: "k1", ts: at(1) }),
      message("Is the Kestrel service healthy again?", { id: "k2", ts: at(2) }),
      message("Thanks, that was quick.", { id: "k3", ts: at(3) }),
      tool("the Kestrel service answers health checks in 12 ms", { id: "k4", ts: at(4) }),
      message("Please copy ops@kestrel-hosting.io on the incident note.", { id: "k5", ts: at(5) }),
    ]);
    await extracted(t.thread);
    const kestrel = named(await registry(t.project), "Kestrel service") as EntityView;
    const before = await messagesOf(kestrel.id);
    expect(before.messages.map((m) => m.message_id)).toEqual(["k4", "k2", "k1"]);

    await forgetMentions(t);
    expect((await messagesOf(kestrel.id)).count).toBe(0);

    const first = await backfill(t.thread, { limit: 2 });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json).toMatchObject({ read: 2, mentioned_through: 2, pending_messages: 3, done: false });
    const reports = [first.json];
    while (!reports.at(-1).done && reports.length < 10) {
      const next = await backfill(t.thread, { limit: 2 });
      expect(next.status).toBe(200);
      reports.push(next.json);
    }
    expect(reports.map((r) => r.read)).toEqual([2, 2, 1]);
    expect(reports.at(-1)).toMatchObject({ mentioned_through: 5, pending_messages: 0, done: true });
    expect(reports.reduce((n, r) => n + r.references_added, 0)).toBe(4);
    expect(reports.reduce((n, r) => n + r.entities_created, 0)).toBe(0);
    expect(await messagesOf(kestrel.id)).toEqual(before);
    const mailbox = named(await registry(t.project), "ops@kestrel-hosting.io") as EntityView;
    expect((await messagesOf(mailbox.id)).messages.map((m) => m.message_id)).toEqual(["k5"]);
  });

  it("with `background`, goes on through the queue until done", async () => {
    const t = await newThread();
    await t.events(
      Array.from({ length: 6 }, (_, i) =>
        tool(`check ${i}: the Kestrel service answered`, { id: `b${i}`, ts: at(i + 1) }),
      ),
    );
    await extracted(t.thread);
    const kestrel = named(await registry(t.project), "Kestrel service") as EntityView;
    expect((await messagesOf(kestrel.id)).count).toBe(6);
    await forgetMentions(t);

    const first = await backfill(t.thread, { limit: 1, background: true });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json).toMatchObject({ read: 1, references_added: 1, done: false, queued: true });
    const all = await until(
      () => messagesOf(kestrel.id),
      (m) => m.count === 6,
    );
    expect(all.count).toBe(6);
    const finished = await until(
      () => backfill(t.thread),
      (res) => res.json?.done === true,
    );
    expect(finished.json).toMatchObject({ read: 0, references_added: 0, done: true, queued: false });
  });

  it("gives a compile back the turns a question names by another name", async () => {
    const t = await newThread();
    const chatter = smallTalk("s", (i) => at(10 + i));
    await t.events([
      message("Our CFO wants the vendor shortlist trimmed to three names.", { id: "c1", ts: at(1) }),
      ...chatter,
    ]);
    await extracted(t.thread);
    const query = { query: "What is the chief financial officer asking for?", budget_tokens: 1500 };
    const found = (await t.context(query)).json.trace.candidates.entity_messages;
    expect(found).toEqual([{ message_id: "c1", entity_id: expect.any(String) }]);

    await forgetMentions(t);
    expect((await t.context(query)).json.trace.candidates.entity_messages).toBeUndefined();
    const res = await backfill(t.thread);
    expect(res.json).toMatchObject({ read: 31, references_added: 1, done: true });
    expect((await t.context(query)).json.trace.candidates.entity_messages).toEqual(found);
  });

  it("binds a weak mention named before an entity went by its name, once; a near name stays apart", async () => {
    const t = await newThread();
    await t.events([
      message("Is Quillon still on track for the May review?", { id: "q1", ts: at(1) }),
      message("I think Quillan is a different vendor.", { id: "q2", ts: at(2) }),
      message("We heard Quillon slipped a week.", { id: "q3", ts: at(3) }),
    ]);
    await extracted(t.thread);
    // A lone capitalised word is weak: it creates nothing and refers to nothing yet.
    expect((await registry(t.project)).map((e) => e.canonical_name)).toEqual([]);

    // Later a fact names Project Quillon, which also goes by "Quillon".
    await t.events([fact("project_status", "Project Quillon is two weeks late", { id: "f1", ts: at(10) })]);
    const quillon = named(await registry(t.project), "Project Quillon") as EntityView;
    expect(quillon).toBeDefined();
    expect((await messagesOf(quillon.id)).messages).toEqual([]);

    const first = await backfill(t.thread);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json).toMatchObject({ references_added: 2, entities_created: 0, done: true });
    const after = await messagesOf(quillon.id);
    expect(after.messages).toEqual([
      { thread_id: t.thread, message_id: "q3", mention: "quillon" },
      { thread_id: t.thread, message_id: "q1", mention: "quillon" },
    ]);
    const list = await registry(t.project);

    // Again: nothing to read, nothing added, nothing changed.
    const second = await backfill(t.thread);
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ read: 0, references_added: 0, entities_created: 0, done: true });
    expect(await messagesOf(quillon.id)).toEqual(after);
    expect(await registry(t.project)).toEqual(list);
    // "Quillan" is one letter off: not the same name, so still no reference and no review.
    const reviews = await call("GET", `/entities/review?project_id=${t.project}`);
    expect(reviews.json.reviews).toEqual([]);
  });

  it("on a thread being read, a later fact's new entity picks up the earlier weak mentions by itself", async () => {
    const t = await newThread();
    // A compile makes the thread interactive: its writes are followed by the thread's own upkeep pass.
    expect((await t.context({ query: "anything new?" })).status).toBe(200);
    await t.events([
      message("Is Quillon still on track for the May review?", { id: "q1", ts: at(1) }),
      message("I think Quillan is a different vendor.", { id: "q2", ts: at(2) }),
    ]);
    await extracted(t.thread);
    await t.events([fact("project_status", "Project Quillon is two weeks late", { id: "f1", ts: at(10) })]);
    const quillon = named(await registry(t.project), "Project Quillon") as EntityView;
    const refs = await until(
      () => messagesOf(quillon.id),
      (m) => m.count > 0,
    );
    expect(refs.messages).toEqual([{ thread_id: t.thread, message_id: "q1", mention: "quillon" }]);
    // The operator's call finds nothing left to do.
    const res = await backfill(t.thread);
    expect(res.json).toMatchObject({ read: 0, references_added: 0, done: true });
  });

  it("a weak name two entities go by binds to neither", async () => {
    const t = await newThread();
    await t.events([message("Did Halvard sign off?", { id: "h1", ts: at(1) })]);
    await extracted(t.thread);
    await t.events([
      fact("funding", "Project Halvard is funded", { id: "f1", ts: at(5) }),
      fact("supplier", "Halvard Inc. signed the supply contract", { id: "f2", ts: at(6) }),
    ]);
    const list = await registry(t.project);
    const holders = list.filter((e) => ["Project Halvard", "Halvard Inc"].includes(e.canonical_name));
    expect(holders).toHaveLength(2);
    const res = await backfill(t.thread);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ read: 1, references_added: 0, unresolved_names: 1, done: true });
    for (const entity of holders) expect((await messagesOf(entity.id)).messages).toEqual([]);
    // Checked against these two already: the turn is not read again until who goes by the name changes.
    const again = await backfill(t.thread);
    expect(again.json).toMatchObject({ read: 0, references_added: 0, unresolved_names: 1, done: true });
  });

  it("stops where a failed reading left it, committing nothing of it, and the next call goes on", async () => {
    const t = await newThread();
    await t.events([
      tool("the Kestrel service restarted", { id: "k1", ts: at(1) }),
      tool("the Kestrel service is healthy", { id: "k2", ts: at(2) }),
    ]);
    await extracted(t.thread);
    const kestrel = named(await registry(t.project), "Kestrel service") as EntityView;
    await forgetMentions(t);
    const failing = {
      name: "failing",
      extract: async (): Promise<never> => {
        throw new Error("registry read timed out");
      },
    };
    const id = env.THREADS.idFromName(`tenant:acme/thread:${t.thread}`);
    const failed = await runInDurableObject(env.THREADS.get(id), async (_instance, state) =>
      bareThread(state, t.thread, { mentions: failing }).backfill({ limit: 100, restart: false }),
    );
    expect(failed).toMatchObject({
      failed: true,
      report: { read: 0, references_added: 0, mentioned_through: 0, pending_messages: 2, done: false },
    });
    expect((await messagesOf(kestrel.id)).count).toBe(0);
    const res = await backfill(t.thread);
    expect(res.json).toMatchObject({ read: 2, references_added: 2, mentioned_through: 2, done: true });
    expect((await messagesOf(kestrel.id)).count).toBe(2);
  });

  it("refuses bad input with a problem naming the field, and an unknown thread with a 404", async () => {
    const t = await newThread();
    for (const [body, field] of [
      [{ limit: 0 }, "limit"],
      [{ limit: 2001 }, "limit"],
      [{ limit: 2.5 }, "limit"],
      [{ limit: "ten" }, "limit"],
      [{ restart: "yes" }, "restart"],
      [{ background: 1 }, "background"],
    ] as const) {
      const res = await backfill(t.thread, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.contentType).toContain("application/problem+json");
      expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    // An unknown key is named itself.
    const misspelt = await backfill(t.thread, { lmit: 10 });
    expect([misspelt.status, misspelt.json.errors]).toEqual([
      400,
      [{ field: "lmit", message: "is not a known field" }],
    ]);
    // No body at all asks for the defaults, as `{}` does; a body that is not JSON is still refused.
    const empty = await call("POST", `/threads/${t.thread}/entities/backfill`);
    expect(empty.status, JSON.stringify(empty.json)).toBe(200);
    expect(empty.json).toMatchObject({ done: true, queued: false });
    expect((await call("POST", `/threads/${t.thread}/entities/backfill`, "{limit:")).status).toBe(400);
    const unknown = await backfill("no-such-thread");
    expect(unknown.status).toBe(404);
    expect(unknown.contentType).toContain("application/problem+json");
  });
});
