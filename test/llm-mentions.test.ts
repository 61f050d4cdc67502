import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatTransport } from "../src/adapters/llm-extractor";
import { LlmMentionExtractor, MENTION_SYSTEM_PROMPT } from "../src/adapters/llm-mention-extractor";
import type { EventInput } from "../src/api/schemas";
import { RuleMentionExtractor } from "../src/entities/mentions/rule-mention-extractor";
import type { Env } from "../src/env";
import { mentionExtractorFor } from "../src/extraction/select-adapters";
import type { MentionInput } from "../src/ports/mention-extractor";
import { lookupTenant, type Tenant } from "../src/tenancy/registry";
import { call, fact, message, newThread } from "./helpers";
import { bareThread } from "./support/bare-thread";
import { type EntityView, type MessageRef, named, registry } from "./support/entity-messages";

/**
 * Issue 17 item 1: the LLM adapter of the MentionExtractor port, behind a fake transport (no network
 * here). The rules are the floor and the fallback: the model only adds names they missed, every entry it
 * answers is checked against the text, and a failed call or an answer that is no JSON array leaves the
 * rules' mentions alone.
 */

/** A chat transport answering from a function of the user prompt (or failing), counting its calls. */
class FakeTransport implements ChatTransport {
  readonly name = "fake-model";
  readonly prompts: { system: string; user: string }[] = [];
  constructor(private readonly answer: (user: string) => string) {}
  async complete(system: string, user: string): Promise<string> {
    this.prompts.push({ system, user });
    return this.answer(user);
  }
}

/** The texts of a mention prompt, by number. */
const textsOf = (user: string) =>
  [...user.matchAll(/<text input="(\d+)" origin="[a-z_]+">\n([\s\S]*?)\n<\/text>/g)].map((m) => ({
    input: Number(m[1]),
    text: m[2] ?? "",
  }));

/**
 * A model that names "heronfield ledger" wherever a text says it, and also answers what must not be
 * believed: a name the text does not hold, a type that does not exist, an input that was not sent, a
 * single word typed as a person, an alias the text never uses, and the rules' own name again.
 */
const modelAnswer = (user: string) =>
  JSON.stringify(
    textsOf(user).flatMap(({ input, text }) => [
      ...(text.includes("heronfield ledger")
        ? [{ input, text: "heronfield ledger", type: "system", aliases: ["HL", "the ledger"] }]
        : []),
      ...(text.includes("Tamsin") ? [{ input, text: "Tamsin", type: "person" }] : []),
      ...(text.includes("Kestrel service") ? [{ input, text: "Kestrel service", type: "tool" }] : []),
      { input, text: "Zebulon Crane", type: "person" },
      { input, text: "billing", type: "planet" },
      { input: input + 1000, text: "heronfield ledger", type: "system" },
    ]),
  );

const rules = new RuleMentionExtractor();
const inputs: MentionInput[] = [
  { text: "We moved the heronfield ledger off the old host; see the ledger notes.", origin: "message" },
  {
    text: "Tamsin restarted the Kestrel service; mail ops@kestrel-hosting.io if it drops.",
    origin: "tool_output",
  },
  { text: "Nothing to see here.", origin: "message" },
];

describe("the LLM mention extractor", () => {
  it("adds the names the rules missed, checked against the text, to the rules' own", async () => {
    const transport = new FakeTransport(modelAnswer);
    const extractor = new LlmMentionExtractor(transport, rules);
    expect(extractor.name).toBe("llm:fake-model");
    const [ruled, found] = [await rules.extract(inputs), await extractor.extract(inputs)];
    expect(transport.prompts).toHaveLength(1);
    expect(transport.prompts[0]?.system).toBe(MENTION_SYSTEM_PROMPT);
    // The rules' mentions are kept as they are, first.
    for (const [i, list] of ruled.entries()) expect(found[i]?.slice(0, list.length)).toEqual(list);
    const added = found.map((list, i) => list.slice(ruled[i]?.length ?? 0));
    expect(added[0]).toEqual([
      {
        text: "heronfield ledger",
        name: "heronfield ledger",
        type: "system",
        // "the ledger" is said in the text; "HL" is not.
        aliases: ["the ledger"],
        strength: "strong",
        metadata: {},
        origin: "message",
      },
    ]);
    // A single word is weak (it only refers to an entity already going by it); the rules' name is theirs.
    expect(added[1]).toEqual([expect.objectContaining({ name: "Tamsin", type: "person", strength: "weak" })]);
    expect(added[2]).toEqual([]);
  });

  it.each([
    ["an answer that is no JSON array", () => "Sure! Here are the names: heronfield ledger"],
    ["malformed JSON", () => '[{"input": 0, "text": "heronfield ledger", '],
    ["an object instead of an array", () => '{"input": 0, "text": "heronfield ledger", "type": "system"}'],
    [
      "a transport error",
      () => {
        throw new Error("503 from the model");
      },
    ],
  ])("falls back to the rules alone on %s", async (_, answer) => {
    const extractor = new LlmMentionExtractor(new FakeTransport(answer), rules);
    expect(await extractor.extract(inputs)).toEqual(await rules.extract(inputs));
  });

  it("asks in several calls when the texts are many or long, each call's answer about its own texts", async () => {
    const transport = new FakeTransport(modelAnswer);
    const many: MentionInput[] = Array.from({ length: 90 }, (_, i) => ({
      text: i === 77 ? "the heronfield ledger is late again" : `status line ${i}`,
      origin: "message",
    }));
    const found = await new LlmMentionExtractor(transport, rules).extract(many);
    expect(transport.prompts.length).toBe(3);
    expect(found.flatMap((list, i) => list.map((m) => [i, m.name]))).toEqual([[77, "heronfield ledger"]]);
  });
});

describe("which mention extractor a tenant gets", () => {
  const acme = lookupTenant(env, "acme") as Tenant;
  it("the rules by default, the LLM adapter when the tenant configures a model whose binding exists", () => {
    expect(mentionExtractorFor(acme, env).name).toBe("rules");
    const chat = {
      ...acme,
      extractor: { kind: "chat-completions", url: "https://llm.test/v1", model: "m1" },
    };
    expect(mentionExtractorFor(chat as Tenant, env)).toBeInstanceOf(LlmMentionExtractor);
    expect(mentionExtractorFor(chat as Tenant, env).name).toBe("llm:m1");
    const workersAi = { ...acme, extractor: { kind: "workers-ai", model: "@cf/meta/llama" } };
    // Without the AI binding a configured Workers AI model falls back to the rules.
    expect(mentionExtractorFor(workersAi as Tenant, { ...env, AI: undefined } as unknown as Env).name).toBe(
      "rules",
    );
    const ai = { run: async () => ({ response: "[]" }) };
    expect(mentionExtractorFor(workersAi as Tenant, { ...env, AI: ai } as unknown as Env).name).toBe(
      "llm:@cf/meta/llama",
    );
  });
});

describe("a thread whose tenant reads mentions with a model", () => {
  const turns = [
    message("Is the heronfield ledger back up?", { id: "m1", ts: "2026-05-11T09:01:00.000Z" }),
    message("restarted the Kestrel service", { id: "m2", ts: "2026-05-11T09:02:00.000Z", role: "tool" }),
  ] as EventInput[];

  async function withMentions(
    thread: string,
    transport: FakeTransport,
    work: (bare: ReturnType<typeof bareThread>) => Promise<void>,
  ) {
    const id = env.THREADS.idFromName(`tenant:acme/thread:${thread}`);
    await runInDurableObject(env.THREADS.get(id), async (_instance, state) => {
      await work(bareThread(state, thread, { mentions: new LlmMentionExtractor(transport, rules) }));
    });
  }

  it("registers what the model finds in facts and messages, and refers the messages to it", async () => {
    const t = await newThread();
    const transport = new FakeTransport(modelAnswer);
    await withMentions(t.thread, transport, async (bare) => {
      await bare.ingest([
        fact("ledger_host", "the heronfield ledger runs on the new host", { id: "f1" }),
      ] as EventInput[]);
      await bare.ingest(turns);
      expect(await bare.extract()).not.toBeNull();
    });
    expect(transport.prompts.length).toBeGreaterThanOrEqual(2);
    const list = await registry(t.project);
    const ledger = named(list, "heronfield ledger") as EntityView;
    expect(ledger).toMatchObject({ entity_type: "system", status: "active" });
    const page = await call("GET", `/entities/${ledger.id}`);
    expect(page.json.provenance).toMatchObject({ fact_id: expect.any(String), extractor: "llm:fake-model" });
    expect(page.json.messages.map((m: MessageRef) => m.message_id)).toEqual(["m1"]);
    // The rules' finds are there as well; what the model invented is not.
    expect(named(list, "Kestrel service")).toBeDefined();
    expect(named(list, "Zebulon Crane")).toBeUndefined();
  });

  it("falls back to the rules when the model's answer is malformed", async () => {
    const t = await newThread();
    const transport = new FakeTransport(() => "[{ not json");
    await withMentions(t.thread, transport, async (bare) => {
      await bare.ingest(turns);
      expect(await bare.extract()).not.toBeNull();
    });
    expect(transport.prompts).toHaveLength(1);
    const list = await registry(t.project);
    expect(named(list, "heronfield ledger")).toBeUndefined();
    const kestrel = named(list, "Kestrel service") as EntityView;
    const page = await call("GET", `/entities/${kestrel.id}`);
    expect(page.json.messages.map((m: MessageRef) => m.message_id)).toEqual(["m2"]);
  });
});
