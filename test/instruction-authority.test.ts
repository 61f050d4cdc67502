import { describe, expect, it } from "vitest";
import { ask, fact, message, newThread } from "./helpers";

/**
 * Issue 17 item 5 for instructions filed under keys that say nothing of what they are about
 * ("directive_1", "directive_2"): the slot is read from the values. Two attributed instructions are one
 * slot only when they share a word for the thing and their values collide; then the higher rank (or the
 * same speaker's later word) wins, and the loser leaves the context with the items and sentences that
 * retell it. Everything else stays in view. Every sentence here is invented.
 */

const at = (minute: number) => `2025-03-04T10:${String(minute).padStart(2, "0")}:00Z`;

describe("attributed instructions under generic keys", () => {
  it("a lower rank asking for more than a higher rank's cap is overridden, and its retelling masked", async () => {
    const t = await newThread();
    await t.events([
      fact("directive_1", "[VP] Ines (VP Procurement): Laptop purchases are capped at $1,800 per person", {
        id: "cap",
        ts: at(1),
      }),
      fact("directive_2", "[MANAGER] Otto (IT Manager): Order the $3,200 laptops for the design group", {
        id: "ask",
        ts: at(2),
      }),
      message("IT Manager Otto wants the $3,200 laptops for design. VP Ines capped laptops at $1,800 each.", {
        ts: at(3),
      }),
    ]);
    const r = await ask(t, "Which laptops can we order for the design group?");
    expect(r.reasonFor("ask")).toBe("overridden");
    expect(r.reasonFor("cap")).toBeUndefined();
    expect(r.context).toContain("$1,800");
    expect(r.context).not.toContain("$3,200");
    const omission = r.trace.omitted.find((o: any) => o.object_id === "ask");
    expect(omission.detail).toContain("cap");
  });

  it("a sentence naming the overridden speaker and figure on another matter is kept", async () => {
    const t = await newThread();
    await t.events([
      fact("directive_1", "[VP] Ines (VP Procurement): Monitor purchases are capped at $400 per desk", {
        id: "cap",
        ts: at(1),
      }),
      fact("directive_2", "[MANAGER] Otto (IT Manager): Order the $700 monitors for the support desks", {
        id: "ask",
        ts: at(2),
      }),
      message("Otto also settled the $700 catering bill for the offsite yesterday.", { ts: at(3) }),
    ]);
    const r = await ask(t, "What did Otto settle for the offsite?");
    expect(r.reasonFor("ask")).toBe("overridden");
    expect(r.context).toContain("catering bill");
  });

  it("a value within the higher rank's bound stands beside it", async () => {
    const t = await newThread();
    await t.events([
      fact(
        "directive_1",
        "[DIRECTOR] Rosa (Finance Director): Travel refunds up to $600 need no receipt review",
        {
          id: "rule",
          ts: at(1),
        },
      ),
      fact(
        "directive_2",
        "[MANAGER] Ben (Travel Manager): Refund the $450 travel costs of the Lisbon trip today",
        {
          id: "within",
          ts: at(2),
        },
      ),
    ]);
    const r = await ask(t, "Can we refund the Lisbon travel costs?");
    expect(r.reasonFor("within")).toBeUndefined();
    expect(r.context).toContain("$450");
    expect(r.context).toContain("$600");
  });

  it("a higher rank's deadline overrides a lower rank's estimate for the same deliverable", async () => {
    const t = await newThread();
    await t.events([
      fact("note_a", "[ANALYST] Pia (Data Analyst): The churn report needs 10 days of cleanup first", {
        id: "estimate",
        ts: at(1),
      }),
      fact("note_b", "[VP] Theo (VP Analytics): Deliver the churn report by Monday with what is clean", {
        id: "deadline",
        ts: at(2),
      }),
      message("Analyst Pia estimated 10 days for the churn report. VP Theo wants it by Monday.", {
        ts: at(3),
      }),
    ]);
    const r = await ask(t, "When is the churn report due?");
    expect(r.reasonFor("estimate")).toBe("overridden");
    expect(r.context).toContain("by Monday");
    expect(r.context).not.toContain("10 days");
  });

  it("a lower rank's counter-proposal ('… instead') to a higher rank's choice is overridden", async () => {
    const t = await newThread();
    await t.events([
      fact("note_a", "[DIRECTOR] Lena (Platform Director): Use Kafka for every new event pipeline", {
        id: "choice",
        ts: at(1),
      }),
      fact(
        "note_b",
        "[CONTRACTOR] Rafe (Freelance Developer): Pulsar would fit this pipeline, use it instead",
        {
          id: "counter",
          ts: at(2),
        },
      ),
    ]);
    const r = await ask(t, "Which broker should the new event pipeline use?");
    expect(r.reasonFor("counter")).toBe("overridden");
    expect(r.context).toContain("Kafka");
    expect(r.context).not.toContain("Pulsar");
  });

  it("the same speaker's later word that marks a change supersedes the earlier one", async () => {
    const t = await newThread();
    await t.events([
      fact(
        "note_a",
        "[DIRECTOR] Hana (Ops Director): The warehouse audit runs on Tuesday at the Leeds site",
        {
          id: "first",
          ts: at(1),
        },
      ),
      fact("note_b", "[DIRECTOR] Hana (Ops Director): The warehouse audit is cancelled for this quarter", {
        id: "later",
        ts: at(2),
      }),
    ]);
    const r = await ask(t, "Is the warehouse audit still on?");
    expect(r.reasonFor("first")).toBe("superseded");
    expect(r.context).toContain("cancelled");
    expect(r.context).not.toContain("Leeds");
  });

  it("equal ranks from different people both stay: a conflict for a person, not a guess", async () => {
    const t = await newThread();
    await t.events([
      fact("note_a", "[VP] Noor (VP Marketing): Spend the $40k reserve on the autumn trade show", {
        id: "show",
        ts: at(1),
      }),
      fact("note_b", "[VP] Emil (VP Sales): Spend the $40k reserve on two contract recruiters instead", {
        id: "hire",
        ts: at(2),
      }),
    ]);
    const r = await ask(t, "What should the $40k reserve go to?");
    expect(r.reasonFor("show")).toBeUndefined();
    expect(r.reasonFor("hire")).toBeUndefined();
    expect(r.context).toContain("trade show");
    expect(r.context).toContain("recruiters");
  });

  it("instructions that only name the same person, or share no word for the thing, stay apart", async () => {
    const t = await newThread();
    await t.events([
      fact("note_a", "[VP] Vic (VP Sales): Priya leads the renewal call with Northwind by Friday", {
        id: "call",
        ts: at(1),
      }),
      fact("note_b", "[MANAGER] Moe (Sales Manager): Priya takes 2 weeks of leave from the 20th", {
        id: "leave",
        ts: at(2),
      }),
      fact("note_c", "[INTERN] Lu (Sales Intern): Book the larger meeting room instead", {
        id: "room",
        ts: at(3),
      }),
    ]);
    const r = await ask(t, "What is Priya doing this month?");
    expect(r.reasonFor("call")).toBeUndefined();
    expect(r.reasonFor("leave")).toBeUndefined();
    expect(r.reasonFor("room")).toBeUndefined();
    expect(r.context).toContain("2 weeks of leave");
    expect(r.context).toContain("larger meeting room");
  });
});

/** The n-th attributed line of a test, filed under a generic key at minute n. */
const said = (n: number, id: string, text: string, extra: Record<string, unknown> = {}) =>
  fact(`directive_${n}`, text, { id, ts: at(n), ...extra });
const creditRule = said(
  0,
  "rule",
  "[DIRECTOR] Kofi (Support Director): Goodwill credits above $300 need director sign-off",
);
const travelCap = said(0, "cap", "[VP] Ines (VP Finance): Travel budget is capped at $2,000 per trip");

describe("what a lower rank asks for, in any form, is overridden", () => {
  it("a grant, a proposal, a plan, a commitment and a 'let's' beyond the bound", async () => {
    const t = await newThread();
    const forms = {
      grant: "Agents can offer goodwill credits of $450 to unhappy customers",
      proposal: "We could give the Initech account a $500 goodwill credit",
      plan: "The billing team plans to issue $600 goodwill credits this week",
      commitment: "I'm promising the Umbrella account a $700 goodwill credit",
      lets: "Let's settle the outage with $800 goodwill credits",
    };
    await t.events([
      creditRule,
      ...Object.entries(forms).map(([id, text], i) =>
        said(i + 1, id, `[MANAGER] Lea (Support Manager): ${text}`),
      ),
    ]);
    const r = await ask(t, "Which goodwill credits can we give?");
    for (const id of Object.keys(forms)) expect(r.reasonFor(id), id).toBe("overridden");
    expect(r.context).toContain("above $300");
  });
});

/**
 * Only what was asked for can be overridden: a report, an observation, a question or a restatement of
 * the rule shares words and a larger figure with a higher rank's rule without asking for anything, and
 * stays in view. Each of these was overridden before. Every sentence here is invented.
 */
describe("attributed lines that ask for nothing stay beside a higher rank's rule", () => {
  it("a report of what the figures show is kept, and so is the sentence that retells it", async () => {
    const t = await newThread();
    await t.events([
      travelCap,
      said(1, "report", "[ANALYST] Pia (Finance Analyst): The travel budget report shows $5,000 in savings"),
      message("Analyst Pia found $5,000 of travel budget savings in the report.", { ts: at(2) }),
    ]);
    const r = await ask(t, "What does the travel budget look like?");
    expect(r.reasonFor("report")).toBeUndefined();
    expect(r.reasonFor("cap")).toBeUndefined();
    expect(r.context).toContain("$5,000 in savings");
    expect(r.context).toContain("$2,000 per trip");
    expect(r.context).toContain("Pia found $5,000");
  });

  it("an observation of what happened is kept", async () => {
    const t = await newThread();
    await t.events([
      creditRule,
      said(
        1,
        "seen",
        "[MANAGER] Lea (Support Manager): We saw goodwill credits of $450 on three escalations",
      ),
    ]);
    const r = await ask(t, "How large were the goodwill credits?");
    expect(r.reasonFor("seen")).toBeUndefined();
    expect(r.context).toContain("credits of $450");
  });

  it("a question is kept, with or without its question mark, while the same figure asked for is overridden", async () => {
    const t = await newThread();
    await t.events([
      creditRule,
      said(
        1,
        "question",
        "[MANAGER] Lea (Support Manager): Could we give the Acme account a $450 goodwill credit?",
      ),
      said(2, "unmarked", "[MANAGER] Lea (Support Manager): Can we give Globex a $400 goodwill credit"),
      said(3, "request", "[MANAGER] Bo (Billing Manager): Give the Initech account a $450 goodwill credit"),
    ]);
    const r = await ask(t, "Which goodwill credits are planned?");
    expect(r.reasonFor("question")).toBeUndefined();
    expect(r.context).toContain("Acme account a $450");
    expect(r.reasonFor("unmarked")).toBeUndefined();
    expect(r.context).toContain("Globex a $400");
    expect(r.reasonFor("request")).toBe("overridden");
    expect(r.context).not.toContain("Initech");
  });

  it("a restatement of the rule, a refusal or a prohibition that names the larger figure is kept", async () => {
    const t = await newThread();
    const lines = {
      quote:
        "[ANALYST] Pia (Finance Analyst): Per Ines, trips over $2,000 need her sign-off, so the $2,600 fare is out",
      refusal: "[MANAGER] Otto (Travel Manager): Cancel the $2,900 travel booking for the Oslo trip",
      negated: "[MANAGER] Otto (Travel Manager): We should not book the $2,700 trip to Zurich",
    };
    await t.events([travelCap, ...Object.entries(lines).map(([id, text], i) => said(i + 1, id, text))]);
    const r = await ask(t, "Which trips fit the travel budget?");
    for (const id of Object.keys(lines)) expect(r.reasonFor(id), id).toBeUndefined();
    expect(r.context).toContain("$2,600 fare is out");
    expect(r.context).toContain("Cancel the $2,900 travel booking");
    expect(r.context).toContain("$2,700 trip to Zurich");
  });

  it("what an overridden line reported is not masked where it is retold; what it asked for is", async () => {
    const t = await newThread();
    await t.events([
      said(1, "cap", "[VP] Sana (VP People): Team dinners are capped at $500 per head"),
      said(
        2,
        "mixed",
        "[MANAGER] Otto (Ops Manager): Last quarter we spent $900 per head on the team dinner; book the spring dinner at $700 per head",
      ),
      message(
        "Otto noted that the winter dinner cost $900 per head. Otto wants the spring dinner at $700 per head.",
        {
          ts: at(3),
        },
      ),
    ]);
    const r = await ask(t, "What is planned for the spring dinner?");
    expect(r.reasonFor("mixed")).toBe("overridden");
    expect(r.context).toContain("winter dinner cost $900 per head");
    expect(r.context).not.toContain("$700");
  });

  it("the same speaker's later rule does not supersede their own report", async () => {
    const t = await newThread();
    await t.events([
      said(1, "report", "[VP] Ines (VP Finance): The travel budget report shows $5,000 in savings"),
      said(2, "rule", "[VP] Ines (VP Finance): The travel budget is now capped at $2,000 per trip"),
    ]);
    const r = await ask(t, "What does the travel budget look like?");
    expect(r.reasonFor("report")).toBeUndefined();
    expect(r.context).toContain("$5,000 in savings");
    expect(r.context).toContain("$2,000 per trip");
  });

  it("a task's instruction and the project's never settle each other, either way", async () => {
    const order = (id: string, extra: Record<string, unknown> = {}) =>
      said(2, id, "[MANAGER] Otto (IT Manager): Order the $3,200 laptops for the design group", extra);
    const capAt = (extra: Record<string, unknown> = {}) =>
      said(1, "cap", "[VP] Ines (VP Procurement): Laptop purchases are capped at $1,800 per person", extra);
    // A cap set for one task does not settle the project's standing order, even inside that task.
    const taskCap = await newThread();
    await taskCap.events([capAt({ scope: "task", scope_id: "bid-7" }), order("standing")]);
    const inTask = await ask(taskCap, "Which laptops can we order?", { task_id: "bid-7" });
    expect(inTask.reasonFor("cap")).toBeUndefined();
    expect(inTask.reasonFor("standing")).toBeUndefined();
    expect(inTask.context).toContain("$1,800");
    expect(inTask.context).toContain("$3,200 laptops");
    // Nor does the project's cap settle what was asked inside a task: both are left for a person.
    const taskAsk = await newThread();
    await taskAsk.events([capAt(), order("asked", { scope: "task", scope_id: "bid-9" })]);
    const otherTask = await ask(taskAsk, "Which laptops can we order?", { task_id: "bid-9" });
    expect(otherTask.reasonFor("asked")).toBeUndefined();
    expect(otherTask.context).toContain("$3,200 laptops");
    // The same two in one scope do settle: the order is overridden.
    const same = await newThread();
    await same.events([capAt(), order("ask")]);
    expect((await ask(same, "Which laptops can we order?")).reasonFor("ask")).toBe("overridden");
  });

  it("two wordings naming one registered thing, a higher cap and a lower offer: the offer is overridden", async () => {
    const t = await newThread();
    await t.events([
      said(1, "cap", "[VP] Vera (VP Sales): Discounts on Project Kestrel are capped at 15%"),
      // No common word for it: only the registry, where "Kestrel" is an alias of Project Kestrel, says
      // the offer is about the same thing.
      said(2, "offer", "[MANAGER] Mark (Sales Manager): Give the Kestrel account 25% off to close this week"),
    ]);
    const r = await ask(t, "What can we give the Kestrel account?");
    expect(r.reasonFor("offer")).toBe("overridden");
    expect(r.reasonFor("cap")).toBeUndefined();
    expect(r.context).toContain("15%");
    expect(r.context).not.toContain("25% off");
  });

  it("a near-miss registered thing is another matter: an offer to it stands beside the cap", async () => {
    const t = await newThread();
    await t.events([
      said(1, "cap", "[VP] Vera (VP Sales): Discounts on Project Kestrel are capped at 15%"),
      // "discount" is shared, but Kestrel Labs is not Project Kestrel.
      said(2, "offer", "[MANAGER] Mark (Sales Manager): Give Kestrel Labs a 25% discount this week"),
    ]);
    const r = await ask(t, "What discount can Kestrel Labs get?");
    expect(r.reasonFor("offer")).toBeUndefined();
    expect(r.context).toContain("25% discount");
    expect(r.context).toContain("capped at 15%");
  });
});
