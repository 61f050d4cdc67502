import { describe, expect, it } from "vitest";
import { ask, message, newThread } from "./helpers";

/**
 * Issue 16, items 1 and 2, through the public API with the offline rule extractor: a gate that hides
 * content needs strong, specific evidence, and a scope inferred from the conversation closes itself.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 4, 6, 10, minute)).toISOString();

/** A fresh thread that heard these user turns, `[id, text]`, a minute apart. */
async function heard(...turns: [string, string][]) {
  const t = await newThread();
  await t.events(turns.map(([id, text], i) => message(text, { id, ts: at(i + 1) })));
  return t;
}

describe("gates weigh evidence", () => {
  it("a hedge in one sentence scopes that sentence's value, never the rest of the turn", async () => {
    const t = await heard(
      ["k1", "The kickoff is May 5."],
      ["k2", "The caterer called back this morning. The kickoff would be May 12 if the hall is free."],
    );
    const ctx = await ask(t, "What did the caterer say about the kickoff?");
    expect(ctx.reasonFor("k2")).toBeUndefined();
    expect(ctx.context).toContain("The caterer called back this morning.");
    // The supposed date is still no fact: the kickoff stays May 5.
    expect(ctx.reasonFor(`xt:${t.thread}:k2:kickoff`)).toBe("out_of_scope");
    expect(ctx.reasonFor(`xt:${t.thread}:k1:kickoff`)).toBeUndefined();
    expect(ctx.trace.compiled.map((c: any) => c.object_id)).toContain(`xt:${t.thread}:k1:kickoff`);
  });

  it("a topic word is no opener: 'let's explore' the canal paths hides nothing that follows", async () => {
    const t = await heard(
      ["c1", "Let's explore the canal paths near Utrecht this weekend."],
      ["c2", "I booked the bike rental for Saturday at 9."],
      ["c3", "The rental shop is next to the station."],
    );
    const ctx = await ask(t, "When is the bike rental?");
    for (const id of ["c1", "c2", "c3"]) expect(ctx.reasonFor(id)).not.toBe("out_of_scope");
    expect(ctx.context).toContain("I booked the bike rental for Saturday at 9.");
  });

  it("a turn that frames a supposed value explicitly stays out of a real answer", async () => {
    const t = await heard(
      ["d1", "The security deposit is $650."],
      ["d2", "What if the deposit were $900 instead?"],
    );
    const ctx = await ask(t, "How much is the security deposit?");
    expect(ctx.context).toContain("$650");
    expect(ctx.context).not.toContain("$900");
    expect(ctx.reasonFor("d2")).toBe("out_of_scope");
  });

  it("a supposition opening a turn never hides a plain statement of another matter after it", async () => {
    const cases: [string, string, string][] = [
      [
        "Imagine a bowl shaped like a seashell. My instructor is called Petra Lund.",
        "Who is my instructor?",
        "instructor",
      ],
      [
        "Suppose we try a blue glaze. The kiln is booked for Friday at 9am.",
        "When is the kiln booked?",
        "kiln",
      ],
      [
        "What if we tried a blue glaze? Anyway, the kiln is booked for Friday at 9am.",
        "When is the kiln booked?",
        "kiln",
      ],
    ];
    for (const [text, query, key] of cases) {
      const t = await heard(["s1", text]);
      const ctx = await ask(t, query);
      expect(ctx.reasonFor("s1"), text).toBeUndefined();
      expect(ctx.reasonFor(`xt:${t.thread}:s1:${key}`), text).toBeUndefined();
      expect(ctx.context, text).toContain(`- ${key}: `);
      expect(ctx.context, text).toContain(text);
    }
    const fact = await ask(await heard(["s1", cases[0]?.[0] ?? ""]), "Who is my instructor?");
    expect(fact.context).toMatch(/instructor: called Petra Lund/);
  });

  it("the sentences that go on supposing stay with the supposition", async () => {
    const t = await heard(
      ["r1", "The studio rent is $1,150."],
      ["r2", "Suppose the studio rent went up to $1,400. Then the pottery classes would cost more."],
      ["r3", "What if the open day moved to May 10? The open day needs new flyers."],
      ["r4", "Suppose we hired a second teacher. Payroll is $4,800 a month then."],
    );
    const ctx = await ask(t, "What is the studio rent?");
    expect(ctx.reasonFor("r2")).toBe("out_of_scope");
    expect(ctx.reasonFor("r3")).toBe("out_of_scope");
    expect(ctx.reasonFor("r4")).toBe("out_of_scope");
    expect(ctx.context).toContain("$1,150");
    expect(ctx.context).not.toContain("$1,400");
    expect(ctx.context).not.toContain("May 10");
    expect(ctx.context).not.toContain("$4,800");
  });

  it("a question about a scenario, with no value supposed, stays in the conversation", async () => {
    const t = await heard(
      ["e1", "The export job writes one CSV per warehouse."],
      ["e2", "What if a warehouse has no orders that day, does the job still write an empty file?"],
    );
    const ctx = await ask(t, "Does the export job write an empty file for a warehouse?");
    expect(ctx.reasonFor("e2")).toBeUndefined();
    expect(ctx.context).toContain("does the job still write an empty file?");
  });
});

describe("scopes close themselves", () => {
  const brainstorm: [string, string] = [
    "b1",
    "Let's brainstorm names for the bakery. This is just exploratory.",
  ];

  it("an exploratory stretch nobody closes ends with its sitting", async () => {
    const t = await heard(brainstorm, ["b2", "Crumb and Company could work as a name."]);
    const nextDay = new Date(Date.UTC(2025, 4, 7, 9, 0)).toISOString();
    await t.events([message("We signed the lease for the Elm Street shop.", { id: "b3", ts: nextDay })]);
    const ctx = await ask(t, "Which shop did we sign the lease for?");
    expect(ctx.reasonFor("b2")).toBe("out_of_scope");
    expect(ctx.reasonFor("b3")).toBeUndefined();
    expect(ctx.context).toContain("We signed the lease for the Elm Street shop.");
  });

  it("an exploratory stretch ends after a few turns", async () => {
    const ideas = ["Flour Power", "The Daily Loaf", "Knead to Know", "Rise and Shine", "Proof Positive"];
    const t = await heard(
      brainstorm,
      ...ideas.map((idea, i): [string, string] => [`n${i + 2}`, `Maybe ${idea} as a name.`]),
      ["n7", "Or something with sourdough in it."],
      ["n8", "The oven delivery is booked for June 2."],
    );
    const ctx = await ask(t, "When is the oven delivery?");
    expect(ctx.reasonFor("n2")).toBe("out_of_scope");
    expect(ctx.reasonFor("n8")).toBeUndefined();
  });

  it("an exploratory stretch ends at a change of topic", async () => {
    const t = await heard(
      brainstorm,
      ["m2", "Maybe The Daily Loaf."],
      ["m3", "Anyway, the plumber comes Thursday at 8."],
    );
    const ctx = await ask(t, "When does the plumber come?");
    expect(ctx.reasonFor("m2")).toBe("out_of_scope");
    expect(ctx.reasonFor("m3")).toBeUndefined();
    expect(ctx.context).toContain("the plumber comes Thursday at 8.");
  });

  it("a stretch adopted later becomes current: its turns come back and its values are facts", async () => {
    const t = await heard(
      ["v1", "The venue deposit is $1,200."],
      ["v2", "Let's brainstorm venues. This is just exploratory."],
      ["v3", "The deposit would be $1,750 for the riverside barn."],
    );
    const before = await ask(t, "What is the venue deposit?");
    expect(before.reasonFor("v3")).toBe("out_of_scope");
    expect(before.context).not.toContain("$1,750");

    // A later turn, extracted in a run of its own, adopts what the stretch said.
    await t.events([message("Let's go with that.", { id: "v4", ts: at(4) })]);
    const after = await ask(t, "What is the venue deposit?");
    expect(after.reasonFor("v3")).toBeUndefined();
    expect(after.context).toContain("$1,750");
    expect(after.reasonFor(`xt:${t.thread}:v1:venue_deposit`)).toBe("superseded");
  });

  it("a supposed amount taken up by the next turn becomes the current value", async () => {
    const adoptions = [
      "Let's go with that.",
      "Yes, let's do that.",
      "OK, that is the plan.",
      "Let's go for it.",
    ];
    const suppositions = [
      "What if the catering deposit were $600?",
      "Hypothetically, the catering deposit could be $600.",
    ];
    for (const supposition of suppositions) {
      for (const adoption of adoptions) {
        const t = await heard(["f1", "The catering deposit is $450."], ["f2", supposition], ["f3", adoption]);
        const ctx = await ask(t, "How much is the catering deposit?");
        const label = `${supposition} / ${adoption}`;
        expect(ctx.context, label).toMatch(/catering_deposit: \$600/);
        expect(ctx.reasonFor(`xt:${t.thread}:f1:catering_deposit`), label).toBe("superseded");
        expect(ctx.reasonFor("f2"), label).toBeUndefined();
        expect(ctx.reasonFor("f3"), label).toBeUndefined();
        expect(ctx.context, label).toContain(adoption);
      }
    }
  });

  it("a hedged amount the next turn takes up becomes current; turned down, its turn stays in view", async () => {
    const hedge: [string, string] = ["k2", "The parking permit could be $85 for the whole term."];
    const t = await heard(["k1", "The parking permit is $60."], hedge, ["k3", "Let's go with that."]);
    const adopted = await ask(t, "How much is the parking permit?");
    expect(adopted.context).toMatch(/parking_permit: \$85/);
    expect(adopted.reasonFor(`xt:${t.thread}:k1:parking_permit`)).toBe("superseded");

    const declined = await ask(
      await heard(["k1", "The parking permit is $60."], hedge, ["k3", "Never mind, forget it."]),
      "How much is the parking permit?",
    );
    expect(declined.context).toMatch(/parking_permit: \$60/);
    expect(declined.reasonFor("k2")).toBeUndefined();
  });

  it("a yes to the assistant's question adopts nothing the user supposed before it", async () => {
    const t = await heard(
      ["m1", "The parking permit is $60."],
      ["m2", "What if the parking permit were $85?"],
    );
    await t.events([
      message("Want me to draft a note to the permit office?", { id: "m3", ts: at(3), role: "assistant" }),
      message("Yes, let's do that.", { id: "m4", ts: at(4) }),
    ]);
    const ctx = await ask(t, "How much is the parking permit?");
    expect(ctx.context).toMatch(/parking_permit: \$60/);
    expect(ctx.context).not.toContain("parking_permit: $85");
  });

  it("a supposing question taken up is answered, not left open", async () => {
    const t = await heard(
      ["j1", "The catering deposit is $450."],
      ["j2", "What if the catering deposit were $600?"],
      ["j3", "Let's go with that."],
    );
    const ctx = await ask(t, "How much is the catering deposit?");
    expect(ctx.context).toMatch(/QUESTION \(answered[^)]*\)[^\n]*What if the catering deposit were \$600\?/);
    expect(ctx.context).not.toMatch(/QUESTION \(open/);
  });

  it("turning a supposition down never hides the real statement its turn went on to", async () => {
    const supposing: [string, string] = [
      "h2",
      "What if the catering deposit were $600? Anyway, the florist arrives at 7am on Saturday.",
    ];
    const declined = await ask(
      await heard(["h1", "The catering deposit is $450."], supposing, ["h3", "Never mind, forget it."]),
      "When does the florist arrive?",
    );
    expect(declined.reasonFor("h2")).toBeUndefined();
    expect(declined.context).toContain("the florist arrives at 7am on Saturday.");
    expect(declined.context).toMatch(/catering_deposit: \$450/);

    const adopted = await ask(
      await heard(["h1", "The catering deposit is $450."], supposing, ["h3", "Let's go with that."]),
      "How much is the catering deposit?",
    );
    expect(adopted.context).toMatch(/catering_deposit: \$600/);
  });

  it("a supposed amount nobody takes up stays a supposition", async () => {
    const t = await heard(
      ["g1", "The catering deposit is $450."],
      ["g2", "What if the catering deposit were $600?"],
      ["g3", "The florist wants the table count by Monday."],
    );
    const ctx = await ask(t, "How much is the catering deposit?");
    expect(ctx.context).toMatch(/catering_deposit: \$450/);
    expect(ctx.reasonFor(`xt:${t.thread}:g2:catering_deposit`)).toBe("out_of_scope");
    expect(ctx.reasonFor("g2")).toBe("out_of_scope");
    expect(ctx.context).not.toContain("$600");
  });

  it("a single supposition can be adopted by the next turn, or turned down", async () => {
    const dinner: [string, string][] = [
      ["o1", "Dinner with the Okafors is at 7pm."],
      ["o2", "What if we moved dinner to 8:30pm?"],
    ];
    const adopted = await ask(await heard(...dinner, ["o3", "Yes, let's do that."]), "When is dinner?");
    expect(adopted.reasonFor("o2")).toBeUndefined();
    expect(adopted.context).toContain("8:30pm");

    const declined = await ask(
      await heard(...dinner, ["o3", "Never mind, the kids need to be in bed by nine."]),
      "When is dinner?",
    );
    expect(declined.reasonFor("o2")).toBe("out_of_scope");
    expect(declined.context).not.toContain("8:30pm");
  });
});
