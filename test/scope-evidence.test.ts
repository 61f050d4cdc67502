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
