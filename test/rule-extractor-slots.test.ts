import { describe, expect, it } from "vitest";
import { extractFromMessages } from "../src/extraction/rules/rule-extractor";
import { readSlots } from "../src/extraction/rules/slots/read-slots";
import { figures, sameFigures } from "../src/extraction/rules/values";
import { echoClaims } from "../src/extraction/run-extraction";
import type { ExtractionInput, ExtractionMessage, ExtractionOutput } from "../src/items/types";

const ts = (i: number) => new Date(Date.UTC(2025, 0, 1, 9, i)).toISOString();

function run(
  texts: (string | [ExtractionMessage["role"], string])[],
  extra: Partial<ExtractionInput> = {},
): ExtractionOutput {
  const messages = texts.map((entry, i): ExtractionMessage => {
    const [role, content] = typeof entry === "string" ? (["user", entry] as const) : entry;
    return { id: `m${i + 1}`, ts: ts(i), role, speaker: null, content };
  });
  return extractFromMessages({ messages, existing: [], existingFacts: [], openScope: null, ...extra });
}

const factsOf = (out: ExtractionOutput, ref: string) => out.facts.filter((f) => f.ref === ref);
const scopeOf = (out: ExtractionOutput, id: string) => out.messageScopes?.find((s) => s.id === id);

describe("one phrase, two slots: a count and where it goes", () => {
  it("reads the quantity and the destination separately", () => {
    const readings = readSlots("Shipment: 40 pallets of tiles to Denver depot");
    expect(readings.map((r) => [r.subject, r.value])).toEqual([
      ["shipment_quantity", "40 pallets of tiles"],
      ["shipment_destination", "Denver depot"],
    ]);
    // Without a place there is nothing to separate.
    expect(readSlots("Shipment: 40 pallets of tiles").map((r) => r.subject)).toEqual(["shipment"]);
  });

  it("a later change of the quantity replaces the count and leaves the place alone", () => {
    const out = run([
      "Order: 500 units of packages to Chicago hub.",
      "Keep the location, but change the quantity to 1500.",
    ]);
    expect(factsOf(out, "m1").map((f) => [f.key, f.value])).toEqual([
      ["order_quantity", "500 units of packages"],
      ["order_destination", "Chicago hub"],
    ]);
    expect(factsOf(out, "m2")).toEqual([
      expect.objectContaining({ key: "order_quantity", value: "1500", supersedes: "order_quantity" }),
    ]);
  });

  it("the destination lands on a stored location of the same thing", () => {
    const out = run(["Order: 500 units of packages to Chicago hub."], {
      existingFacts: [
        { key: "order_quantity", value: "500" },
        { key: "order_location", value: "Chicago hub" },
      ],
    });
    const facts = factsOf(out, "m1");
    expect(facts.find((f) => f.key === "order_location")).toMatchObject({ supersedes: null });
    expect(facts.some((f) => f.key === "order_destination")).toBe(false);
  });
});

describe("drafts that repeat the current figure", () => {
  it("are no alternative, so the final figure replaces the stored one", () => {
    const out = run(["Draft pricing: $85 per unit.", "We've finalized the pricing at $50 per unit."], {
      existingFacts: [{ key: "unit_price", value: "$85 (DRAFT)" }],
    });
    expect(factsOf(out, "m1")).toEqual([]);
    expect(scopeOf(out, "m1")).toMatchObject({ scope: "draft" });
    expect(factsOf(out, "m2")).toEqual([
      expect.objectContaining({
        key: "unit_price",
        value: "$50 per unit",
        supersedes: "unit_price",
        scope: "global",
      }),
    ]);
  });

  it("a draft with another figure is still kept as a draft", () => {
    const out = run(["Draft pricing: $90 per unit."], {
      existingFacts: [{ key: "unit_price", value: "$85" }],
    });
    expect(factsOf(out, "m1")).toEqual([expect.objectContaining({ scope: "draft", value: "$90 per unit" })]);
  });

  it("compares figures, not wording", () => {
    expect(figures("$85 per unit, 15% off, 500 units")).toEqual(["$85", "15%", "500"]);
    expect(sameFigures("$85 per unit", "$85 (DRAFT)")).toBe(true);
    expect(sameFigures("$85 per unit", "$50 per unit")).toBe(false);
    expect(sameFigures("Chicago hub", "Chicago hub")).toBe(false);
  });
});

describe("messages that only manage a scope", () => {
  it("closing a brainstorm with nothing else said belongs to the brainstorm", () => {
    const out = run([
      "Let's do a brainstorming session. This is just exploratory.",
      "Maybe add AI-powered recommendations",
      "OK, that's enough brainstorming session for now. Let's talk about real commitments.",
    ]);
    const opened = scopeOf(out, "m1");
    expect(opened).toMatchObject({ scope: "hypothetical" });
    expect(scopeOf(out, "m3")).toEqual({ ...opened, id: "m3" });
    expect(out.openScope).toBeNull();
  });

  it("a closing message that also states something stays global", () => {
    const out = run([
      "Let's do a brainstorming session. This is just exploratory.",
      "OK, enough brainstorming. The budget is $20k.",
    ]);
    expect(scopeOf(out, "m2")).toBeUndefined();
    expect(factsOf(out, "m2")).toEqual([expect.objectContaining({ value: "$20k", scope: "global" })]);
  });
});

describe("assistant turns that echo the user turn before them", () => {
  it("an echo of a scoped turn is in that scope; an unrelated reply is not", () => {
    const out = run([
      "Draft pricing: $85 per unit.",
      ["assistant", "Draft recorded: $85 per unit."],
      "Draft pricing: $70 per unit.",
      ["assistant", "Shall I also look at shipping costs?"],
    ]);
    expect(scopeOf(out, "m2")).toMatchObject({ scope: "draft", scope_id: scopeOf(out, "m1")?.scope_id });
    expect(scopeOf(out, "m4")).toBeUndefined();
  });

  it("a restatement still says what the message stated, and an echo repeats it", () => {
    const out = run(
      ["The hourly rate is $125.", ["assistant", "Hourly rate noted: $125."], "The rate is now $225."],
      {
        existingFacts: [{ key: "hourly_rate", value: "$125" }],
      },
    );
    expect(factsOf(out, "m1")).toEqual([
      expect.objectContaining({ key: "hourly_rate", value: "$125", supersedes: null }),
    ]);
    expect(out.messageEchoes).toEqual([{ id: "m2", of: "m1" }]);
    expect(factsOf(out, "m3")).toEqual([
      expect.objectContaining({ key: "hourly_rate", value: "$225", supersedes: "hourly_rate" }),
    ]);
  });

  it("an assistant turn that repeats nothing echoes nothing", () => {
    const out = run(["The hourly rate is $125.", ["assistant", "Thanks, anything else?"]]);
    expect(out.messageEchoes).toEqual([]);
  });

  it("echoClaims gives the echo the claims of the turn it repeats", () => {
    const claims = [
      { message_id: "m1", key: "hourly_rate", value: "$125" },
      { message_id: "m3", key: "deadline", value: "Friday" },
    ];
    expect(echoClaims(claims, [{ id: "m2", of: "m1" }])).toEqual([
      { message_id: "m2", key: "hourly_rate", value: "$125" },
    ]);
  });
});

describe("values a message itself retires", () => {
  it("history and intermediate steps are retired; the final word is the fact", () => {
    const out = run([
      "So the original launch date was Friday March 15th. Then we moved it to Thursday March 14th. But the final launch date is Monday March 18th.",
    ]);
    expect(factsOf(out, "m1")).toEqual([
      expect.objectContaining({ key: "launch_date", value: "Monday March 18th" }),
    ]);
    expect(out.retiredValues).toEqual([
      { id: "m1", key: "launch_date", value: "Friday March 15th" },
      { id: "m1", key: "launch_date", value: "Thursday March 14th" },
    ]);
  });

  it("a plain statement retires nothing", () => {
    expect(run(["The launch date is Monday March 18th."]).retiredValues).toEqual([]);
  });
});

describe("status updates about one thing", () => {
  it("keeps a spaced range whole and leaves the reason out of the value", () => {
    const out = run(["Scheduled deployment window is 2 AM - 4 AM tonight."]);
    expect(out.facts.map((f) => [f.key, f.value])).toEqual([
      ["scheduled_deployment_window", "2 AM - 4 AM tonight"],
    ]);
    // A spaced dash between words still separates clauses.
    expect(run(["The budget is $50k - the CFO agreed"]).facts.map((f) => f.value)).toEqual(["$50k"]);
  });

  it("a shorter key whose words share stems with a known key means that slot", () => {
    const out = run([
      "Scheduled deployment window is 2 AM - 4 AM tonight.",
      "Update: Deploy window moved to 4 AM - 6 AM due to extended high traffic.",
    ]);
    expect(factsOf(out, "m2").map((f) => [f.key, f.value, f.supersedes])).toEqual([
      ["scheduled_deployment_window", "4 AM - 6 AM", "scheduled_deployment_window"],
    ]);
    // A different modifier is a different thing.
    const other = run(["The maintenance window is Sunday.", "The release window is Friday."]);
    expect(other.facts.map((f) => [f.key, f.supersedes])).toEqual([
      ["maintenance_window", null],
      ["release_window", null],
    ]);
  });

  it("a numbered thing reporting its status is not a command", () => {
    const out = run(["Note: Build #1234 passed. Ready for release.", "Build the installer for Windows."]);
    expect(out.items.map((i) => [i.type_tag, i.text])).toEqual([
      ["action", "Build the installer for Windows"],
    ]);
  });
});

describe("casual conversation states no slot values", () => {
  it("appraisals are not values: degree words, evaluative adjectives, favourites", () => {
    for (const clause of [
      "That cup is so cute",
      "Those colors are so vivid and the whole thing looks really unified",
      "Art is such a source of joy",
      "That bowl is gorgeous",
      "Your future family is gonna be so lucky to have you",
      "Drawing flowers is one of my faves",
      "Painting landscapes and still life is my favorite",
      "Volunteering is a great way to meet people",
      "Mental health is important to me",
      "Showing off our true selves is the best thing ever",
    ]) {
      expect(readSlots(clause), clause).toEqual([]);
    }
  });

  it("a clause cut short is not a slot's name", () => {
    for (const clause of [
      "Even when the days are long, it is fine",
      "Glad the move is finally done",
      "Keep calm and stay focused",
      "These walks help me stay sane",
      "Maybe this is the push I needed",
      "I set up my laptop to run nightly backups",
    ]) {
      expect(readSlots(clause), clause).toEqual([]);
    }
    // A noun phrase joined by "and" is still one.
    expect(readSlots("Red and blue are the team colors").map((r) => [r.subject, r.value])).toEqual([
      ["red_and_blue", "the team colors"],
    ]);
  });

  it("values that merely open like an appraisal word are still read", () => {
    expect(readSlots("The budget is $50,000").map((r) => [r.subject, r.value])).toEqual([
      ["budget", "$50,000"],
    ]);
    expect(readSlots("The priority is very high").map((r) => r.value)).toEqual(["very high"]);
    expect(readSlots("The vendor is Brightline Supplies").map((r) => r.value)).toEqual([
      "Brightline Supplies",
    ]);
  });

  it("a chatty turn does not supersede an earlier one through 'it' or an idiom", () => {
    const out = run([
      "My goal is to give kids a loving home.",
      "A friend made it for my 18th birthday ten years ago.",
      "We want it to spread acceptance - let's make it happen!",
    ]);
    expect(out.facts.filter((f) => f.ref !== "m1")).toEqual([]);
    expect(out.facts.every((f) => f.supersedes === null)).toBe(true);
  });

  it("a later appraisal of the same thing does not outdate the earlier turn", () => {
    const out = run([
      "My kids are so excited about summer break!",
      "Those kids will be so supported and happy.",
    ]);
    expect(out.facts).toEqual([]);
  });
});

describe("reported speech is not a hypothetical", () => {
  it("'explained their brother would be OK' leaves the turn in the conversation's own scope", () => {
    const out = run([
      "They were scared but we reassured them and explained their brother would be OK.",
      "The budget would be $80k if we add a second vendor.",
    ]);
    expect(scopeOf(out, "m1")).toBeUndefined();
    // A hedge scopes the value it qualifies; the turn, with no explicit supposition, stays in view.
    expect(out.facts.filter((f) => f.ref === "m2").map((f) => f.scope)).toEqual(["hypothetical"]);
    expect(scopeOf(out, "m2")).toBeUndefined();
  });
});

describe("when a change happened, said after its value, is not part of the value", () => {
  it("cuts 'yesterday', 'two days ago', 'as of this morning' and 'last week' after a value", () => {
    const out = run([
      "The launch is on March 3.",
      "We moved the launch to March 10 yesterday.",
      "I switched our database to Postgres two days ago.",
      "Budget is now $50k as of this morning.",
      "The API port is 80.",
      "Note it changed from port 80 to port 8080 last week.",
      "The budget was raised to $2M a couple of weeks ago",
      "Our team size is 14 as of last Monday.",
      "The office moved to Denver this past weekend.",
    ]);
    expect(out.facts.map((f) => [f.ref, f.key, f.value])).toEqual([
      ["m1", "launch", "on March 3"],
      ["m2", "launch", "March 10"],
      ["m3", "database", "Postgres"],
      ["m4", "budget", "$50k"],
      ["m5", "api_port", "80"],
      ["m6", "api_port", "port 8080"],
      ["m7", "budget", "$2M"],
      ["m8", "headcount", "14"],
      ["m9", "office", "Denver"],
    ]);
  });

  it("keeps a value that is the time itself, and a date the phrase completes", () => {
    const out = run([
      "The deadline is yesterday.",
      "The review is due Friday last week.",
      "The meeting is at 3pm today.",
      "The launch date is March 10 last year.",
    ]);
    expect(out.facts.map((f) => [f.key, f.value])).toEqual([
      ["deadline", "yesterday"],
      ["review", "due Friday last week"],
      ["meeting", "3pm today"],
      ["launch_date", "March 10 last year"],
    ]);
  });
});

describe("an aside after a value is not part of it", () => {
  it("cuts hedges and asides to the listener: 'I think', 'btw', ', honestly', 'if all goes well'", () => {
    const out = run([
      "Our budget is $40k I think.",
      "The deadline is Friday btw.",
      "Team size is 12 people, give or take.",
      "The API rate limit is 100 requests per minute, fyi.",
      "Launch is March 10 if all goes well.",
      "Our main competitor is Acme Corp, honestly.",
      "The venue is the Hilton, probably.",
      "The price is $25 for sure.",
      "The deadline is March 12 last I heard.",
    ]);
    expect(out.facts.map((f) => [f.key, f.value])).toEqual([
      ["budget", "$40k"],
      ["deadline", "Friday"],
      ["headcount", "12 people"],
      ["api_rate_limit", "100 requests per minute"],
      ["launch", "March 10"],
      ["main_competitor", "Acme Corp"],
      ["venue", "the Hilton"],
      ["price", "$25"],
      ["deadline", "March 12"],
    ]);
  });

  it("keeps a bound said without a comma: '3 reviewers at least'", () => {
    const out = run(["The minimum is 3 reviewers at least."]);
    expect(out.facts.map((f) => f.value)).toEqual(["3 reviewers at least"]);
  });
});

describe("a hedged idea that names no slot", () => {
  it("is no new value of a slot whose name merely shares a word with it", () => {
    for (const idea of [
      "I'm thinking about organising a fundraiser regarding the library.",
      "We're considering a volunteer drive regarding renovation.",
    ]) {
      const out = run([idea], {
        existingFacts: [{ key: "library_renovation", value: "approved by the board" }],
      });
      expect(
        out.facts.map((f) => f.key),
        idea,
      ).toEqual(["plan"]);
    }
  });

  it("still lands on the slot whose value it shares words with", () => {
    const out = run(["I'm thinking about the Denver warehouse instead."], {
      existingFacts: [{ key: "shipping_hub", value: "the Chicago warehouse" }],
    });
    expect(out.facts.map((f) => [f.key, f.value])).toEqual([["shipping_hub", "the Denver warehouse"]]);
  });
});

describe("who holds a role, and names that open like a verb", () => {
  it("a title said to be a person is that role's slot; a title said to be anything else is not", () => {
    const out = run(["Our CTO is Priya.", "The CTO is Priya Shah now.", "The CFO is firm on this."]);
    expect(out.facts.map((f) => [f.key, f.value, f.supersedes])).toEqual([
      ["cto", "Priya", null],
      ["cto", "Priya Shah", "cto"],
    ]);
  });

  it("a name joined on to an -ing word is a value, not a verb in progress", () => {
    expect(readSlots("The staging server is staging-02").map((r) => [r.subject, r.value])).toEqual([
      ["staging_server", "staging-02"],
    ]);
    expect(readSlots("The team is excluding weekends")).toEqual([]);
  });
});
