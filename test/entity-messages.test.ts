import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MessageMentions } from "../src/entities/message-mentions";
import worker from "../src/index";
import { projectDatabase } from "../src/tenancy/placement";
import { lookupTenant, type Tenant } from "../src/tenancy/registry";
import { call, fact, message, newThread } from "./helpers";
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
 * Issue 17 item 1–2: messages and tool output reach the entity registry. An extraction run resolves the
 * entities its messages name (strong mentions only may create one; weak ones only refer to a name the
 * registry holds), and each entity lists the messages that refer to it.
 */

const at = (minute: number) => new Date(Date.UTC(2026, 2, 3, 14, minute)).toISOString();

async function page(id: string) {
  const res = await call("GET", `/entities/${id}?as_user=u1`);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as EntityView & {
    aliases: { alias: string }[];
    provenance: Record<string, unknown>;
    messages: MessageRef[];
    message_count: number;
  };
}

/** The registry apart from the thread's own user, who is registered with the first fact write. */
const apartFrom = (list: EntityView[], ...names: string[]) =>
  list.filter((e) => !names.includes(e.canonical_name)).map((e) => e.canonical_name);

describe("messages and tool output reach the entity registry", () => {
  it("a tool output naming the Kestrel service registers it, with the message as provenance", async () => {
    const t = await newThread();
    await t.events([
      message("Can you check whether the deploy went through?", { id: "u1", ts: at(1) }),
      tool("deploy #212 finished: the Kestrel service is healthy on all 3 nodes", { id: "tool1", ts: at(2) }),
    ]);
    await extracted(t.thread);
    const kestrel = named(await registry(t.project), "Kestrel service");
    expect(kestrel?.entity_type).toBe("system");
    const detail = await page(kestrel?.id as string);
    expect(detail.provenance).toMatchObject({
      thread_id: t.thread,
      message_id: "tool1",
      origin: "tool_output",
    });
    expect(detail.messages).toEqual([
      { thread_id: t.thread, message_id: "tool1", mention: "kestrel service" },
    ]);
    expect(detail.message_count).toBe(1);
  });

  it("a later turn naming the same thing binds to it and is listed beside the first", async () => {
    const t = await newThread();
    await t.events([tool("restarted the Kestrel service after the config change", { id: "m1", ts: at(1) })]);
    await extracted(t.thread);
    await t.events([
      message("Is the Kestrel service still dropping requests?", { id: "m2", ts: at(2) }),
      message("Please loop in marguerite.oyelaran@heronfield.io on it.", { id: "m3", ts: at(3) }),
    ]);
    await extracted(t.thread);
    const list = await registry(t.project);
    expect(list.filter((e) => e.canonical_name === "Kestrel service")).toHaveLength(1);
    const detail = await page(named(list, "Kestrel service")?.id as string);
    expect(detail.messages.map((m) => m.message_id)).toEqual(["m2", "m1"]);
    expect(named(list, "marguerite.oyelaran@heronfield.io")?.entity_type).toBe("person");
  });

  it("greetings, sentence openers, code and logs create nothing", async () => {
    const t = await newThread();
    await t.events([
      message("Hi Sam, quick one.", { id: "g1", ts: at(1) }),
      message("Yesterday we went over the numbers again. Sounds Good To Me.", { id: "g2", ts: at(2) }),
      message("Great. Next Steps: I will write them up.", { id: "g3", ts: at(3) }),
      message(
        "Here is the trace:\n```\nTypeError Cannot Read Property at Loader Module Service\nCaused By Null Pointer Handler\n```\nAny idea?",
        { id: "g4", ts: at(4) },
      ),
      tool("TypeError Cannot Read Property 'length' of undefined", { id: "g5", ts: at(5) }),
      message(
        "Here is the plan:\n1. **Compress Assets**: shrink the images.\n2. Then we fix the Internal Server Error on Submit Form.\nThe Project is nearly done; see http://localhost:5173 and @media queries.",
        { id: "g6", ts: at(6), role: "assistant" },
      ),
    ]);
    await extracted(t.thread);
    expect(await registry(t.project)).toEqual([]);
  });

  it("small talk about common things near a place creates no place; a place named so does", async () => {
    const t = await newThread();
    await t.events([
      ...Array.from({ length: 6 }, (_, i) =>
        message(
          [
            "any news on the drizzle outside the office?",
            "is the queue behind the warehouse still long",
            "the muffins at the bakery office were stale again",
          ][i % 3] as string,
          { id: `s${i}`, ts: at(i + 1) },
        ),
      ),
      message("I start at our Tallinn office on Monday.", { id: "s6", ts: at(10) }),
    ]);
    await extracted(t.thread);
    expect((await registry(t.project)).map((e) => [e.canonical_name, e.entity_type])).toEqual([
      ["Tallinn office", "place"],
    ]);
  });

  it("a product's part, a title, a label, a kind and a description create nothing; a name beside them does", async () => {
    // An assistant's "your site dashboard" is advice about a kind of thing; a user's "the ingest
    // pipeline" (below) is their own.
    const t = await newThread();
    await t.events([
      message("I'm wiring the Tindle API into checkout, as Vendor Relations Manager at Quillon Freight.", {
        id: "p1",
        ts: at(1),
      }),
      message('It fails with a "Quota Window Exceeded" error, then 503 Gateway Unavailable.', {
        id: "p2",
        ts: at(2),
      }),
      message("I set up a Marlpit project and pushed it to the GitLab repo; compare the existing database.", {
        id: "p3",
        ts: at(3),
      }),
      message(
        "### 2. Wire Up Lantern Analytics\nThen **Open the Quarry Console** and use your package manager. Check your site dashboard and ask your support team.",
        {
          id: "p4",
          ts: at(4),
          role: "assistant",
        },
      ),
    ]);
    await extracted(t.thread);
    expect((await registry(t.project)).map((e) => [e.canonical_name, e.entity_type])).toEqual([
      ["Quillon Freight", "other"],
    ]);
  });

  it("a lone name refers only to an entity that already goes by it", async () => {
    const t = await newThread();
    await t.events([fact("escalation_contact", "Tamsin Okafor", { id: "f1" })]);
    await t.events([
      message("Thanks Tamsin Okafor, that helps.", { id: "n1", ts: at(1) }),
      message("Ask Okafor about it; and Bartholomew said hi.", { id: "n2", ts: at(2) }),
    ]);
    await extracted(t.thread);
    const list = await registry(t.project);
    // "Bartholomew" is a lone capitalised word: weak, so it creates nothing; the partial "Okafor" is not
    // exactly a name the registry holds, so it refers to nothing (and asks no review).
    expect(apartFrom(list, "Ada")).toEqual(["Tamsin Okafor"]);
    const detail = await page(named(list, "Tamsin Okafor")?.id as string);
    expect(detail.messages.map((m) => m.message_id)).toEqual(["n1"]);
    const reviews = await call("GET", `/entities/review?project_id=${t.project}`);
    expect(reviews.json.reviews).toEqual([]);
  });

  it("a near-miss name is not merged, and the current value it sits beside is unchanged", async () => {
    const t = await newThread();
    await t.events([fact("billing_owner", "Marisol Reed <marisol@tidewater.io>", { id: "f1" })]);
    await t.events([
      message("I asked Marisela Reed to send the invoice on Friday.", { id: "x1", ts: at(1) }),
    ]);
    await extracted(t.thread);
    const list = await registry(t.project);
    const reed = await page(named(list, "Marisol Reed")?.id as string);
    // Not an alias of Marisol Reed, and Marisol Reed's message list does not include the turn.
    expect(reed.aliases.map((a) => a.alias)).not.toContain("Marisela Reed");
    expect(reed.messages).toEqual([]);
    // Active or pending (a review against Marisol Reed), but an entity of its own.
    const other = named(list, "Marisela Reed");
    expect(other).toBeDefined();
    expect(other?.id).not.toBe(reed.id);
    const owner = await call("GET", `/threads/${t.thread}/state`);
    const current = owner.json.facts.find((f: { key: string }) => f.key === "billing_owner");
    expect(current.value).toBe("Marisol Reed <marisol@tidewater.io>");
  });

  it("a redelivered batch and a repeated write add no entity and no reference twice", async () => {
    const t = await newThread();
    const events = [
      message("The Osprey team owns the ledger export now.", { id: "r1", ts: at(1) }),
      tool("paged the Osprey team via ops@osprey-ledger.io", { id: "r2", ts: at(2) }),
    ];
    await t.events(events);
    await extracted(t.thread);
    const before = await registry(t.project);
    const osprey = named(before, "Osprey team");
    expect(osprey).toBeDefined();
    const first = await page(osprey?.id as string);
    expect(first.message_count).toBe(2);

    // The client retries the same write, and the queue delivers the same job twice, out of order.
    await t.events(events);
    const job: { tenant: string; thread: string; through: { ts: string; id: string } | null } = {
      tenant: "acme",
      thread: t.thread,
      through: null,
    };
    const batch = createMessageBatch("tenure-extraction", [
      { id: "j2", timestamp: new Date(), attempts: 2, body: { ...job, through: { ts: at(2), id: "r2" } } },
      { id: "j1", timestamp: new Date(), attempts: 1, body: job },
      { id: "j1", timestamp: new Date(), attempts: 2, body: job },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    await getQueueResult(batch, ctx);
    await extracted(t.thread);
    expect(await registry(t.project)).toEqual(before);
    const again = await page(osprey?.id as string);
    expect(again.messages).toEqual(first.messages);
    expect(again.message_count).toBe(2);
  });
});

describe("a run redone after it recorded its mentions", () => {
  it("writes the same entities and references again as no-ops", async () => {
    const t = await newThread();
    const writer = {
      projectId: t.project,
      threadId: t.thread,
      identity: { user_id: "u1", user_name: "Ada", authority: "employee" },
    };
    const messages = [
      { id: "d1", seq: 1, role: "tool" as const, content: "synced the Larkspur repo to the Vireo cluster" },
      { id: "d2", seq: 2, role: "user" as const, content: "Did the Larkspur repo sync pick up OPS-5531?" },
    ];
    const recorder = new MessageMentions();
    const database = await projectDatabase(lookupTenant(env, "acme") as Tenant, t.project);
    const first = await recorder.record(database, writer, messages);
    expect(first.created).toBe(3);
    const before = await registry(t.project);
    const repo = await page(named(before, "Larkspur repo")?.id as string);
    expect(repo.messages.map((m) => m.message_id)).toEqual(["d2", "d1"]);
    // Read again in the other order, as a redelivered job after a failed commit would.
    await recorder.record(database, writer, [...messages].reverse());
    expect(await registry(t.project)).toEqual(before);
    const after = await page(repo.id);
    expect(after.messages).toEqual(repo.messages);
    expect(after.message_count).toBe(2);
    expect(after.aliases).toEqual(repo.aliases);
  });
});

describe("a compile retrieves the turns that name the entity its question names", () => {
  const TOPICS = ["weather", "coffee", "traffic", "lunch", "music", "gardening"];
  const chatter = (count: number, from: number) =>
    Array.from({ length: count }, (_, i) =>
      message(`Small talk ${from + i}: the ${TOPICS[i % TOPICS.length]} today is pleasant enough.`, {
        id: `s${from + i}`,
        ts: at(10 + from + i),
        role: i % 2 ? "assistant" : "user",
      }),
    );
  const EPISODES = "## Relevant earlier conversation";

  it("a question by one name finds the turn that used another", async () => {
    const t = await newThread();
    await t.events([
      message("Our CFO wants the vendor shortlist trimmed to three names.", { id: "c1", ts: at(1) }),
      ...chatter(30, 0),
    ]);
    await extracted(t.thread);
    const ctx = await t.context({
      query: "What is the chief financial officer asking for?",
      budget_tokens: 1500,
    });
    expect(ctx.status, JSON.stringify(ctx.json)).toBe(200);
    const [cfo] = ctx.json.trace.candidates.entities;
    expect(cfo).toMatchObject({ name: "chief financial officer", pending: false });
    expect(ctx.json.trace.candidates.entity_messages).toEqual([{ message_id: "c1", entity_id: cfo.id }]);
    expect(ctx.json.trace.compiled).toContainEqual(
      expect.objectContaining({ object_id: "c1", kind: "message", section: "episodes" }),
    );
    const context = ctx.json.context as string;
    expect(context.slice(context.indexOf(EPISODES))).toContain("vendor shortlist trimmed");

    // Another thread of the project does not retrieve this thread's turn.
    const other = await newThread(undefined, { project: t.project });
    await other.events(chatter(3, 100));
    const elsewhere = await other.context({ query: "What is the chief financial officer asking for?" });
    expect(elsewhere.json.trace.candidates.entity_messages).toBeUndefined();
    expect(elsewhere.json.context).not.toContain("vendor shortlist");
  });

  it("a question naming nothing registered retrieves no turn for it", async () => {
    const t = await newThread();
    await t.events([
      message("Our CFO wants the vendor shortlist trimmed to three names.", { id: "c1", ts: at(1) }),
      ...chatter(30, 0),
    ]);
    await extracted(t.thread);
    const ctx = await t.context({ query: "What is the head of legal asking for?", budget_tokens: 1500 });
    expect(ctx.json.trace.candidates.entity_messages).toBeUndefined();
    expect(ctx.json.context).not.toContain("vendor shortlist");
  });
});

describe("merge and split carry message references", () => {
  it("a merge moves them to the survivor, a question by one name then finds the turn that used the other, and a split moves them back", async () => {
    const t = await newThread();
    const chatter = smallTalk("z", (i) => at(10 + i));
    await t.events([
      tool("restart complete: the Kestrel service came back cleanly", { id: "k1", ts: at(1) }),
      message("Since Monday the ingest pipeline drops every third batch.", { id: "k2", ts: at(2) }),
      ...chatter,
    ]);
    await extracted(t.thread);
    const list = await registry(t.project);
    const kestrel = named(list, "Kestrel service") as EntityView;
    const pipeline = named(list, "Ingest pipeline") as EntityView;
    expect(kestrel).toBeDefined();
    expect(pipeline).toBeDefined();
    const merged = await call("POST", `/entities/${kestrel.id}/merge?as_user=u1`, {
      entity_id: pipeline.id,
      reason: "the pipeline is the Kestrel service",
    });
    expect(merged.status, JSON.stringify(merged.json)).toBe(200);
    expect(merged.json.messages.map((m: MessageRef) => [m.message_id, m.mention])).toEqual([
      ["k2", "ingest pipeline"],
      ["k1", "kestrel service"],
    ]);
    expect((await page(pipeline.id)).messages).toEqual([]);
    // The history counts what moved: the names, the facts and the message references.
    expect(merged.json.history[0]).toMatchObject({
      event: "absorbed",
      other_entity_id: pipeline.id,
      detail: { aliases: ["Ingest pipeline"], facts: 0, messages: 1 },
    });

    const ctx = await t.context({ query: "Is the Kestrel service healthy?", budget_tokens: 1500 });
    expect(ctx.status, JSON.stringify(ctx.json)).toBe(200);
    // Only the turn that used another name needs the registry: the other is found by the question's words.
    expect(ctx.json.trace.candidates.entity_messages).toEqual([{ message_id: "k2", entity_id: kestrel.id }]);
    expect(ctx.json.context).toContain("drops every third batch");

    const split = await call("POST", `/entities/${kestrel.id}/split?as_user=u1`, {
      aliases: ["Ingest pipeline"],
    });
    expect(split.status, JSON.stringify(split.json)).toBe(201);
    expect((await page(split.json.created.id)).messages.map((m) => m.message_id)).toEqual(["k2"]);
    expect((await page(kestrel.id)).messages.map((m) => m.message_id)).toEqual(["k1"]);
  });
});

describe("an entity's messages page through every reference", () => {
  it("pages of `limit` with `next_cursor` list each reference once, in order, past the page's 100", async () => {
    const t = await newThread();
    const other = await newThread(undefined, { project: t.project });
    const naming = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, i) =>
        tool(`health check ${i}: the Wrenfield service answered in ${20 + (i % 7)} ms`, {
          id: `${prefix}${i}`,
          ts: new Date(Date.UTC(2026, 2, 3, 14, 0, i)).toISOString(),
        }),
      );
    await t.events(naming("a", 110));
    await other.events(naming("b", 25));
    await extracted(t.thread);
    await extracted(other.thread);
    const gateway = named(await registry(t.project), "Wrenfield service") as EntityView;
    expect(gateway).toBeDefined();
    const detail = await page(gateway.id);
    expect(detail.messages).toHaveLength(100);
    expect(detail.message_count).toBe(135);

    const seen: MessageRef[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=40${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await call("GET", `/entities/${gateway.id}/messages${query}`);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.message_count).toBe(135);
      expect(res.json.messages.length).toBeLessThanOrEqual(40);
      seen.push(...res.json.messages);
      cursor = res.json.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(4);
    // Every reference once: the threads in order, newest first in each, no gap and no repeat.
    const expected = [
      ...[t.thread, other.thread].sort().flatMap((thread) =>
        Array.from({ length: thread === t.thread ? 110 : 25 }, (_, i) => ({
          thread_id: thread,
          message_id: `${thread === t.thread ? "a" : "b"}${(thread === t.thread ? 109 : 24) - i}`,
          mention: "wrenfield service",
        })),
      ),
    ];
    expect(seen).toEqual(expected);
    // The first page of the entity's own view is the first 100 of the same order.
    expect(detail.messages).toEqual(expected.slice(0, 100));
  });

  it("a cursor of one entity's messages is refused on another's", async () => {
    const t = await newThread();
    await t.events(
      Array.from({ length: 3 }, (_, i) =>
        tool(`the Wrenfield service and the Osterley service answered check ${i}`, {
          id: `c${i}`,
          ts: at(i + 1),
        }),
      ),
    );
    await extracted(t.thread);
    const list = await registry(t.project);
    const [a, b] = ["Wrenfield service", "Osterley service"].map((n) => named(list, n) as EntityView);
    const first = await call("GET", `/entities/${a?.id}/messages?limit=1`);
    expect(first.status).toBe(200);
    const cursor = first.json.next_cursor as string;
    expect(cursor).toBeTruthy();
    expect((await call("GET", `/entities/${a?.id}/messages?limit=1&cursor=${cursor}`)).status).toBe(200);
    const foreign = await call("GET", `/entities/${b?.id}/messages?limit=1&cursor=${cursor}`);
    expect(foreign.status).toBe(400);
    expect(foreign.contentType).toContain("application/problem+json");
    expect(foreign.json.errors.map((e: { field: string }) => e.field)).toEqual(["query.cursor"]);
  });

  it("a bad limit or cursor is a 400 naming it; an unknown entity is a 404", async () => {
    const t = await newThread();
    await t.events([tool("the Wrenfield service is up", { id: "w1", ts: at(1) })]);
    await extracted(t.thread);
    const gateway = named(await registry(t.project), "Wrenfield service") as EntityView;
    const entityCursor = btoa(JSON.stringify([t.project, "Wrenfield service", gateway.id])).replace(
      /=+$/,
      "",
    );
    for (const [query, field] of [
      ["limit=0", "query.limit"],
      ["limit=ten", "query.limit"],
      ["cursor=not-a-cursor", "query.cursor"],
      // A cursor of the entity list is not a position among messages.
      [`cursor=${entityCursor}`, "query.cursor"],
    ] as const) {
      const res = await call("GET", `/entities/${gateway.id}/messages?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.contentType).toContain("application/problem+json");
      expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    const unknown = await call("GET", "/entities/no-such-entity/messages");
    expect(unknown.status).toBe(404);
    expect(unknown.contentType).toContain("application/problem+json");
  });
});
