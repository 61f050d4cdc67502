import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_CHARS } from "../src/api/schemas/common";
import { createApp } from "../src/app";
import { DEFAULT_MAX_BODY_BYTES } from "../src/http/body-limits";
import { call, KEYS, message, newThread } from "./helpers";

/** Bodies are bounded in size and JSON depth before they are parsed: a 4xx problem, never a 5xx. */

const nested = (depth: number, leaf: unknown = "deep") => {
  // Built as text: building it as an object and stringifying it would itself overflow the stack.
  return `${'{"a":'.repeat(depth)}${JSON.stringify(leaf)}${"}".repeat(depth)}`;
};
const factBody = (value: string) =>
  `{"events":[{"type":"fact","id":"deep-1","key":"deep","value":${value}}]}`;

async function post(path: string, body: BodyInit, headers: Record<string, string> = {}) {
  const response = await SELF.fetch(`https://tenure.test/v1/tenants/acme${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEYS.acme}`, ...headers },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    json: JSON.parse(text),
  };
}

function expectProblem(res: { status: number; contentType: string; json: any }, status: number) {
  expect(res.status, JSON.stringify(res.json).slice(0, 300)).toBe(status);
  expect(res.contentType).toContain("application/problem+json");
  expect(res.json.status).toBe(status);
  expect(res.json.errors).toHaveLength(1);
}

async function storedFacts(thread: string) {
  const state = await call("GET", `/threads/${thread}/state`);
  expect(state.status).toBe(200);
  return state.json.facts;
}

describe("JSON depth is bounded before parsing", () => {
  it.each([5_000, 3_000, 100])(
    "a fact value nested %i deep is a 400 naming the field, and nothing is stored",
    async (depth) => {
      const t = await newThread();
      const res = await post(`/threads/${t.thread}/events`, factBody(nested(depth)));
      expectProblem(res, 400);
      expect(res.json.errors[0].field).toMatch(/^events\.0\.value\.a\.a/);
      expect(res.json.errors[0].message).toMatch(/nested deeper than 64/);
      expect(await storedFacts(t.thread)).toEqual([]);
    },
  );

  it("the limit is 64 levels counted from the body's top: 64 is stored, 65 is refused at the 65th", async () => {
    const t = await newThread();
    // The body, the events list and the event are three levels; the value adds the rest.
    const ok = await post(`/threads/${t.thread}/events`, factBody(nested(61)));
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    const refused = await post(`/threads/${t.thread}/events`, factBody(nested(62)));
    expectProblem(refused, 400);
    expect(refused.json.errors[0].field).toBe(["events", "0", "value", ...Array(61).fill("a")].join("."));
  });

  it("100,000 levels of brackets, in or outside a string, never reach the parser's stack", async () => {
    const t = await newThread();
    const arrays = factBody(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
    expectProblem(await post(`/threads/${t.thread}/events`, arrays), 400);
    expectProblem(await post(`/threads/${t.thread}/events`, "[".repeat(100_000)), 400);
    expectProblem(await post(`/threads/${t.thread}/events`, `{"events":${"[{".repeat(50_000)}`), 400);
    // Brackets inside a string are text, not nesting: this is an ordinary message.
    const inString = await post(
      `/threads/${t.thread}/events`,
      JSON.stringify({ events: [message(`quoted \\" ${"[{".repeat(5_000)}`)] }),
    );
    expect(inString.status, JSON.stringify(inString.json)).toBe(200);
  });

  it("applies to every route that takes a body, naming the field", async () => {
    const t = await newThread();
    const put = await SELF.fetch("https://tenure.test/v1/tenants/acme/threads/fresh-deep-env", {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${KEYS.acme}` },
      body: `{"project_id":"p","identity":{"user_id":"u"},"environment":{"custom":${nested(100)}}}`,
    });
    expect(put.status).toBe(400);
    expect(put.headers.get("content-type")).toContain("application/problem+json");
    expect((await put.json<any>()).errors[0].field).toMatch(/^environment\.custom\.a\.a/);
    expect((await call("GET", "/threads/fresh-deep-env/state")).status).toBe(404);

    const tools = await post(
      `/threads/${t.thread}/context`,
      `{"query":"q","tools":[{"name":"x","description":"d","input_schema":${nested(100)}}]}`,
    );
    expectProblem(tools, 400);
    expect(tools.json.errors[0].field).toMatch(/^tools\.0\.input_schema\.a\.a/);
  });
});

describe("body size is bounded before parsing", () => {
  const LIMIT = DEFAULT_MAX_BODY_BYTES;
  const bodyOf = (bytes: number) => {
    // Messages of 50,000 characters (the schema allows 1 MiB) until the body reaches `bytes`.
    const events = [];
    let size = 20;
    while (size < bytes) {
      const content = "x".repeat(Math.min(50_000, Math.max(1, bytes - size - 60)));
      events.push(message(content));
      size += content.length + 60;
    }
    return JSON.stringify({ events });
  };

  it("a body over the default limit (8 MiB) is a 413 problem, and nothing of it is stored", async () => {
    const t = await newThread();
    const body = bodyOf(LIMIT + 10_000);
    expect(body.length).toBeGreaterThan(LIMIT);
    expectProblem(await post(`/threads/${t.thread}/events`, body), 413);
    const state = await call("GET", `/threads/${t.thread}/state`);
    expect(state.json.message_count).toBe(0);
  });

  it("a body just under the default limit is accepted", async () => {
    const t = await newThread();
    const body = bodyOf(LIMIT - 10_000);
    expect(body.length).toBeLessThan(LIMIT);
    const res = await post(`/threads/${t.thread}/events`, body);
    expect(res.status, JSON.stringify(res.json).slice(0, 300)).toBe(200);
  });

  it("a streamed body with no Content-Length is cut off at the limit", async () => {
    const t = await newThread();
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Far more than the limit if it were all read: 64 MiB.
        if (sent++ >= 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await post(`/threads/${t.thread}/events`, stream);
    expectProblem(res, 413);
    expect(sent).toBeLessThan(1024);
  });

  it("both limits are configurable (MAX_BODY_BYTES, MAX_JSON_DEPTH)", async () => {
    const app = createApp();
    const limited = { ...env, MAX_BODY_BYTES: "2000", MAX_JSON_DEPTH: "8" };
    const request = (body: string) =>
      app.fetch(
        new Request("https://tenure.test/v1/tenants/acme/threads/any/events", {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${KEYS.acme}` },
          body,
        }),
        limited,
      );
    const big = await request(JSON.stringify({ events: [message("x".repeat(3000))] }));
    expect(big.status).toBe(413);
    const deep = await request(factBody(nested(6)));
    expect(deep.status).toBe(400);
    expect((await deep.json<any>()).errors[0].field).toBe("events.0.value.a.a.a.a.a");
  });
});

describe("a message holds up to 1 MiB of text", () => {
  /** Log-like text of exactly `chars` characters that ends with the given words. */
  const longText = (chars: number, ending: string) => {
    const line = (i: number) => `worker ${i % 13} handled request ${i} in ${i % 97} ms, status ok\n`;
    let text = "";
    for (let i = 0; text.length < chars; i++) text += line(i);
    return `${text.slice(0, chars - ending.length - 1)} ${ending}`;
  };

  it("a message of exactly the limit is stored and indexed to its last word", async () => {
    const t = await newThread();
    const big = longText(MAX_MESSAGE_CHARS, "the quokka migration finished.");
    expect(big.length).toBe(MAX_MESSAGE_CHARS);
    const res = await t.events([message(big, { id: "big-log", ts: "2025-03-01T09:00:00Z" })]);
    expect(res.status, JSON.stringify(res.json).slice(0, 300)).toBe(200);
    // Later turns, days later, push it out of the recent tail and out of their session: only its
    // own words can bring it back.
    const later = (i: number) => `2025-03-04T09:${String(i).padStart(2, "0")}:00Z`;
    await t.events(
      Array.from({ length: 15 }, (_, i) => message(`Short turn ${i}.`, { id: `s${i}`, ts: later(i) })),
    );

    const ctx = await t.context({ query: "Where did the quokka migration go?", budget_tokens: 2000 });
    expect(ctx.status).toBe(200);
    const seen = [...ctx.json.trace.compiled, ...ctx.json.trace.omitted].map((e: any) => e.object_id ?? e.id);
    expect(seen).toContain("big-log");
  });

  it("a longer message is a 413 problem naming its field, and nothing of the batch is stored", async () => {
    const t = await newThread();
    const res = await post(
      `/threads/${t.thread}/events`,
      JSON.stringify({
        events: [message("A short turn before it."), message(longText(MAX_MESSAGE_CHARS + 1, "over."))],
      }),
    );
    expectProblem(res, 413);
    expect(res.json.errors[0].field).toBe("events.1.content");
    expect(res.json.errors[0].message).toContain(String(MAX_MESSAGE_CHARS));
    const state = await call("GET", `/threads/${t.thread}/state`);
    expect(state.json.message_count).toBe(0);
  });
});
