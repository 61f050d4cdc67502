import { describe, expect, it } from "vitest";
import { message, newThread } from "./helpers";

/** Episodic retrieval over a thread's raw messages, seen through the context API. */

const second = (n: number, day = Date.UTC(2025, 0, 1, 9)) => new Date(day + n * 1000).toISOString();
const TOPICS = ["weather", "coffee", "traffic", "lunch", "music", "weekend", "football", "gardening"];
/** Chatter that shares no word with the queries below. */
const filler = (count: number, from: number, day?: number) =>
  Array.from({ length: count }, (_, i) =>
    message(`Small talk ${from + i}: the ${TOPICS[i % TOPICS.length]} today is pleasant enough.`, {
      id: `f${from + i}`,
      ts: second(from + i, day),
      role: i % 2 ? "assistant" : "user",
    }),
  );

const section = (context: string, title: string) => {
  const start = context.indexOf(title);
  if (start < 0) return "";
  const end = context.indexOf("\n\n## ", start);
  return context.slice(start, end < 0 ? undefined : end);
};
const EPISODES = "## Relevant earlier conversation";
const RECENT = "## Recent messages";

describe("episodic retrieval", () => {
  it("finds a message buried 200 turns back by relevance, where the recent tail cannot reach", async () => {
    const t = await newThread();
    await t.events([
      message("The vault combination for the archive room is tangerine-42.", { id: "v1", ts: second(0) }),
      ...filler(200, 1),
    ]);
    const ctx = await t.context({ query: "What is the archive vault combination?", budget_tokens: 1000 });
    expect(ctx.status).toBe(200);
    expect(section(ctx.json.context, EPISODES)).toContain("tangerine-42");
    expect(section(ctx.json.context, RECENT)).not.toContain("tangerine-42");
    // The tail is still there, only smaller.
    expect(section(ctx.json.context, RECENT)).toContain("Small talk 200");
    expect(ctx.json.trace.compiled).toContainEqual(
      expect.objectContaining({ object_id: "v1", kind: "message", section: "episodes" }),
    );
    expect(ctx.json.tokens).toBeLessThanOrEqual(1000);

    const unrelated = await t.context({ query: "Who won the chess tournament?", budget_tokens: 1000 });
    expect(unrelated.json.context).not.toContain("tangerine-42");
  });

  it("rescues the answering turn next to a retrieved question", async () => {
    const t = await newThread();
    await t.events([
      message("Which city did we finally pick for the offsite?", { id: "q1", ts: second(0) }),
      message("Lisbon, booked for the first week of June.", { id: "a1", ts: second(1), role: "assistant" }),
      ...filler(40, 2),
    ]);
    const ctx = await t.context({ query: "offsite city", budget_tokens: 1500 });
    const episodes = section(ctx.json.context, EPISODES);
    expect(episodes).toContain("Which city did we finally pick");
    expect(episodes).toContain("Lisbon");
    // Chronological order within the section.
    expect(episodes.indexOf("Which city")).toBeLessThan(episodes.indexOf("Lisbon"));
  });

  it("does not rescue a neighbour across a session boundary", async () => {
    const t = await newThread();
    const nextDay = Date.UTC(2025, 0, 2, 9);
    await t.events([
      message("Which city did we finally pick for the offsite?", { id: "q1", ts: second(0) }),
      message("Porto has lovely tiles.", { id: "x1", ts: second(0, nextDay) }),
      ...filler(40, 1, nextDay),
    ]);
    const ctx = await t.context({ query: "offsite city", budget_tokens: 1500 });
    expect(section(ctx.json.context, EPISODES)).toContain("Which city");
    expect(ctx.json.context).not.toContain("Porto");
  });

  it("groups retrieved messages under the day they were said, without a timestamp per line", async () => {
    const t = await newThread();
    const march = Date.UTC(2024, 2, 14, 10);
    const june = Date.UTC(2024, 5, 1, 9);
    await t.events([
      message("We adopted a grey cat called Pixel from the shelter.", { id: "c1", ts: second(0, march) }),
      message("Pixel the cat knocked the plant over.", { id: "c2", ts: second(1, march), speaker: "Ada" }),
      message("The cat Pixel had a vet visit.", { id: "c3", ts: second(0, june) }),
      ...filler(30, 1, Date.UTC(2024, 6, 1, 9)),
    ]);
    for (const query of ["When did we adopt the cat?", "What is the cat Pixel called?"]) {
      const ctx = await t.context({ query, budget_tokens: 1000 });
      const lines = section(ctx.json.context, EPISODES).split("\n");
      const at = (text: string) => lines.findIndex((l: string) => l.includes(text));
      // One header per day, before that day's lines, in order.
      expect(lines.filter((l: string) => l === "[14 March 2024]")).toHaveLength(1);
      expect(at("[14 March 2024]")).toBeGreaterThan(0);
      expect(at("[14 March 2024]")).toBeLessThan(at("adopted a grey cat"));
      expect(at("adopted a grey cat")).toBeLessThan(at("knocked the plant"));
      expect(at("knocked the plant")).toBeLessThan(at("[1 June 2024]"));
      expect(at("[1 June 2024]")).toBeLessThan(at("vet visit"));
      // Lines keep who spoke, not when.
      expect(lines[at("knocked the plant")]).toBe("Ada: Pixel the cat knocked the plant over.");
      expect(lines[at("adopted a grey cat")]).toMatch(/^user: We adopted/);
      expect(section(ctx.json.context, EPISODES)).not.toContain("2024-03-14T");
      expect(ctx.json.tokens).toBeLessThanOrEqual(1000);
    }
  });

  it("keeps odd query and message text harmless to the full-text index", async () => {
    const t = await newThread();
    const odd = [
      'She said "ship it" AND (maybe OR not) NOT tomorrow*',
      "NEAR(alpha beta, 3) column:value ^start -minus {braces} [brackets]",
      "Zoë's café in 東京 serves crème brûlée 🚀",
      "unbalanced \" quote and ' apostrophe",
    ];
    await t.events([
      ...odd.map((content, i) => message(content, { id: `o${i}`, ts: second(i) })),
      ...filler(20, 10),
    ]);
    const queries = [
      ...odd,
      '"',
      "'",
      "(",
      ")",
      "*",
      "-",
      "AND",
      "OR NOT",
      "NEAR(",
      "col:",
      "^",
      "???",
      "🚀🚀",
      "\u0000 null byte",
    ];
    for (const query of queries) {
      const ctx = await t.context({ query, budget_tokens: 800 });
      expect(ctx.status, query).toBe(200);
    }
    const cafe = await t.context({ query: "cafe in 東京", budget_tokens: 800 });
    expect(section(cafe.json.context, EPISODES)).toContain("crème brûlée");
    const operators = await t.context({ query: "near alpha beta", budget_tokens: 800 });
    expect(section(operators.json.context, EPISODES)).toContain("NEAR(alpha beta, 3)");
  });

  it("gates retrieved turns spoken inside a hypothetical like tail turns", async () => {
    const t = await newThread();
    await t.events([
      message("The committed launch deadline is June 30.", { id: "h1", ts: second(0) }),
      message("Let's do some contingency planning. This is just exploratory.", { id: "h2", ts: second(1) }),
      message("The launch deadline would be September 15.", { id: "h3", ts: second(2) }),
      message("OK, enough contingency planning, let's talk about real commitments.", {
        id: "h4",
        ts: second(3),
      }),
      ...filler(30, 4),
    ]);
    const ctx = await t.context({ query: "What is the launch deadline?", budget_tokens: 2000 });
    expect(ctx.json.context).toContain("June 30");
    expect(ctx.json.context).not.toContain("September 15");
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({ object_id: "h3", kind: "message", reason: "out_of_scope" }),
    );
  });

  it("leaves out retrieved turns that stated a value since replaced", async () => {
    const t = await newThread();
    await t.events([
      message("[Manager] Approved the $100,000 budget for the project.", { id: "b1", ts: second(0) }),
      message("Noted. Budget of $100,000 approved by Manager.", {
        id: "b2",
        ts: second(1),
        role: "assistant",
      }),
      message("[VP] I'm overriding that. The budget is $80,000.", { id: "b3", ts: second(2) }),
      ...filler(30, 3),
    ]);
    const ctx = await t.context({
      query: "What's the approved budget for the project?",
      budget_tokens: 2000,
    });
    expect(ctx.json.context).toContain("$80,000");
    expect(ctx.json.context).not.toContain("$100,000");
    expect(ctx.json.trace.omitted).toContainEqual(
      expect.objectContaining({ object_id: "b1", kind: "message", reason: "superseded" }),
    );
  });

  it("a short conversation keeps its whole budget for the recent tail", async () => {
    const t = await newThread();
    await t.events([message("The vault combination is tangerine-42.", { id: "s1", ts: second(0) })]);
    const ctx = await t.context({ query: "vault combination", budget_tokens: 1000 });
    expect(section(ctx.json.context, RECENT)).toContain("tangerine-42");
    expect(ctx.json.context).not.toContain(EPISODES);
  });
});
