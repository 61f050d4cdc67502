import { describe, expect, it } from "vitest";
import { message, newThread } from "./helpers";

/**
 * Issue 16, items 1 and 2, through the public API with the offline rule extractor: a gate that hides
 * content needs strong, specific evidence, and a scope inferred from the conversation closes itself.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 4, 6, 10, minute)).toISOString();
const omitted = (ctx: any, id: string) => ctx.json.trace.omitted.find((o: any) => o.object_id === id);

describe("gates weigh evidence", () => {
  it("a hedge in one sentence scopes that sentence's value, never the rest of the turn", async () => {
    const t = await newThread();
    await t.events([
      message("The kickoff is May 5.", { id: "k1", ts: at(1) }),
      message("The caterer called back this morning. The kickoff would be May 12 if the hall is free.", {
        id: "k2",
        ts: at(2),
      }),
    ]);
    const ctx = await t.context({ query: "What did the caterer say about the kickoff?" });
    expect(omitted(ctx, "k2")).toBeUndefined();
    expect(ctx.json.context).toContain("The caterer called back this morning.");
    // The supposed date is still no fact: the kickoff stays May 5.
    expect(omitted(ctx, "x:k2:kickoff")).toMatchObject({ reason: "out_of_scope" });
    expect(omitted(ctx, "x:k1:kickoff")).toBeUndefined();
  });

  it("a topic word is no opener: 'let's explore' the canal paths hides nothing that follows", async () => {
    const t = await newThread();
    await t.events([
      message("Let's explore the canal paths near Utrecht this weekend.", { id: "c1", ts: at(1) }),
      message("I booked the bike rental for Saturday at 9.", { id: "c2", ts: at(2) }),
      message("The rental shop is next to the station.", { id: "c3", ts: at(3) }),
    ]);
    const ctx = await t.context({ query: "When is the bike rental?" });
    for (const id of ["c1", "c2", "c3"]) expect(omitted(ctx, id)?.reason).not.toBe("out_of_scope");
    expect(ctx.json.context).toContain("I booked the bike rental for Saturday at 9.");
  });

  it("a turn that frames a supposed value explicitly stays out of a real answer", async () => {
    const t = await newThread();
    await t.events([
      message("The security deposit is $650.", { id: "d1", ts: at(1) }),
      message("What if the deposit were $900 instead?", { id: "d2", ts: at(2) }),
    ]);
    const ctx = await t.context({ query: "How much is the security deposit?" });
    expect(ctx.json.context).toContain("$650");
    expect(ctx.json.context).not.toContain("$900");
    expect(omitted(ctx, "d2")).toMatchObject({ reason: "out_of_scope" });
  });

  it("a question about a scenario, with no value supposed, stays in the conversation", async () => {
    const t = await newThread();
    await t.events([
      message("The export job writes one CSV per warehouse.", { id: "e1", ts: at(1) }),
      message("What if a warehouse has no orders that day, does the job still write an empty file?", {
        id: "e2",
        ts: at(2),
      }),
    ]);
    const ctx = await t.context({ query: "Does the export job write an empty file for a warehouse?" });
    expect(omitted(ctx, "e2")).toBeUndefined();
    expect(ctx.json.context).toContain("does the job still write an empty file?");
  });
});

describe("scopes close themselves", () => {
  const brainstorm = (id: string, minute: number) =>
    message("Let's brainstorm names for the bakery. This is just exploratory.", { id, ts: at(minute) });

  it("an exploratory stretch nobody closes ends with its sitting", async () => {
    const t = await newThread();
    const nextDay = new Date(Date.UTC(2025, 4, 7, 9, 0)).toISOString();
    await t.events([
      brainstorm("b1", 1),
      message("Crumb and Company could work as a name.", { id: "b2", ts: at(2) }),
      message("We signed the lease for the Elm Street shop.", { id: "b3", ts: nextDay }),
    ]);
    const ctx = await t.context({ query: "Which shop did we sign the lease for?" });
    expect(omitted(ctx, "b2")).toMatchObject({ reason: "out_of_scope" });
    expect(omitted(ctx, "b3")).toBeUndefined();
    expect(ctx.json.context).toContain("We signed the lease for the Elm Street shop.");
  });

  it("an exploratory stretch ends after a few turns, or at a change of topic", async () => {
    const t = await newThread();
    const ideas = ["Flour Power", "The Daily Loaf", "Knead to Know", "Rise and Shine", "Proof Positive"];
    await t.events([
      brainstorm("n1", 1),
      ...ideas.map((idea, i) => message(`Maybe ${idea} as a name.`, { id: `n${i + 2}`, ts: at(i + 2) })),
      message("Or something with sourdough in it.", { id: "n7", ts: at(7) }),
      message("The oven delivery is booked for June 2.", { id: "n8", ts: at(8) }),
    ]);
    const ctx = await t.context({ query: "When is the oven delivery?" });
    expect(omitted(ctx, "n2")).toMatchObject({ reason: "out_of_scope" });
    expect(omitted(ctx, "n8")).toBeUndefined();

    const u = await newThread();
    await u.events([
      brainstorm("m1", 1),
      message("Maybe The Daily Loaf.", { id: "m2", ts: at(2) }),
      message("Anyway, the plumber comes Thursday at 8.", { id: "m3", ts: at(3) }),
    ]);
    const other = await u.context({ query: "When does the plumber come?" });
    expect(omitted(other, "m2")).toMatchObject({ reason: "out_of_scope" });
    expect(omitted(other, "m3")).toBeUndefined();
    expect(other.json.context).toContain("the plumber comes Thursday at 8.");
  });

  it("a stretch adopted later becomes current: its turns come back and its values are facts", async () => {
    const t = await newThread();
    await t.events([
      message("The venue deposit is $1,200.", { id: "v1", ts: at(1) }),
      message("Let's brainstorm venues. This is just exploratory.", { id: "v2", ts: at(2) }),
      message("The deposit would be $1,750 for the riverside barn.", { id: "v3", ts: at(3) }),
    ]);
    const before = await t.context({ query: "What is the venue deposit?" });
    expect(omitted(before, "v3")).toMatchObject({ reason: "out_of_scope" });
    expect(before.json.context).not.toContain("$1,750");

    // A later turn, extracted in a run of its own, adopts what the stretch said.
    await t.events([message("Let's go with that.", { id: "v4", ts: at(4) })]);
    const after = await t.context({ query: "What is the venue deposit?" });
    expect(omitted(after, "v3")).toBeUndefined();
    expect(after.json.context).toContain("$1,750");
    expect(omitted(after, "x:v1:venue_deposit")).toMatchObject({ reason: "superseded" });
  });

  it("a single supposition can be adopted by the next turn, or turned down", async () => {
    const t = await newThread();
    await t.events([
      message("Dinner with the Okafors is at 7pm.", { id: "o1", ts: at(1) }),
      message("What if we moved dinner to 8:30pm?", { id: "o2", ts: at(2) }),
      message("Yes, let's do that.", { id: "o3", ts: at(3) }),
    ]);
    const adopted = await t.context({ query: "When is dinner with the Okafors?" });
    expect(omitted(adopted, "o2")).toBeUndefined();
    expect(adopted.json.context).toContain("8:30pm");

    const u = await newThread();
    await u.events([
      message("Dinner with the Okafors is at 7pm.", { id: "p1", ts: at(1) }),
      message("What if we moved dinner to 8:30pm?", { id: "p2", ts: at(2) }),
      message("Never mind, the kids need to be in bed by nine.", { id: "p3", ts: at(3) }),
    ]);
    const declined = await u.context({ query: "When is dinner with the Okafors?" });
    expect(omitted(declined, "p2")).toMatchObject({ reason: "out_of_scope" });
    expect(declined.json.context).not.toContain("8:30pm");
  });
});
