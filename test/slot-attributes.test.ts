import { describe, expect, it } from "vitest";
import { ask, call, message, newThread } from "./helpers";

/**
 * One thing, several attributes: a time, a place and who pays for an event are different slots of
 * that event (entity plus attribute), so a later value of one attribute never supersedes another's. A
 * change of the same attribute, in whatever words, still does. Read by the offline rule extractor
 * and checked through the public API.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 4, 12, 8, minute)).toISOString();
/** A colleague's turn in the thread: Ines speaks, the thread's own user is someone else. */
const ines = (content: string, id: string, minute: number) =>
  message(content, { id, ts: at(minute), speaker: "Ines" });
const INTERN = { user_id: "u-intern", user_name: "Pavel", authority: "intern" };
const DIRECTOR = { user_id: "u-dir", user_name: "Rosa", authority: "director" };

async function current(thread: string) {
  const state = await call("GET", `/threads/${thread}/state`);
  return state.json.facts
    .filter((f: any) => f.is_valid)
    .map((f: any) => [f.key, f.value])
    .sort();
}

const BREAKFAST = [
  ines("Quick note for the rota. The volunteer breakfast is at 8am on Saturday.", "b1", 1),
  ines("Update: the volunteer breakfast moved to the Copper Kettle.", "b2", 2),
];

describe("attributes of one thing are separate slots", () => {
  it("a time, a place and who pays for one event all stay current", async () => {
    const t = await newThread(DIRECTOR);
    await t.events([...BREAKFAST, ines("The volunteer breakfast is paid by the foundation.", "b3", 3)]);
    const ctx = await ask(t, "When and where is the volunteer breakfast, and who pays?");
    expect(ctx.context).toContain("8am on Saturday");
    expect(ctx.context).toContain("the Copper Kettle");
    expect(ctx.context).toContain("paid by the foundation");
    expect(ctx.reasonFor("b1")).toBeUndefined();
    expect(ctx.reasonFor("b2")).toBeUndefined();
    const facts = await current(t.thread);
    expect(facts).toHaveLength(3);
    expect(facts.map((f: string[]) => f[1]).sort()).toEqual([
      "8am on Saturday",
      "paid by the foundation",
      "the Copper Kettle",
    ]);
  });

  it("a confidential payer the caller may not see never takes the time and the place with it", async () => {
    const t = await newThread(INTERN);
    await t.events([
      ...BREAKFAST,
      ines(
        "Confidential: the grant is late this year. The volunteer breakfast is paid by the foundation.",
        "b3",
        3,
      ),
    ]);
    const ctx = await ask(t, "When and where is the volunteer breakfast?");
    expect(ctx.context).toContain("8am on Saturday");
    expect(ctx.context).toContain("the Copper Kettle");
    expect(ctx.context).not.toContain("foundation");
    expect(ctx.reasonFor("b1")).toBeUndefined();
    expect(ctx.reasonFor("b2")).toBeUndefined();
    expect(ctx.reasonFor("b3")).toBe("not_permitted");

    // A caller with the clearance sees all three, none superseded.
    const all = await call("GET", `/facts?as_user=u-intern&roles=director`);
    const breakfast = all.json.facts.filter((f: any) => f.key.startsWith("volunteer_breakfast"));
    expect(breakfast.map((f: any) => [f.value, f.is_valid]).sort()).toEqual([
      ["8am on Saturday", true],
      ["paid by the foundation", true],
      ["the Copper Kettle", true],
    ]);
  });

  it("a later change of one attribute supersedes only that attribute", async () => {
    const t = await newThread(DIRECTOR);
    await t.events([...BREAKFAST, ines("The volunteer breakfast is paid by the foundation.", "b3", 3)]);
    await t.events([ines("Heads up, the volunteer breakfast moved to the Maple Diner.", "b4", 4)]);
    await t.events([ines("And the volunteer breakfast moved to 9:30am.", "b5", 5)]);
    const ctx = await ask(t, "When and where is the volunteer breakfast?");
    expect(ctx.context).toContain("the Maple Diner");
    expect(ctx.context).toContain("9:30am");
    expect(ctx.context).toContain("paid by the foundation");
    expect(ctx.context).not.toContain("Copper Kettle");
    expect(ctx.context).not.toContain("8am on Saturday");
    expect((await current(t.thread)).map((f: string[]) => f[1]).sort()).toEqual([
      "9:30am",
      "paid by the foundation",
      "the Maple Diner",
    ]);
  });
});

describe("when unsure, the value stays the slot's; when surely another attribute, both stay", () => {
  it("'a potluck' is surely no time: 'at 10am on Sunday' stands beside it", async () => {
    const t = await newThread(DIRECTOR);
    await t.events([ines("The bake sale is a potluck.", "p1", 1)]);
    await t.events([ines("The bake sale is at 10am on Sunday.", "p2", 2)]);
    const ctx = await ask(t, "What do we know about the bake sale?");
    expect(ctx.context).toContain("a potluck");
    expect(ctx.context).toContain("10am on Sunday");
    expect((await current(t.thread)).map((f: string[]) => f[1]).sort()).toEqual([
      "10am on Sunday",
      "a potluck",
    ]);
  });

  it("'TBD' and 'three weeks out' may be the time in other words: the date replaces them", async () => {
    const t = await newThread(DIRECTOR);
    await t.events([
      ines("The release party is TBD.", "q1", 1),
      ines("The garden tour is three weeks out.", "q2", 2),
    ]);
    await t.events([
      ines("The release party is at 7pm on Friday.", "q3", 3),
      ines("The garden tour moved to June 8.", "q4", 4),
    ]);
    const ctx = await ask(t, "When are the release party and the garden tour?");
    expect(ctx.context).not.toContain("TBD");
    expect(ctx.context).not.toContain("three weeks out");
    expect((await current(t.thread)).map((f: string[]) => f[1]).sort()).toEqual(["7pm on Friday", "June 8"]);
  });

  it("a correction naming no slot ('make that 1pm') finds the time, never the place", async () => {
    const t = await newThread(DIRECTOR);
    await t.events(BREAKFAST);
    await t.events([ines("Make that 9am.", "m3", 3)]);
    const ctx = await ask(t, "When and where is the volunteer breakfast?");
    expect(ctx.context).toContain("the Copper Kettle");
    expect(ctx.context).not.toContain("8am on Saturday");
    expect((await current(t.thread)).map((f: string[]) => f[1]).sort()).toEqual(["9am", "the Copper Kettle"]);
  });
});

describe("the same attribute in other words still supersedes", () => {
  it.each([
    [
      "a time moved to another time",
      "The sprint demo is at 2pm on Wednesday.",
      "The sprint demo moved to 4:15pm.",
      "2pm on Wednesday",
      "4:15pm",
    ],
    [
      "a venue moved to another venue",
      "The alumni dinner is at the Juniper Room.",
      "The alumni dinner moved to the Foundry Hall.",
      "Juniper Room",
      "the Foundry Hall",
    ],
    [
      "'is now on Thursday' after 'on Tuesday'",
      "The budget review is on Tuesday.",
      "The budget review is now on Thursday.",
      "Tuesday",
      "on Thursday",
    ],
  ])("%s", async (_name, first, second, old, now) => {
    const t = await newThread(DIRECTOR);
    await t.events([ines(first, "s1", 1)]);
    await t.events([ines(second, "s2", 2)]);
    const ctx = await ask(t, "When and where is it?");
    expect(ctx.context).toContain(now);
    expect(ctx.context).not.toContain(old);
    expect((await current(t.thread)).map((f: string[]) => f[1])).toEqual([now]);
  });
});
