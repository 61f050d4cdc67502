import { describe, expect, it } from "vitest";
import { extractFromMessages, RuleExtractor } from "../src/extraction/rules/rule-extractor";
import { computeUid } from "../src/items/items";
import type {
  ExtractedFact,
  ExtractionInput,
  ExtractionMessage,
  ExtractionOutput,
  StateItem,
} from "../src/items/types";
import { stateItemRecord } from "./support/context-objects";

const ts = (i: number) => new Date(Date.UTC(2025, 0, 1, 9, i)).toISOString();

function msgs(texts: (string | [ExtractionMessage["role"], string])[], prefix = "m"): ExtractionMessage[] {
  return texts.map((entry, i) => {
    const [role, content] = typeof entry === "string" ? (["user", entry] as const) : entry;
    return { id: `${prefix}${i + 1}`, ts: ts(i), role, speaker: null, content };
  });
}

function run(
  texts: (string | [ExtractionMessage["role"], string])[],
  extra: Partial<ExtractionInput> = {},
): ExtractionOutput {
  return extractFromMessages({
    messages: msgs(texts),
    existing: [],
    existingFacts: [],
    openScope: null,
    ...extra,
  });
}

const byRef = (out: ExtractionOutput, ref: string) => out.facts.filter((f) => f.ref === ref);
const only = (out: ExtractionOutput, ref: string): ExtractedFact => {
  const facts = byRef(out, ref);
  expect(facts).toHaveLength(1);
  return facts[0] as ExtractedFact;
};

describe("slot facts", () => {
  it("reads subject, label, deadline and decision slots with stable snake_case keys", () => {
    const out = run([
      "The project budget is $50,000.",
      "Budget: $120,000",
      "Our deadline is Friday.",
      "We decided on 3 days in office.",
    ]);
    expect(only(out, "m1")).toMatchObject({ key: "project_budget", value: "$50,000", scope: "global" });
    // A later statement about the same slot gets the known key, not a new one.
    expect(only(out, "m2")).toMatchObject({
      key: "project_budget",
      value: "$120,000",
      supersedes: "project_budget",
    });
    expect(only(out, "m3")).toMatchObject({ key: "deadline", value: "Friday", supersedes: null });
    expect(only(out, "m4")).toMatchObject({ key: "decision", value: "3 days in office" });
    for (const fact of out.facts) {
      expect(fact.key).toMatch(/^[a-z0-9]+(?:_[a-z0-9]+)*$/);
      expect(fact.ts).toBe(ts(Number(fact.ref.slice(1)) - 1));
    }
  });

  it("'Make that $150,000' replaces the latest money slot, in the run or in existingFacts", () => {
    const inRun = run(["The project budget is $50,000.", "The deadline is Friday.", "Make that $150,000."]);
    expect(only(inRun, "m3")).toMatchObject({
      key: "project_budget",
      value: "$150,000",
      supersedes: "project_budget",
    });

    const fromExisting = run(["Make that $150,000."], {
      existingFacts: [
        { key: "launch_date", value: "March 3" },
        { key: "project_budget", value: "$50,000" },
      ],
    });
    expect(only(fromExisting, "m1")).toMatchObject({ key: "project_budget", supersedes: "project_budget" });
  });

  it("'Make that $40,000' is not about another fact that mentions $40,000 in passing", () => {
    // A busy project: other work's facts mention round figures and days among other things.
    const busy = [
      {
        key: "contract_10320_renewal",
        value: "Contract 10320 with Acme Tools renews on 2027-09-13 at $40,000 a year",
        elsewhere: true,
      },
      {
        key: "policy_security_10211",
        value: "Standups move to Thursday at 3pm during the audit",
        elsewhere: true,
      },
    ];
    const money = run(
      ["The project budget is $100,000.", "Noted. Budget set at $100,000.", "Make that $40,000."],
      {
        existingFacts: busy,
      },
    );
    expect(byRef(money, "m3")).toEqual([
      expect.objectContaining({ key: "project_budget", value: "$40,000", supersedes: "project_budget" }),
    ]);
    const day = run(["The meeting is on Monday.", "Actually, make that Thursday at 3pm."], {
      existingFacts: busy,
    });
    expect(byRef(day, "m2")).toEqual([
      expect.objectContaining({ key: "meeting", value: "Thursday at 3pm", supersedes: "meeting" }),
    ]);
    // What a slot held whole is still found by its value: "go back to" it.
    const back = run(["Go back to $40,000."], {
      existingFacts: [...busy, { key: "project_budget", value: "$90,000" }],
    });
    expect(byRef(back, "m1")).toEqual([expect.objectContaining({ key: "project_budget", value: "$40,000" })]);
  });

  it("implicit supersession: 'Let's do the meeting Thursday at 3pm' after 'Meeting is Tuesday at 2pm'", () => {
    const out = run(["Meeting is Tuesday at 2pm.", "Let's do the meeting Thursday at 3pm."]);
    expect(only(out, "m1")).toMatchObject({ key: "meeting", value: "Tuesday at 2pm", supersedes: null });
    expect(only(out, "m2")).toMatchObject({
      key: "meeting",
      value: "Thursday at 3pm",
      supersedes: "meeting",
    });
  });

  it("finds the slot of subjectless corrections: go back to a value, change that to a date", () => {
    const design = run([
      "The design is card-based UI.",
      ["assistant", "Design confirmed: card-based UI."],
      "Let's try list-based UI instead.",
      "Actually, let's go back to card-based UI.",
    ]);
    expect(only(design, "m3")).toMatchObject({ key: "design", value: "list-based UI", supersedes: "design" });
    expect(only(design, "m4")).toMatchObject({ key: "design", value: "card-based UI", supersedes: "design" });

    const meeting = run(["Schedule the meeting for next week.", "No wait, change that to this week."]);
    expect(only(meeting, "m2")).toMatchObject({ key: "meeting", value: "this week", supersedes: "meeting" });

    const status = run(["The project status is on track.", "As of today, the project is delayed."]);
    expect(only(status, "m2")).toMatchObject({
      key: "project_status",
      value: "delayed",
      supersedes: "project_status",
    });
  });

  it("'get back to' someone or something is a reply or a resumption, not a return to an old value", () => {
    const out = run([
      "The design is card-based UI.",
      "The vendor quoted $100,000 for the license.",
      "They said they'd get back to us by Friday.",
      "I'll get back to you on the budget.",
      "OK, let's get back to work.",
      "Let's try list-based UI instead.",
      "Let's get things back to card-based UI.",
    ]);
    for (const ref of ["m3", "m4", "m5"]) expect(out.facts.filter((f) => f.ref === ref)).toEqual([]);
    // With an object, "get ... back to X" is still a return to a value the slot held.
    expect(only(out, "m7")).toMatchObject({ key: "design", value: "card-based UI", supersedes: "design" });
  });

  it("'switch to Memcached instead of Redis' supersedes the caching slot and the Redis decision", () => {
    const out = run(["Let's use Redis for caching.", "Let's switch to Memcached instead of Redis."]);
    expect(only(out, "m1")).toMatchObject({ key: "caching", value: "Redis", supersedes: null });
    expect(only(out, "m2")).toMatchObject({ key: "caching", value: "Memcached", supersedes: "caching" });

    const [redis, memcached] = out.items;
    expect(redis).toMatchObject({
      type_tag: "decision",
      text: "Use Redis for caching",
      topic_tags: ["caching"],
    });
    expect(memcached).toMatchObject({ type_tag: "decision", refs: ["m2"] });
    expect(memcached?.topic_tags).toContain("caching");
    expect(memcached?.supersedes).toBe(computeUid("decision", "Use Redis for caching"));
  });

  it("references an existing item by uid when the change names what it replaces", () => {
    const existing: StateItem = stateItemRecord("d_abc123abc123", "Use Redis for caching", {
      topic_tags: ["caching"],
      refs: ["old1"],
      created_at: ts(0),
      last_seen_at: ts(0),
    }).item;
    const out = run(["Let's switch to Memcached instead of Redis."], { existing: [existing] });
    expect(out.items[0]?.supersedes).toBe("d_abc123abc123");
    // Without replacement language the reconciler decides: no claim is made.
    const plain = run(["Memcached is also worth a look for caching."], { existing: [existing] });
    expect(plain.items.every((i) => i.supersedes === null)).toBe(true);
  });
});

describe("supersession guardrails", () => {
  it("'actually' or 'correction' without a slot value changes nothing", () => {
    const out = run([
      "The budget is $50,000.",
      "Actually, I think that's fine.",
      "Correction noted, thanks.",
    ]);
    expect(out.facts).toHaveLength(1);
    expect(out.facts.every((f) => f.supersedes === null)).toBe(true);
  });

  it("a question yields no fact and supersedes nothing", () => {
    const out = run(["The budget is $50,000.", "Is the budget $60,000?", "Should we make that $70,000?"]);
    expect(byRef(out, "m2")).toEqual([]);
    expect(byRef(out, "m3")).toEqual([]);
    expect(out.items.find((i) => i.refs.includes("m2"))).toMatchObject({
      type_tag: "question",
      status: "open",
    });
  });

  it("a hypothetical is scoped and never supersedes the global slot", () => {
    const out = run([
      "The budget is $50,000.",
      "Hypothetically, the budget would be $90,000.",
      "If we hired two more people the deadline could be March 1.",
    ]);
    const hypothetical = out.facts.filter((f) => f.ref !== "m1");
    expect(hypothetical.length).toBeGreaterThan(0);
    for (const fact of hypothetical) {
      expect(fact.scope).toBe("hypothetical");
      expect(fact.scope_id).toBeTruthy();
      expect(fact.supersedes).toBeNull();
    }
    expect(out.facts.filter((f) => f.scope === "global").map((f) => f.value)).toEqual(["$50,000"]);
  });

  it("a hedge does not displace a firmer value of the same slot", () => {
    const out = run(["The price is $100.", "We're thinking about $90 for the price."]);
    const hedge = only(out, "m2");
    expect(hedge.scope).not.toBe("global");
    expect(hedge.supersedes).toBeNull();
    expect(hedge.confidence).toBe("low");
  });

  it("an assistant paraphrase never creates a fact or a supersession; a confirmation adds its ref", () => {
    const out = run([
      "Let's use Redis for caching.",
      ["assistant", "OK, switching caching to Memcached instead of Redis."],
      ["assistant", "The budget is now $70,000."],
    ]);
    expect(out.facts.map((f) => f.ref)).toEqual(["m1"]);
    expect(out.items).toHaveLength(1);
    expect(out.items[0]).toMatchObject({ refs: ["m1", "m2"], confidence: "high", supersedes: null });
  });
});

describe("scope inferred from the conversation", () => {
  it("an exploratory stretch covers the following statements until it is closed", () => {
    const out = run([
      "The committed deadline is June 30.",
      "Let's do some contingency planning. This is just exploratory.",
      "The deadline is September 15.",
      "Budget is $10k.",
      "OK, enough contingency planning, let's talk about real commitments.",
      "The budget is $20k.",
    ]);
    expect(only(out, "m1").scope).toBe("global");
    const inside = [...byRef(out, "m3"), ...byRef(out, "m4")];
    expect(inside).toHaveLength(2);
    for (const fact of inside) {
      expect(fact).toMatchObject({ scope: "hypothetical", supersedes: null });
      expect(fact.scope_id).toMatch(/contingency-planning@m2$/);
    }
    expect(only(out, "m6")).toMatchObject({ scope: "global", scope_id: null, value: "$20k" });
    expect(out.openScope).toBeNull();
    expect(out.facts.filter((f) => f.scope === "global").map((f) => f.value)).toEqual(["June 30", "$20k"]);
  });

  it("an unclosed scope is handed to the next run and closed there", () => {
    const first = extractFromMessages({
      messages: msgs(["Let's brainstorm some pricing options.", "The price is $45 per unit."], "a"),
      existing: [],
      existingFacts: [{ key: "price", value: "$50 per unit" }],
      openScope: null,
    });
    expect(first.openScope).toMatchObject({ scope: "hypothetical" });
    expect(only(first, "a2")).toMatchObject({ scope: "hypothetical", supersedes: null });

    const second = extractFromMessages({
      messages: msgs(["Or maybe $40 for large orders.", "Back to reality: the price is $55 per unit."], "b"),
      existing: [],
      existingFacts: [{ key: "price", value: "$50 per unit" }],
      openScope: first.openScope,
    });
    expect(byRef(second, "b1").every((f) => f.scope === "hypothetical")).toBe(true);
    expect(only(second, "b2")).toMatchObject({
      key: "price",
      value: "$55 per unit",
      scope: "global",
      supersedes: "price",
    });
    expect(second.openScope).toBeNull();
  });

  it("draft, task and sandbox phrasings open their own scopes", () => {
    expect(run(["Let's draft the proposal.", "The contract term is 24 months."]).facts[0]).toMatchObject({
      scope: "draft",
    });
    expect(run(["For this task only, the timeout is 30 seconds."]).facts[0]).toMatchObject({ scope: "task" });
    expect(run(["Let's do a sandbox session.", "The customer is John Doe."]).facts[0]).toMatchObject({
      scope: "hypothetical",
    });
    expect(run(["Draft pricing: $85 per unit."]).facts[0]).toMatchObject({ scope: "draft", key: "price" });
  });
});

describe("classification", () => {
  it("reads [RESTRICTED: … VP+] markers into classification and allowed roles", () => {
    const out = run([
      "[RESTRICTED: Strategic pricing restricted to VP+] The pricing floor for Globex is $30k.",
      "The public list price is $50k.",
    ]);
    expect(only(out, "m1")).toMatchObject({
      classification: "restricted",
      allow_roles: ["vp+"],
      value: "$30k",
    });
    expect(only(out, "m2")).toMatchObject({ classification: "public", allow_roles: [] });
  });

  it("secret-looking values are highly_restricted", () => {
    const out = run([
      "The API key is sk-proj-abc123def456ghi789.",
      "Use AKIAIOSFODNN7EXAMPLE for the uploader.",
      "My password is hunter2!",
      "The password is being reset today.",
    ]);
    expect(only(out, "m1")).toMatchObject({ key: "api_key", classification: "highly_restricted" });
    expect(only(out, "m2")).toMatchObject({ key: "aws_access_key", classification: "highly_restricted" });
    expect(only(out, "m3")).toMatchObject({
      key: "password",
      value: "hunter2",
      classification: "highly_restricted",
    });
    expect(byRef(out, "m4").every((f) => f.classification !== "highly_restricted")).toBe(true);
  });

  it("handling phrases: confidential, internal only, do not share outside HR", () => {
    const out = run([
      "Confidential: the acquisition target is Initech.",
      "Internal only: the launch date is May 3.",
      "Do not share outside HR: the severance budget is $200k.",
    ]);
    expect(only(out, "m1").classification).toBe("confidential");
    expect(only(out, "m2").classification).toBe("restricted");
    expect(only(out, "m3")).toMatchObject({ classification: "confidential", allow_roles: ["hr"] });
  });
});

describe("authority", () => {
  it("captures who a statement comes from", () => {
    const out = run([
      "The budget is $50,000.",
      "Per the CEO, the budget is $80,000.",
      "CFO says the deadline is March 1.",
      "[BOARD] The hiring plan is 10 engineers.",
      "[VP] I'm overriding that. The hiring plan is 12 engineers.",
      "The board decided to freeze hiring.",
    ]);
    expect(only(out, "m1").authority).toBeNull();
    expect(only(out, "m2")).toMatchObject({ authority: "CEO", value: "$80,000", supersedes: "budget" });
    expect(only(out, "m3")).toMatchObject({ authority: "CFO", key: "deadline", value: "March 1" });
    expect(only(out, "m4")).toMatchObject({ authority: "BOARD", key: "hiring_plan" });
    expect(only(out, "m5")).toMatchObject({ authority: "VP", key: "hiring_plan", supersedes: "hiring_plan" });
    expect(only(out, "m6")).toMatchObject({ authority: "board", key: "decision", value: "freeze hiring" });
  });

  it("does not mistake a noun phrase for a title", () => {
    const out = run(["Executive signing bonuses capped at $500k per policy."]);
    expect(only(out, "m1").authority).toBe("policy");
  });
});

describe("typed items", () => {
  it("reads one item of each type with status, confidence, 1-3 topic tags and refs", () => {
    const out = run([
      "Let's use Redis for caching.",
      "We must stay under $50k.",
      "TODO: run migration 025",
      "I'll send the report to finance.",
      "Should we cache embeddings client-side?",
      "risk: no rate limiting on refresh",
      "The project budget is $50,000.",
    ]);
    const types = out.items.map((i) => [i.refs[0], i.type_tag, i.status]);
    expect(types).toEqual([
      ["m1", "decision", "active"],
      ["m2", "constraint", "active"],
      ["m3", "action", "open"],
      ["m4", "action", "open"],
      ["m5", "question", "open"],
      ["m6", "risk", "active"],
    ]);
    expect(out.items.map((i) => i.text)).toEqual([
      "Use Redis for caching",
      "We must stay under $50k",
      "Run migration 025",
      "I'll send the report to finance",
      "Should we cache embeddings client-side?",
      "No rate limiting on refresh",
    ]);
    for (const item of out.items) {
      expect(item.topic_tags.length).toBeGreaterThanOrEqual(1);
      expect(item.topic_tags.length).toBeLessThanOrEqual(3);
      expect(["low", "medium", "high"]).toContain(item.confidence);
      expect(item).toMatchObject({ scope: "global", conflict: false, classification: "public" });
    }
    expect(out.items[2]?.confidence).toBe("high");
  });

  it("items inside an open scope carry it", () => {
    const out = run(["Let's brainstorm.", "Let's use blockchain for the audit trail."]);
    expect(out.items.every((i) => i.scope === "hypothetical" && i.scope_id !== null)).toBe(true);
  });
});

describe("determinism and the port", () => {
  const conversation = [
    "The project budget is $50,000.",
    ["assistant", "Noted. Budget set at $50,000."],
    "Make that $150,000.",
    "Let's do some contingency planning. This is just exploratory.",
    "The deadline would be September 15.",
    "[RESTRICTED: Strategic pricing restricted to VP+] Per the CFO, the pricing floor is $30k.",
    "TODO: update the forecast",
  ] as (string | [ExtractionMessage["role"], string])[];

  it("the same input gives the same output, and the input is not mutated", () => {
    const input: ExtractionInput = {
      messages: msgs(conversation),
      existing: [],
      existingFacts: [{ key: "launch_date", value: "May 3" }],
      openScope: null,
    };
    const snapshot = JSON.stringify(input);
    const a = extractFromMessages(input);
    const b = extractFromMessages(JSON.parse(snapshot));
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(input)).toBe(snapshot);
    expect(a.facts.length).toBeGreaterThan(3);
  });

  it("RuleExtractor is named 'rules' and wraps extractFromMessages", async () => {
    const extractor = new RuleExtractor();
    expect(extractor.name).toBe("rules");
    const input: ExtractionInput = {
      messages: msgs(conversation),
      existing: [],
      existingFacts: [],
      openScope: null,
    };
    expect(await extractor.extract(input)).toEqual(extractFromMessages(input));
  });
});
