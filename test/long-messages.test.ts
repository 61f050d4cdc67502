import { describe, expect, it } from "vitest";
import { isLongMessage, LONG_MESSAGE_CHARS, passageSpans, passages } from "../src/retrieval/passages";
import { ask, call, message, newThread } from "./helpers";

/**
 * Issue 16, item 6: long messages (documents, logs, code) are indexed by passage when written, ranked by
 * the passage that answers, and packed as an excerpt of their relevant passages with a pointer to the
 * message when the whole message would take more than its share of the budget. And code pasted into a
 * turn is not read as statements of state.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 2, 3, 9, minute)).toISOString();

const TOPICS = [
  "pruning the espalier pears along the south wall",
  "mulching the raspberry canes before the first frost",
  "rotating the compost bays every third week",
  "netting the cherry trees against starlings",
  "grafting quince rootstock in late winter",
  "thinning apricots to one fruit per spur",
  "checking the beehives for mites in autumn",
  "sharpening the loppers and cleaning the secateurs",
];

/** A long handbook-style message (about 6,000 tokens) with one paragraph, deep inside, about `planted`. */
function handbook(planted: string): string {
  const paragraphs: string[] = [];
  for (let i = 0; i < 60; i++) {
    const topic = TOPICS[i % TOPICS.length];
    paragraphs.push(
      `Section ${i + 1}. On ${topic}: volunteers keep a dated note of the work, the tools they used and ` +
        `anything unusual they saw, so the next shift can carry on. Section ${i + 1} also lists who to ` +
        `call when a ladder is needed, and reminds everyone that gloves live in the shed by the gate.`,
    );
    if (i === 41) paragraphs.push(planted);
  }
  return paragraphs.join("\n\n");
}

describe("passages of a long message", () => {
  it("cover the text in order, each within the passage bound, cut at paragraph breaks where there are some", () => {
    const text = handbook("The irrigation valve on the north terrace is serviced with a 17 mm hex key.");
    expect(isLongMessage(text)).toBe(true);
    const spans = passageSpans(text);
    expect(spans.length).toBeGreaterThan(10);
    expect(spans[0]?.start).toBe(0);
    expect(spans.at(-1)?.end).toBe(text.length);
    for (let i = 1; i < spans.length; i++) expect(spans[i]?.start).toBe(spans[i - 1]?.end);
    for (const s of spans) expect(s.end - s.start).toBeLessThanOrEqual(1_000);
    // Each passage but the last ends at a paragraph break.
    for (const s of spans.slice(0, -1)) expect(text.slice(s.end - 2, s.end)).toBe("\n\n");
  });

  it("leave a message no longer than the bound whole, and cut text with no structure at spaces", () => {
    const short = "A".repeat(LONG_MESSAGE_CHARS);
    expect(passages(short)).toEqual([short]);
    const words = Array.from({ length: 900 }, (_, i) => `word${i}`).join(" ");
    const parts = passages(words);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join(" ")).toBe(words);
  });
});

describe("a long message in the context", () => {
  it("is packed as the excerpt that answers, with a pointer to its message, beside the short turns that matter", async () => {
    const t = await newThread();
    const planted = "The irrigation valve on the north terrace is serviced with a 17 mm hex key.";
    await t.events([
      message("Can you keep the orchard handbook for me? Here it is.", { id: "h0", ts: at(1) }),
      message(handbook(planted), { id: "h1", ts: at(2) }),
      message("Reminder: the terrace tap leaks if the irrigation valve is opened too fast.", {
        id: "h2",
        ts: at(3),
      }),
      ...Array.from({ length: 30 }, (_, i) =>
        message(`Shift ${i + 1} went fine; we watered the beds and locked the shed.`, {
          id: `s${i}`,
          ts: at(10 + i),
        }),
      ),
    ]);
    const { context, trace } = await ask(t, "Which key services the irrigation valve on the north terrace?", {
      budget_tokens: 2000,
    });
    expect(context).toContain(planted);
    expect(context).toMatch(/\(excerpt of message h1: part \d+ of \d+\)/);
    expect(context).toContain("the terrace tap leaks");
    const entry = trace.compiled.find((c: { object_id: string }) => c.object_id === "h1");
    expect(entry).toMatchObject({ kind: "message", detail: "excerpt" });
    expect(entry.tokens).toBeLessThan(400);
  });

  it("is excerpted among the last turns too: a document pasted just before the question", async () => {
    const t = await newThread();
    const planted = "The irrigation valve on the north terrace is serviced with a 17 mm hex key.";
    await t.events([
      message("Morning! I'm sorting out the orchard paperwork today.", { id: "p0", ts: at(1) }),
      message(handbook(planted), { id: "p1", ts: at(2) }),
      message("Thanks, I have the handbook.", { id: "p2", role: "assistant", ts: at(3) }),
    ]);
    const { context, trace } = await ask(t, "Which key services the irrigation valve on the north terrace?", {
      budget_tokens: 1500,
    });
    expect(context).toContain(planted);
    expect(trace.compiled.find((c: { object_id: string }) => c.object_id === "p1")).toMatchObject({
      detail: "excerpt",
    });
  });

  it("is packed whole when it fits well within the budget", async () => {
    const t = await newThread();
    const planted = "The irrigation valve on the north terrace is serviced with a 17 mm hex key.";
    const long = handbook(planted);
    await t.events([message(long, { id: "w1", ts: at(1) })]);
    const { context, trace } = await ask(t, "Which key services the irrigation valve?", {
      budget_tokens: 60_000,
    });
    expect(context.replace(/\s+/g, " ")).toContain(long.replace(/\s+/g, " "));
    expect(trace.compiled.find((c: { object_id: string }) => c.object_id === "w1")).toMatchObject({
      detail: "full",
    });
  });
});

describe("an excerpt's pointer", () => {
  it("leads to the message and to each of its parts; unknown messages and parts are 404, bad parts 400", async () => {
    const t = await newThread();
    const planted = "The irrigation valve on the north terrace is serviced with a 17 mm hex key.";
    const long = handbook(planted);
    await t.events([message(long, { id: "doc", ts: at(1) }), message("Thanks!", { id: "ok", ts: at(2) })]);
    const { context } = await ask(t, "Which key services the irrigation valve on the north terrace?", {
      budget_tokens: 1000,
    });
    const pointer = /\(excerpt of message doc: part (\d+) of (\d+)\)/.exec(context);
    expect(pointer).not.toBeNull();
    const [, part, of] = pointer as RegExpExecArray;

    const whole = await call("GET", `/threads/${t.thread}/messages/doc`);
    expect(whole.status).toBe(200);
    expect(whole.json.message).toMatchObject({ id: "doc", role: "user", content: long });
    expect(whole.json.parts).toBe(Number(of));
    expect(whole.json.part).toBeNull();

    const named = await call("GET", `/threads/${t.thread}/messages/doc?part=${part}`);
    expect(named.status).toBe(200);
    expect(named.json.part.index).toBe(Number(part));
    expect(named.json.part.text).toContain(planted);
    // The parts, read in order, are the message.
    const all = await Promise.all(
      Array.from({ length: Number(of) }, (_, i) =>
        call("GET", `/threads/${t.thread}/messages/doc?part=${i + 1}`),
      ),
    );
    expect(all.map((r) => r.json.part.text).join("")).toBe(long);

    const past = await call("GET", `/threads/${t.thread}/messages/doc?part=${Number(of) + 1}`);
    expect(past.status).toBe(404);
    expect(past.contentType).toContain("application/problem+json");
    expect((await call("GET", `/threads/${t.thread}/messages/nope`)).status).toBe(404);
    for (const bad of ["0", "abc", "1.5"]) {
      const r = await call("GET", `/threads/${t.thread}/messages/doc?part=${bad}`);
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.json)).toContain("part");
    }
  });

  it("reads a message as the thread's user may: secrets redacted", async () => {
    const t = await newThread();
    await t.events([
      message("The staging password is: tulip-harbor-9931, please rotate it after the demo.", {
        id: "pw",
        ts: at(1),
      }),
    ]);
    const r = await call("GET", `/threads/${t.thread}/messages/pw`);
    expect(r.status).toBe(200);
    expect(r.json.message.content).not.toContain("tulip-harbor-9931");
    expect(r.json.message.content).toContain("[REDACTED:password]");
    expect(r.json.message.content).toContain("please rotate it after the demo");
  });
});

describe("code pasted into a turn", () => {
  it("is not read as statements, while the prose around it is", async () => {
    const t = await newThread();
    await t.events([
      message(
        [
          "Here's my current stylesheet:",
          "```css",
          ".card { border: 1px solid #ccc; padding: 12px; }",
          "```",
          "The review date is now Friday.",
        ].join("\n"),
        { id: "c1", ts: at(1) },
      ),
      message(
        ["Here's my current stylesheet:", "```css", ".card { border: 2px dashed red; }", "```"].join("\n"),
        {
          id: "c2",
          ts: at(2),
        },
      ),
    ]);
    const { context, trace } = await ask(t, "What border did the card have in my first stylesheet?");
    const state = await call("GET", `/threads/${t.thread}/state`);
    const keys = state.json.facts.map((f: { key: string }) => f.key);
    expect(keys).toContain("review_date");
    expect(keys.some((k: string) => /border|padding|card|stylesheet/.test(k))).toBe(false);
    // The first paste is not "superseded" by the second: both turns stay.
    expect(trace.omitted.map((o: { object_id: string }) => o.object_id)).not.toContain("c1");
    expect(context).toContain("1px solid #ccc");
    expect(context).toContain("2px dashed red");
  });
});

describe("a pasted record set", () => {
  it("states nothing: a log of many 'label: value' lines gives no facts, a short list still does", async () => {
    const t = await newThread();
    const log = Array.from(
      { length: 60 },
      (_, i) => `Sensor ${i + 1}: humidity ${40 + (i % 9)} percent, battery ${90 - (i % 30)} percent.`,
    ).join("\n");
    await t.events([
      message(`Here is this morning's greenhouse log.\n${log}`, { id: "g1", ts: at(1) }),
      message("The greenhouse budget is $900. The watering day is now Thursday.", { id: "g2", ts: at(2) }),
    ]);
    const { context } = await ask(t, "Which sensor reported battery 61 percent?", { budget_tokens: 4000 });
    const state = await call("GET", `/threads/${t.thread}/state`);
    const keys: string[] = state.json.facts.map((f: { key: string }) => f.key);
    expect(keys.some((k) => /sensor/.test(k))).toBe(false);
    expect(keys).toEqual(expect.arrayContaining(["greenhouse_budget", "watering_day"]));
    // The log itself is still there to be found.
    expect(context).toContain("Sensor 30: humidity");
  });
});
