import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { call, fact, message, newThread } from "./helpers";

/** How a compiled context shows a special-token string: its opening bracket defused, its words kept. */
const defused = (text: string) => text.replaceAll("<|", "&lt;|");

/**
 * Special-token strings are only text to Tenure: any client may write them anywhere, and the
 * tokenizer must count them as the characters they are instead of refusing them.
 */
const SPECIALS = [
  "<|endoftext|>",
  "<|im_start|>",
  "<|im_end|>",
  "<|im_sep|>",
  "<|endofprompt|>",
  "<|fim_prefix|>",
  "<|fim_middle|>",
  "<|fim_suffix|>",
];
const ALL = SPECIALS.join(" ");
const odd = (label: string) => `${label} ${ALL} end`;

const PLAIN = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

function expectOk(res: Awaited<ReturnType<typeof call>>, status: number, what: string) {
  expect(res.status, `${what}: ${JSON.stringify(res.json)}`).toBe(status);
}

describe("special-token strings are stored and compiled as plain text", () => {
  it("in every text field of every route", async () => {
    const t = await newThread(
      {
        user_id: "u1",
        user_name: odd("name"),
        authority: odd("authority"),
        roles: ["<|im_start|>"],
        department: odd("department"),
        organization: odd("organization"),
        permissions: ["<|endoftext|>"],
      },
      { environment: { timezone: "<|im_end|>", location: odd("location"), custom: odd("custom") } },
    );

    const events = await t.events([
      message(odd("user says"), { speaker: odd("speaker"), id: "m1" }),
      message(odd("assistant says"), { role: "assistant", id: "m2" }),
      message(odd("tool says"), { role: "tool", id: "m3" }),
      message(odd("system says"), { role: "system", id: "m4" }),
      fact(odd("key"), odd("string value"), {
        id: "f1",
        source: { type: "user", authority: odd("src authority"), identity: odd("src identity") },
        constraint_type: "<|fim_suffix|> rule",
        is_constraint: true,
        scope_id: odd("scope id"),
        scope: "task",
        depends_on: ["<|endoftext|>"],
        context: {
          why_it_matters: odd("why"),
          behavioral_implication: odd("implication"),
          aliases: [odd("alias")],
          canonical_entity_ids: ["<|fim_middle|>"],
        },
      }),
      fact("nested", { inner: odd("object value"), list: [ALL] }, { id: "f2" }),
      fact("draft", odd("working set"), { id: "f3", layer: "working" }),
      fact("weather", odd("environment layer"), { id: "f4", layer: "environment" }),
    ]);
    expectOk(events, 200, "POST events");

    for (const format of ["text", "openai", "anthropic"]) {
      const context = await t.context({
        query: odd("query"),
        system: odd("system"),
        task_id: odd("task"),
        roles: ["<|im_start|>"],
        format,
        tools: [{ name: "lookup", description: odd("tool description"), input_schema: { x: ALL } }],
      });
      expectOk(context, 200, `POST context (${format})`);
      // Stored text is compiled with the marker's bracket defused (issue 14, item 10): nothing in it can
      // open or close a chat-template turn, and the words are all there. (The caller's own `system`
      // rules are the developer's, and stay as sent.)
      expect(context.json.context).toContain(defused("<|endoftext|>"));
      expect(context.json.context).toContain("object value");
      expect(await call("GET", `/v1/tenants/acme/traces/${context.json.trace_id}`)).toMatchObject({
        status: 200,
      });
    }

    const state = await call("GET", `/threads/${t.thread}/state`);
    expectOk(state, 200, "GET state");
    expect(state.json.thread.identity.user_name).toBe(odd("name"));
    expect(state.json.facts.map((f: any) => f.value)).toContainEqual(odd("string value"));
    expectOk(await call("GET", `/threads/${t.thread}/extractions`), 200, "GET extractions");
    expectOk(await call("GET", "/facts/f1/history?as_user=u1"), 200, "GET history");
    const listed = await call(
      "GET",
      `/facts?project_id=${t.project}&as_user=u1&key=${encodeURIComponent(odd("key"))}`,
    );
    expectOk(listed, 200, "GET facts");
    expect(listed.json.facts.map((f: any) => f.id)).toEqual(["f1"]);
  });

  it("a thread whose identity holds one compiles, and keeps compiling after writes", async () => {
    const t = await newThread({ user_id: "u1", user_name: "<|endoftext|>", authority: "<|im_start|>" });
    expectOk(await t.context({ query: "who am I" }), 200, "first compile");
    expectOk(await t.events([message("hello there"), fact("k", "v")]), 200, "POST events");
    const again = await t.context({ query: "who am I" });
    expectOk(again, 200, "second compile");
    expect(again.json.context).toContain(defused("<|endoftext|>"));
  });

  it("counts them as their characters, not as one special token and not by refusing them", async () => {
    const t = await newThread();
    const [key, value] = ["<|endoftext|>", "and <|im_start|>"];
    expectOk(await t.events([fact(key, value, { id: "count-1" })]), 200, "POST events");
    const history = await call("GET", "/facts/count-1/history?as_user=u1");
    const tokens = history.json.current.tokens;
    // The stored fact line is `key: value`.
    expect(tokens).toBe(countTokens(`${key}: ${value}`, PLAIN));
    expect(tokens).not.toBe(countTokens(`${key}: ${value}`, { allowedSpecial: "all" }));
  });

  it("each one alone, in a key, a value and a message, is stored and compiled", async () => {
    const t = await newThread();
    for (const special of SPECIALS) {
      expectOk(await t.events([fact(`k${special}`, special), message(special)]), 200, special);
    }
    const context = await t.context({ query: SPECIALS.join("") });
    expectOk(context, 200, "compile");
    for (const special of SPECIALS) {
      expect(context.json.context).toContain(defused(special));
      expect(context.json.context).not.toContain(special);
    }
    // Stored as sent.
    const state = (await call("GET", `/threads/${t.thread}/state`)).json;
    for (const special of SPECIALS) expect(state.facts.map((f: any) => f.value)).toContain(special);
  });
});
