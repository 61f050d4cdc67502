import { describe, expect, it } from "vitest";
import { ask, message, newThread } from "./helpers";

/**
 * Issue 16, items 1, 2 and 5, through the public API with the offline rule extractor: a proposal put to
 * the conversation (floated, pressed by someone, asked as "would it be crazy to …?") supposes; a later
 * turn takes it up by naming it, even after the decision was put off; and the assistant's own result,
 * worked out again on new figures, retires the one it gave before.
 */

const day = (d: number, minute: number) => new Date(Date.UTC(2025, 8, d, 18, minute)).toISOString();
type Turn = [id: string, role: "user" | "assistant", text: string, ts: string];

async function heard(...turns: Turn[]) {
  const t = await newThread();
  await t.events(turns.map(([id, role, text, ts]) => message(text, { id, role, ts })));
  return t;
}

describe("proposals suppose", () => {
  it("an idea someone floats or keeps pressing stays out of the real answer, with the reply about it", async () => {
    const t = await heard(
      [
        "p1",
        "user",
        "The reunion picnic is Sunday, August 9, at Larkspur Park. We expect 60 people.",
        day(1, 0),
      ],
      [
        "p2",
        "user",
        "My uncle keeps pushing a Saturday picnic instead, the pavilion would be free.",
        day(1, 2),
      ],
      [
        "p3",
        "assistant",
        "A Saturday picnic would get you the pavilion, but two families work Saturdays.",
        day(1, 3),
      ],
      ["p4", "user", "Dana also floated capping it at 45 to save on food.", day(1, 4)],
      ["p5", "assistant", "At 45 people the food order drops by about a quarter.", day(1, 5)],
    );
    const ctx = await ask(t, "When is the reunion picnic and how many people are coming?");
    expect(ctx.context).toContain("Sunday, August 9");
    for (const id of ["p2", "p3", "p4", "p5"]) expect(ctx.reasonFor(id)).toBe("out_of_scope");
    expect(ctx.context).not.toContain("Saturday picnic");
    expect(ctx.context).not.toContain("capping it at 45");
    expect(ctx.context).not.toContain("At 45 people");
  });

  it("a floated idea that supposes no value stays in view", async () => {
    const t = await heard(
      ["q1", "user", "The reunion picnic is at Larkspur Park.", day(1, 0)],
      ["q2", "user", "My cousin floated bringing a croquet set along.", day(1, 1)],
    );
    const ctx = await ask(t, "What did my cousin suggest bringing?");
    expect(ctx.reasonFor("q2")).toBeUndefined();
    expect(ctx.context).toContain("croquet set");
  });
});

describe("a supposing question taken up makes its value current", () => {
  const asked: Turn[] = [
    ["x1", "user", "The pottery class showcase is on March 14.", day(7, 0)],
    ["x2", "user", "What if we pushed the showcase to March 28?", day(7, 1)],
  ];

  it("taken up, the supposed date replaces the old one", async () => {
    const t = await heard(...asked, ["x3", "user", "Yes, let's do that.", day(7, 2)]);
    const ctx = await ask(t, "When is the pottery showcase?");
    expect(ctx.context).toContain("March 28");
    expect(ctx.context).not.toContain("March 14");
  });

  it("left alone, it stays a supposition and the date stands", async () => {
    const t = await heard(...asked, ["x3", "user", "The kiln is booked through Friday.", day(7, 2)]);
    const ctx = await ask(t, "When is the pottery showcase?");
    expect(ctx.context).toContain("March 14");
    expect(ctx.context).not.toContain("March 28");
  });
});

describe("a proposal is taken up by name", () => {
  const proposal: Turn[] = [
    [
      "r1",
      "user",
      "Flooring update: we're set on the Aspen Oak plank, the installer quote is $8,450.",
      day(2, 0),
    ],
    ["r2", "assistant", "Aspen Oak plank, installed for $8,450.", day(2, 1)],
    ["r3", "user", "Would it be crazy to go with the Birch Mist laminate instead? It's $6,900.", day(2, 2)],
    ["r4", "assistant", "Birch Mist would save $1,550, though laminate scratches more easily.", day(2, 3)],
    ["r5", "user", "Let me sleep on it.", day(2, 4)],
  ];

  it("named days later, it becomes current and the turn that said the old value leaves", async () => {
    const t = await heard(...proposal);
    const pending = await ask(t, "What is the installer quote for the floor?");
    expect(pending.context).toContain("$8,450");
    // Days later, in a request (and an extraction run) of its own.
    await t.events([
      message("We walked on both samples again. Fine, we'll take the Birch Mist.", {
        id: "r6",
        ts: day(5, 0),
      }),
    ]);
    const ctx = await ask(t, "What is the installer quote for the floor?");
    expect(ctx.context).toContain("$6,900");
    expect(ctx.context).not.toContain("$8,450");
    expect(ctx.reasonFor("r1")).toBeDefined();
    // The proposal itself was never hidden: it said what it proposed in so many words.
    expect(ctx.reasonFor("r3")).toBeUndefined();
  });

  it("turned down by keeping what stood, the proposal and the reply about it leave the context", async () => {
    const t = await heard(...proposal, [
      "r6",
      "user",
      "Nah, we're keeping the Aspen Oak, it feels warmer underfoot.",
      day(5, 0),
    ]);
    const ctx = await ask(t, "What is the installer quote for the floor?");
    expect(ctx.context).toContain("$8,450");
    expect(ctx.reasonFor("r3")).toBe("out_of_scope");
    expect(ctx.reasonFor("r4")).toBe("out_of_scope");
    expect(ctx.context).not.toContain("$6,900");
  });

  it("a courtesy is no verdict: the proposal stays in view", async () => {
    const t = await heard(...proposal, ["r6", "user", "I'll keep you posted.", day(2, 6)]);
    const ctx = await ask(t, "What did we say about the Birch Mist laminate?");
    expect(ctx.reasonFor("r3")).toBeUndefined();
    expect(ctx.context).toContain("It's $6,900.");
  });

  it("other ways of asking, taking up and turning down read the same", async () => {
    const asks = [
      "What about the Birch Mist laminate instead? It's $6,900.",
      "Should we just switch to the Birch Mist laminate? It's $6,900.",
    ];
    const takes = ["The Birch Mist it is.", "We went with the Birch Mist after all."];
    for (const [i, asked] of asks.entries()) {
      const t = await heard(
        proposal[0] as Turn,
        ["r3", "user", asked, day(2, 2)],
        ["r6", "user", takes[i] as string, day(5, 0)],
      );
      const ctx = await ask(t, "What is the installer quote for the floor?");
      expect(ctx.context).toContain("$6,900");
      expect(ctx.context).not.toContain("$8,450");
    }
    for (const turnedDown of ["We decided against it.", "I'll pass."]) {
      const t = await heard(...proposal, ["r6", "user", turnedDown, day(2, 6)]);
      const ctx = await ask(t, "What is the installer quote for the floor?");
      expect(ctx.context).toContain("$8,450");
      expect(ctx.reasonFor("r3")).toBe("out_of_scope");
    }
  });

  it("a choice that names something else adopts nothing", async () => {
    const t = await heard(...proposal, [
      "r6",
      "user",
      "We'll take the kids to the hardware store on Saturday.",
      day(5, 0),
    ]);
    const ctx = await ask(t, "What is the installer quote for the floor?");
    expect(ctx.context).toContain("$8,450");
    expect(ctx.reasonFor("r1")).toBeUndefined();
  });
});

describe("the assistant's recomputed result retires its earlier one", () => {
  it("the same per-month figure worked out again on new terms replaces the first", async () => {
    const t = await heard(
      ["s1", "user", "Leasing the van through Harbor Credit at 6.1% over 48 months.", day(3, 0)],
      ["s2", "assistant", "Harbor Credit at 6.1% over 48 months: roughly $612 a month.", day(3, 1)],
      ["s3", "user", "The dealer knocked the price down to $27,800.", day(3, 2)],
      [
        "s4",
        "assistant",
        "Harbor Credit, 6.1% over 48 months on $27,800 comes to about $655 a month.",
        day(3, 3),
      ],
    );
    const ctx = await ask(t, "What will the van cost us per month?");
    expect(ctx.context).toContain("$655 a month");
    expect(ctx.context).not.toContain("$612");
  });

  it("the unit may come first", async () => {
    const t = await heard(
      ["v1", "user", "Leasing the van through Harbor Credit at 6.1% over 48 months.", day(3, 0)],
      ["v2", "assistant", "At 6.1% over 48 months, your monthly payment comes to about $612.", day(3, 1)],
      ["v3", "user", "The dealer knocked the price down to $27,800.", day(3, 2)],
      [
        "v4",
        "assistant",
        "At 6.1% over 48 months on $27,800, the monthly payment is roughly $655.",
        day(3, 3),
      ],
    );
    const ctx = await ask(t, "What will the van cost us per month?");
    expect(ctx.context).toContain("roughly $655");
    expect(ctx.context).not.toContain("$612");
  });

  it("a saving per month, or a rate of something else, retires nothing", async () => {
    const t = await heard(
      ["u1", "user", "Leasing the van through Harbor Credit at 6.1% over 48 months.", day(4, 0)],
      ["u2", "assistant", "Harbor Credit at 6.1% over 48 months: roughly $612 a month.", day(4, 1)],
      ["u3", "user", "What would a shorter lease save?", day(4, 2)],
      ["u4", "assistant", "A 36-month lease saves about $40 a month in interest.", day(4, 3)],
      ["u5", "user", "And the parking spot downtown?", day(4, 4)],
      ["u6", "assistant", "The garage on Pike runs about $180 a month.", day(4, 5)],
    );
    const ctx = await ask(t, "What is the monthly lease payment on the van?");
    expect(ctx.context).toContain("$612 a month");
    expect(ctx.reasonFor("u2")).toBeUndefined();
  });
});

describe("a comma splice states its figure", () => {
  it("the quote spliced after a choice is a value, and a later quote replaces it", async () => {
    const t = await heard(
      ["w1", "user", "Kitchen update: we picked the slate tiles, the tile quote is $2,300.", day(6, 0)],
      ["w2", "user", "The tile quote is $2,650 now.", day(6, 1)],
    );
    const ctx = await ask(t, "What is the tile quote?");
    expect(ctx.context).toContain("$2,650");
    expect(ctx.context).not.toContain("$2,300");
  });
});
