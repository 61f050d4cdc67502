import { describe, expect, it } from "vitest";
import { WHOLE_PROJECT_VERSIONS } from "../src/facts/fact-candidates";
import { call, fact, message, newThread } from "./helpers";

type TestThread = Awaited<ReturnType<typeof newThread>>;

/**
 * Once a thread holds a project's newest versions and standing rules at the current revision, a new
 * question's own part of the fact search (its matches, the facts nearest it, their slots' versions) is
 * answered by the project's fact replica (src/project-index/fact-replica.ts), not by D1. What it answers
 * must be what D1 would: current facts of any age, never a superseded value, never another user's own.
 */

/**
 * More facts than the newest versions hold, so a question's matches must be searched for: tool
 * readings, the whole project's (not the writer's own).
 */
async function fillPast(t: TestThread, label: string): Promise<void> {
  const count = WHOLE_PROJECT_VERSIONS + 150;
  for (let start = 0; start < count; start += 325) {
    const events = Array.from({ length: Math.min(325, count - start) }, (_, i) => {
      const n = start + i;
      return fact(`${label}_${n}_reading`, `Gauge ${n} of the ${label} line reads ${n * 7} psi`, {
        ts: new Date(Date.UTC(2024, 2, 1, 0, 0, n)).toISOString(),
        source: { type: "tool" },
      });
    });
    expect((await t.events(events)).status).toBe(200);
  }
}

describe("the project's fact replica", () => {
  it("answers a new question with the current value of an old slot, and follows later writes", async () => {
    const t = await newThread();
    await t.events([fact("depot_city", "Our depot is in Spokane", { ts: "2024-01-01T00:00:00Z" })]);
    await t.events([fact("depot_city", "Our depot is in Tacoma", { ts: "2024-01-02T00:00:00Z" })]);
    await fillPast(t, "boiler");

    // The first compile reads the newest versions from D1; the next, new, question is the replica's.
    const first = await t.context({ query: "What does gauge 3 read?", budget_tokens: 800 });
    expect(first.status).toBe(200);
    const asked = await t.context({ query: "Which city is the depot in?", budget_tokens: 800 });
    expect(asked.json.trace.timings.facts_read).toBe("replica");
    expect(asked.json.context).toContain("Tacoma");
    expect(asked.json.context).not.toContain("Spokane");
    const facts = asked.json.trace.candidates.facts;
    expect(facts.matched).toBeGreaterThanOrEqual(1);
    // The superseded version is read as the slot's history, so it is judged dead, not absent.
    expect(facts.history).toBeGreaterThanOrEqual(1);

    // A later write moves the slot on: the replica reads it before it answers again.
    await t.events([fact("depot_city", "Our depot is in Boise", { ts: "2024-06-01T00:00:00Z" })]);
    await t.context({ query: "What does gauge 4 read?", budget_tokens: 800 });
    const again = await t.context({ query: "Where is our depot now?", budget_tokens: 800 });
    expect(again.json.trace.timings.facts_read).toBe("replica");
    expect(again.json.context).toContain("Boise");
    expect(again.json.context).not.toContain("Tacoma");
  }, 120_000);

  it("never answers one user's own fact to another user's question", async () => {
    const ada = await newThread({ user_id: "ada", user_name: "Ada", authority: "employee" });
    const bob = await newThread(
      { user_id: "bob", user_name: "Bob", authority: "employee" },
      { project: ada.project },
    );
    await ada.events([
      fact("ada_bike", "Ada parks her bike at the Lindqvist garage", { memory_type: "user" }),
    ]);
    await bob.events([fact("bob_bike", "Bob parks his bike at the Okafor garage", { memory_type: "user" })]);
    await fillPast(ada, "chiller");

    await bob.context({ query: "What does gauge 9 read?", budget_tokens: 800 });
    const bobs = await bob.context({ query: "Which garage is the bike parked at?", budget_tokens: 800 });
    expect(bobs.json.trace.timings.facts_read).toBe("replica");
    expect(bobs.json.context).toContain("Okafor");
    expect(bobs.json.context).not.toContain("Lindqvist");

    await ada.context({ query: "What does gauge 9 read?", budget_tokens: 800 });
    const adas = await ada.context({ query: "Which garage is the bike parked at?", budget_tokens: 800 });
    expect(adas.json.trace.timings.facts_read).toBe("replica");
    expect(adas.json.context).toContain("Lindqvist");
    expect(adas.json.context).not.toContain("Okafor");
  }, 120_000);

  it("follows an entity merge: facts that named the absorbed entity are the survivor's", async () => {
    const t = await newThread();
    // Older than every gauge reading, so only a search finds them.
    const old = { ts: "2024-01-01T00:00:00Z" };
    await t.events([
      fact("flour_supplier", "Ostrander Mills supplies the rye flour", old),
      fact("courier", "Velloway Freight collects the parcels on Tuesdays", old),
    ]);
    await fillPast(t, "oven");
    const named = async (name: string) =>
      (await call("GET", `/entities?project_id=${t.project}&name=${encodeURIComponent(name)}`)).json
        .entities[0] as { id: string };
    const mills = await named("Ostrander");
    const freight = await named("Velloway");

    await t.context({ query: "What does gauge 2 read?", budget_tokens: 800 });
    const question = { query: "Tell me what Velloway Freight handles.", budget_tokens: 800 };
    const before = await t.context(question);
    expect(before.json.trace.timings.facts_read).toBe("replica");
    expect(before.json.context).toContain("collects the parcels");
    // The courier fact is a match of the question's words; no other fact refers to the courier.
    expect(before.json.trace.candidates.facts.entity).toBe(0);

    // A made-up correction: the two are one supplier, under the courier's name.
    const merged = await call("POST", `/entities/${freight.id}/merge?as_user=u1`, { entity_id: mills.id });
    expect(merged.status, JSON.stringify(merged.json)).toBe(200);
    await t.context({ query: "What does gauge 3 read?", budget_tokens: 800 });
    const after = await t.context(question);
    expect(after.json.trace.timings.facts_read).toBe("replica");
    // The flour fact refers to the survivor now, in the replica too.
    expect(after.json.trace.candidates.facts.entity).toBe(1);
    expect(after.json.context).toContain("rye flour");
  }, 120_000);
});

/**
 * A correction filed under a slot of its own names the version it corrects (`supersedes`), and a figure
 * worked out from a value names that value (`depends_on`). Once newer facts push all of them out of the
 * newest versions, a question finds the correction by its words; the version it corrected must come
 * with it, or the corrected figure is not known to be dead and is compiled as if it still held.
 */
describe("a correction older than the newest versions", () => {
  it("keeps the figure it corrected out of the context", async () => {
    const t = await newThread();
    const at = (minute: number) => new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString();
    await t.events([
      fact("freight_quote", "The freight quote is $4,200 per container", { id: "fq-1", ts: at(0) }),
    ]);
    await t.events([
      fact("landed_cost", "Landed cost works out to $18.40 per unit", {
        id: "lc-1",
        ts: at(1),
        depends_on: ["fq-1"],
      }),
    ]);
    await t.events([
      fact("freight_quote_revised", "The freight quote is now $5,100 per container", {
        ts: at(2),
        supersedes: "fq-1",
      }),
    ]);
    await t.events([
      fact(
        "landed_cost_revised",
        "Needs recalculating on the new quote; it was: Landed cost works out to $18.40 per unit",
        {
          ts: at(3),
          supersedes: "lc-1",
        },
      ),
    ]);
    await fillPast(t, "kiln");

    const compiled = await t.context({ query: "What is the landed cost per unit?", budget_tokens: 800 });
    expect(compiled.json.trace.timings.facts_read).toBe("replica");
    expect(compiled.json.context).toContain("Needs recalculating");
    expect(compiled.json.context).not.toContain("$18.40");
    // The corrected version is a candidate (history), judged dead rather than absent.
    expect(compiled.json.trace.candidates.facts.history).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it("keeps the first figure of a correction of a correction out, two references back", async () => {
    const t = await newThread();
    const at = (minute: number) => new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString();
    await t.events([
      message("Halden Freight wants a 25% discount on the renewal. I got VP approval.", { ts: at(0) }),
      fact("halden_discount", "25% discount approved for Halden Freight", { ts: at(1) }),
    ]);
    // Each correction is filed under a slot of its own and names the slot it corrects.
    await t.events([
      fact("halden_discount_v2", "Discount for Halden Freight revoked; credit hold", {
        ts: at(2),
        supersedes: "halden_discount",
      }),
    ]);
    await t.events([
      fact("halden_discount_v3", "Discount for Halden Freight revoked; margin floor", {
        ts: at(3),
        supersedes: "halden_discount_v2",
      }),
    ]);
    await fillPast(t, "kiln");

    const compiled = await t.context({
      query: "Is the Halden margin floor still in force?",
      budget_tokens: 800,
    });
    expect(compiled.json.trace.timings.facts_read).toBe("replica");
    expect(compiled.json.context).toContain("margin floor");
    // The turn that stated the first figure is judged against the whole chain: its figure is dead.
    expect(compiled.json.context).not.toContain("25%");
  }, 120_000);

  it("follows a chain of corrections to its end, however many references long", async () => {
    const t = await newThread();
    const at = (minute: number) => new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString();
    await t.events([
      message("The Orrin Ferries quote is $7,350 for the charter.", { ts: at(0) }),
      fact("orrin_quote", "Orrin Ferries quoted $7,350 for the charter", { ts: at(1) }),
    ]);
    // Twelve corrections, each filed under a slot of its own and naming the one before.
    for (let n = 1; n <= 12; n++) {
      const corrected = n === 1 ? "orrin_quote" : `orrin_quote_r${n - 1}`;
      await t.events([
        fact(`orrin_quote_r${n}`, `Revision ${n} of the Orrin Ferries charter quote: on hold`, {
          ts: at(1 + n),
          supersedes: corrected,
        }),
      ]);
    }
    await fillPast(t, "kiln");

    const compiled = await t.context({ query: "What is the status of revision 12?", budget_tokens: 800 });
    expect(compiled.json.trace.timings.facts_read).toBe("replica");
    expect(compiled.json.context).toContain("Revision 12");
    // Twelve references back, the first quote is still known to be dead.
    expect(compiled.json.context).not.toContain("$7,350");
  }, 120_000);
});

/**
 * In a project other threads write to, the newest versions can all be theirs. A thread's own current
 * facts stay candidates (`thread`) whatever else the project holds, with their slots' earlier versions:
 * a question about the conversation at hand need not share a word with what it settled.
 */
describe("a thread's own facts in a busy project", () => {
  it("are compiled when asked about in other words, without their superseded values", async () => {
    const mine = await newThread();
    const other = await newThread(undefined, { project: mine.project });
    await mine.events([fact("working_title", "Hot Streets", { ts: "2024-01-01T00:00:00Z" })]);
    await mine.events([fact("working_title", "Shade Is Infrastructure", { ts: "2024-01-02T00:00:00Z" })]);
    await fillPast(other, "press");

    const compiled = await mine.context({ query: "What are we calling episode 42?", budget_tokens: 800 });
    expect(compiled.status).toBe(200);
    expect(compiled.json.context).toContain("Shade Is Infrastructure");
    expect(compiled.json.context).not.toContain("Hot Streets");
    const facts = compiled.json.trace.candidates.facts;
    // Found as the thread's own: no word of the question is in it.
    expect(facts.thread).toBe(1);
    // The other thread's question finds none of it: it is this thread's own, not an always-on set.
    const theirs = await other.context({ query: "What are we calling episode 42?", budget_tokens: 800 });
    expect(theirs.json.context).not.toContain("Shade Is Infrastructure");
    expect(theirs.json.trace.candidates.facts.thread).toBe(0);
  }, 120_000);
});
