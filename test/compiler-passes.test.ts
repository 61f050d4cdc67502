import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import { compileContext } from "../src/compiler/compile";
import type { ContextObject } from "../src/compiler/context-object";
import { deadClaims } from "../src/compiler/hygiene/dead-claims";
import { maskClaims } from "../src/compiler/hygiene/mask";
import { outdatedMessages } from "../src/compiler/hygiene/outdated";
import { restatedClaim } from "../src/compiler/hygiene/restatement";
import { withRetired } from "../src/compiler/hygiene/retired";
import { bm25Scores, corpusOf, corpusScores, terms } from "../src/compiler/lexical";
import { gate } from "../src/compiler/passes/gate";
import { messageHygiene } from "../src/compiler/passes/temporal/settle-transcript";
import { callerFrom, isPermitted } from "../src/compiler/permissions";
import { DEFAULT_AUTHORITY_LADDER as ladder } from "../src/facts/authority";
import { readMarkers } from "../src/facts/markers";
import { compileInput, contextObject, factRow } from "./support/context-objects";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

const candidate = contextObject;

describe("lexical pass", () => {
  it("folds suffixes and drops stop words", () => {
    expect(terms("What is the approved budgets?")).toEqual(["approv", "budget"]);
  });

  it("scores documents that share query terms, and rarer terms higher", () => {
    const scores = bm25Scores(
      "budget deadline",
      ["budget is $5", "deadline is May", "budget budget", "lunch menu"],
      memos,
    );
    expect(scores[3]).toBe(0);
    expect(scores[0]).toBeGreaterThan(0);
    expect(scores[1]).toBeGreaterThan(0);
  });

  it("scores an indexed list as BM25 does, document by document", () => {
    const documents = ["budget is $5 budget", "deadline is May", "the budget deadline", "lunch menu", ""];
    const query = "budget deadline menu";
    // BM25 written out directly, as a check on the index.
    const docs = documents.map(terms);
    const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length;
    const expected = docs.map((doc) =>
      [...new Set(terms(query))].reduce((score, term) => {
        const tf = doc.filter((t) => t === term).length;
        if (!tf) return score;
        const df = docs.filter((d) => d.includes(term)).length;
        const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
        return score + (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * doc.length) / avg));
      }, 0),
    );
    expect(bm25Scores(query, documents, memos)).toEqual(expected);
    const corpus = corpusOf(documents, memos);
    expect(corpusScores(query, corpus)).toEqual(expected);
    expect(corpusScores("lunch", corpus)).toEqual([0, 0, 0, expect.any(Number), 0]);
  });
});

describe("marker pass", () => {
  it("reads restriction and scope markers", () => {
    expect(readMarkers("[RESTRICTED: Strategic pricing restricted to VP+] floor $30k")).toEqual({
      classification: "restricted",
      allowRoles: ["vp+"],
    });
    expect(readMarkers("[SCOPE: draft schedule] Monday")).toMatchObject({ scope: "draft" });
    expect(readMarkers("[SCOPE: scenario planning exercise] x")).toMatchObject({ scope: "hypothetical" });
    expect(readMarkers("[SCOPE: Alice's session] x")).toMatchObject({
      scope: "session",
      scopeLabel: "Alice's session",
    });
    expect(readMarkers("plain text")).toEqual({});
  });
});

describe("permission pass", () => {
  const rep = callerFrom({ user_id: "m", authority: "Sales Rep", department: "Sales" }, ladder);
  const vp = callerFrom({ user_id: "v", authority: "VP Sales" }, ladder);
  const security = callerFrom({ user_id: "s", authority: "Engineer", roles: ["Security"] }, ladder);

  it.each([
    [{ allowRoles: ["vp+"] }, "rep", false],
    [{ allowRoles: ["vp+"] }, "vp", true],
    [{ allowRoles: ["security team"] }, "security", true],
    [{ allowRoles: ["security team"] }, "vp", false],
    [{ allowRoles: ["c-suite"] }, "vp", true],
    [{ allowRoles: ["cs leadership"] }, "rep", false],
    [{ denyRoles: ["sales"] }, "rep", false],
    [{ classification: "confidential" }, "rep", false],
    [{ classification: "confidential" }, "vp", true],
    [{ classification: "highly_restricted" }, "vp", true],
  ])("%j for %s → %s", (object, who, expected) => {
    const caller = { rep, vp, security }[who as "rep" | "vp" | "security"];
    const verdict = isPermitted(
      { classification: "public", allowRoles: [], denyRoles: [], ...object },
      caller,
      ladder,
    );
    expect(verdict.ok).toBe(expected);
  });

  it("a clearance permission grants a classification", () => {
    const cleared = callerFrom(
      { user_id: "c", authority: "employee", permissions: ["clearance:confidential"] },
      ladder,
    );
    expect(
      isPermitted({ classification: "confidential", allowRoles: [], denyRoles: [] }, cleared, ladder).ok,
    ).toBe(true);
  });
});

describe("gate pass", () => {
  const ctx = {
    now: "2025-06-01T00:00:00.000Z",
    threadId: "t1",
    taskId: "task-a",
    caller: callerFrom({ user_id: "u" }, ladder),
    ladder,
  };
  it.each([
    [{ isValid: false, scope: "hypothetical" }, "superseded"],
    [{ disputed: true }, "disputed"],
    [{ scope: "draft" }, "out_of_scope"],
    [{ scope: "task", scopeId: "task-b" }, "out_of_scope"],
    [{ scope: "session", scopeId: "t2" }, "out_of_scope"],
    [{ classification: "highly_restricted" }, "not_permitted"],
    [{ validUntil: "2025-05-01T00:00:00.000Z" }, "expired"],
    [{ validFrom: "2025-07-01T00:00:00.000Z" }, "expired"],
  ])("%j → %s", (extra, reason) => {
    expect(gate(candidate(extra as Partial<ContextObject>), ctx)?.reason).toBe(reason);
  });

  it("admits current, in-scope, permitted objects", () => {
    expect(gate(candidate({ scope: "task", scopeId: "task-a" }), ctx)).toBeUndefined();
    expect(gate(candidate({ scope: "session", scopeId: "t1" }), ctx)).toBeUndefined();
  });
});

describe("hygiene pass", () => {
  const dead = deadClaims(
    [
      { object: candidate({ objectId: "old", claim: "3 days in office" }), reason: "superseded" },
      { object: candidate({ objectId: "short", claim: "yes" }), reason: "superseded" },
      { object: candidate({ objectId: "other", claim: "hidden $30k floor" }), reason: "over_budget" },
    ],
    [candidate({ objectId: "new", claim: "monthly reviews" })],
    new Map(),
    memos,
  );

  it("collects distinctive claims the gates removed", () => {
    expect(dead.map((d) => d.objectId)).toEqual(["old"]);
  });

  it("recognises a restatement and masks a quotation", () => {
    expect(restatedClaim("The team decided on 3 Days in Office.", dead, memos)?.objectId).toBe("old");
    expect(restatedClaim("Monthly reviews it is", dead, memos)).toBeUndefined();
    expect(maskClaims("was 3 days in office, now remote", dead, memos)).toBe("was [superseded], now remote");
  });
});

describe("a replaced figure inside a longer one", () => {
  const memos = new CompilerMemos();
  const dead = deadClaims(
    [
      { object: candidate({ objectId: "stage", claim: "stage 2" }), reason: "superseded" },
      { object: candidate({ objectId: "port", claim: "port 80" }), reason: "superseded" },
      { object: candidate({ objectId: "cap", claim: "$2,500" }), reason: "superseded" },
      { object: candidate({ objectId: "rate", claim: "12.5% discount" }), reason: "superseded" },
    ],
    [],
    new Map(),
    memos,
  );

  it("is not a quotation of it: the current value stays whole", () => {
    expect(dead.map((d) => d.objectId).sort()).toEqual(["cap", "port", "rate", "stage"]);
    for (const current of [
      "stage 29",
      "stage 2b",
      "port 8080",
      "port 80/tcp",
      "a $2,500,000 cap",
      "$2,500.75 each",
      "$2,500/month",
      "a 112.5% discount",
      "a 12.5%-15% discount",
    ]) {
      expect(maskClaims(current, dead, memos)).toBe(current);
      expect(restatedClaim(current, dead, memos)).toBeUndefined();
    }
  });

  it("is still masked where the figure stands whole", () => {
    expect(maskClaims("We were at stage 2, then port 80, now stage 29.", dead, memos)).toBe(
      "We were at [superseded], then [superseded], now stage 29.",
    );
    expect(maskClaims("Capped at $2,500. Then 12.5% discount!", dead, memos)).toBe(
      "Capped at [superseded]. Then [superseded]!",
    );
    expect(restatedClaim("Stage 2 it is.", dead, memos)?.objectId).toBe("stage");
  });
});

describe("asides citing a replaced figure", () => {
  const dead = deadClaims(
    [
      {
        object: candidate({ objectId: "old", claim: "25% volume discount applies" }),
        reason: "superseded",
      },
      { object: candidate({ objectId: "cap", claim: "Max 15% discount per deal" }), reason: "superseded" },
    ],
    [
      candidate({ objectId: "new", claim: "Only 10% discount applies (25% requires 3-year contract)" }),
      // Quoting the dead claim does not keep its figure alive.
      candidate({ objectId: "log", claim: "[INVALIDATED: 25% volume discount applies]" }),
    ],
    new Map(),
    memos,
  );

  it("drops an aside that cites a replaced figure and keeps the rest", () => {
    expect(maskClaims("Only 10% discount applies (25% requires 3-year contract)", dead, memos)).toBe(
      "Only 10% discount applies",
    );
    expect(maskClaims("Only 10% applies (125% was never offered)", dead, memos)).toBe(
      "Only 10% applies (125% was never offered)",
    );
  });

  it("keeps asides whose figure a live claim still states outside an aside", () => {
    const stillLive = deadClaims(
      [{ object: candidate({ objectId: "old", claim: "25% volume discount" }), reason: "superseded" }],
      [candidate({ objectId: "new", claim: "25% loyalty discount" })],
      new Map(),
      memos,
    );
    expect(maskClaims("Loyalty pricing (25% off) applies", stillLive, memos)).toBe(
      "Loyalty pricing (25% off) applies",
    );
  });
});

describe("values messages retired", () => {
  const stated = new Map([
    [
      "m2",
      { ts: "2025-01-02T00:00:00.000Z", claims: [], retired: ["Friday March 15th", "Fri", "June 30th"] },
    ],
  ]);
  const live = [candidate({ objectId: "f1", claim: "deadline June 30th" })];
  const dead = withRetired([], stated, live, memos);

  it("become dead claims from the retiring message on, unless a live value still holds them", () => {
    expect(dead).toEqual([
      expect.objectContaining({
        text: "Friday March 15th",
        objectId: "m2",
        diedAt: "2025-01-02T00:00:00.000Z",
      }),
    ]);
    expect(maskClaims("we originally planned Friday March 15th, now Monday", dead, memos)).toBe(
      "we originally planned [superseded], now Monday",
    );
  });

  it("are judged afresh for another live list or other messages, though verdicts are remembered", () => {
    const base = withRetired([], stated, live, memos);
    expect(withRetired([], stated, live, memos).map((d) => d.text)).toEqual(["Friday March 15th"]);
    // The same dead list and live list: the same merged list comes back.
    const none: ReturnType<typeof withRetired> = [];
    expect(withRetired(none, stated, live, memos)).toBe(withRetired(none, stated, live, memos));
    // Another live list that still holds March 15th keeps it alive; one without June 30th kills it.
    const holding = [candidate({ objectId: "f2", claim: "launch on friday march 15th" })];
    expect(withRetired(none, stated, holding, memos).map((d) => d.text)).toEqual(["June 30th"]);
    // Other messages retiring other values, against the same lists.
    const other = new Map([["m3", { ts: "2025-01-03T00:00:00.000Z", retired: ["budget of $90,000"] }]]);
    expect(withRetired(none, other, live, memos)).toEqual([
      expect.objectContaining({ text: "budget of $90,000", objectId: "m3" }),
    ]);
    expect(withRetired(none, stated, live, memos).map((d) => d.objectId)).toEqual(["m2"]);
    expect(base.map((d) => d.text)).toEqual(["Friday March 15th"]);
  });
});

describe("message hygiene", () => {
  it("judges a message against each dead list it meets, however often it met another", () => {
    const message = candidate({
      objectId: "m5",
      kind: "message",
      ts: "2025-01-01T00:00:00.000Z",
      text: "we will launch on Friday March 15th",
    });
    const retiring = (ts: string) =>
      new Map([["m2", { ts, claims: [], retired: ["launch on Friday March 15th"] }]]);
    const earlier = withRetired([], retiring("2025-01-02T00:00:00.000Z"), [], memos);
    const later = withRetired([], retiring("2024-12-01T00:00:00.000Z"), [], memos);
    // Said while the value was still believed: it speaks from the dead state.
    expect(messageHygiene(earlier, new Map(), memos)(message)).toMatchObject({ reason: "superseded" });
    expect(messageHygiene(earlier, new Map(), memos)(message)).toMatchObject({ detail: "restates m2" });
    // Said after the value was retired, the quotation is masked and too little is left to keep.
    expect(messageHygiene(later, new Map(), memos)(message)).toMatchObject({ reason: "superseded" });
    // Nothing dead: the message stays; and an outdated message leaves whatever the dead list says.
    expect(messageHygiene([], new Map(), memos)(message)).toBeUndefined();
    expect(messageHygiene([], new Map([["m5", "f9"]]), memos)(message)).toMatchObject({
      detail: "stated a value since replaced by f9",
    });
    const kept = candidate({
      objectId: "m6",
      kind: "message",
      ts: "2025-02-01T00:00:00.000Z",
      text: "we moved the launch on Friday March 15th to a later Monday in April with the whole team",
    });
    expect(messageHygiene(earlier, new Map(), memos)(kept)).toBeUndefined();
    expect(messageHygiene([], new Map(), memos)(kept)).toBeUndefined();
  });
});

describe("outdated messages", () => {
  const current = [
    candidate({ objectId: "f2", key: "budget", claim: "$80,000", validFrom: "2025-01-02T00:00:00.000Z" }),
  ];
  it("dates a message by the slot values it stated", () => {
    const stated = new Map([
      ["old", { ts: "2025-01-01T00:00:00.000Z", claims: [{ key: "budget", value: "$100,000" }] }],
      ["same", { ts: "2025-01-01T00:00:00.000Z", claims: [{ key: "budget", value: "$80,000" }] }],
      ["later", { ts: "2025-01-03T00:00:00.000Z", claims: [{ key: "budget", value: "$100,000" }] }],
      ["other", { ts: "2025-01-01T00:00:00.000Z", claims: [{ key: "deadline", value: "May" }] }],
    ]);
    expect([...outdatedMessages(stated, current, memos)]).toEqual([["old", "f2"]]);
  });

  it("reads each list of current facts by its own slots, however often it was read before", () => {
    const stated = new Map([
      ["m1", { ts: "2025-01-01T00:00:00.000Z", claims: [{ key: "budget", value: "$100,000" }] }],
      ["m2", { ts: "2025-01-01T00:00:00.000Z", claims: [{ key: "deadline", value: "May" }] }],
    ]);
    expect([...outdatedMessages(stated, current, memos)]).toEqual([["m1", "f2"]]);
    const other = [
      candidate({ objectId: "f3", key: "deadline", claim: "June", validFrom: "2025-01-02T00:00:00.000Z" }),
    ];
    expect([...outdatedMessages(stated, other, memos)]).toEqual([["m2", "f3"]]);
    expect([...outdatedMessages(stated, current, memos)]).toEqual([["m1", "f2"]]);
  });
});

describe("compile pipeline", () => {
  const base = compileInput({
    query: "budget",
    budgetTokens: 200,
    environment: { timezone: "UTC", deadline: "two weeks away" },
  });
  const row = (id: string, content: string) =>
    factRow({ id, key: id, valueJson: "1", content, tokens: countTokens(content), memoryType: "user" });

  it("orders sections and ranks relevant facts first", () => {
    const out = compileContext({
      ...base,
      facts: [row("a", "lunch: pizza on fridays"), row("b", "budget: $50,000")],
      environmentFacts: [],
    });
    expect(out.sections.map((s) => s.name)).toEqual(["identity", "facts", "environment"]);
    expect(out.context.indexOf("budget: $50,000")).toBeLessThan(out.context.indexOf("lunch"));
    expect(out.context).toContain("deadline: two weeks away");
  });

  it("lets an environment-layer write replace the thread's initial environment value", () => {
    const out = compileContext({
      ...base,
      facts: [],
      environmentFacts: [
        {
          id: "e1",
          key: "deadline",
          valueJson: '"tomorrow"',
          content: "deadline: tomorrow",
          tokens: 4,
          ts: "2025-05-01T00:00:00.000Z",
          expiresAt: null,
          scope: "global",
          scopeId: null,
          classification: "public",
          allowRolesJson: "[]",
          denyRolesJson: "[]",
          replacedBy: null,
        },
      ],
    });
    expect(out.context).toContain("deadline: tomorrow");
    expect(out.context).not.toContain("two weeks");
  });

  it("drops what does not fit and reports it as over_budget", () => {
    const facts = Array.from({ length: 30 }, (_, i) =>
      row(`f${i}`, `budget line ${i}: ${"detail ".repeat(20)}`),
    );
    const out = compileContext({ ...base, budgetTokens: 150, facts, environmentFacts: [] });
    expect(countTokens(out.context)).toBeLessThanOrEqual(150);
    expect(out.trace.omitted.filter((o) => o.reason === "over_budget").length).toBeGreaterThan(0);
    const factIds = (list: { kind: string }[]) => list.filter((o) => o.kind === "fact").length;
    expect(factIds(out.trace.compiled) + factIds(out.trace.omitted)).toBe(30);
  });

  it("groups retrieved messages by day: one date header, speaker-only lines, more of them within the budget", () => {
    const episode = (i: number) => {
      const ts = new Date(Date.UTC(2024, 2, 10 + (i % 3), 9, 0, i)).toISOString();
      const content = `Budget note ${i}: the offsite catering needs another look.`;
      const line = `[${ts}] Ada (user): ${content}`;
      return {
        id: `e${i}`,
        ts,
        role: "user",
        speaker: "Ada",
        content,
        line,
        tokens: countTokens(line),
        score: 1 - i / 100,
      };
    };
    const episodes = Array.from({ length: 30 }, (_, i) => episode(i));
    const out = compileContext({ ...base, budgetTokens: 400, facts: [], environmentFacts: [], episodes });
    expect(countTokens(out.context)).toBeLessThanOrEqual(400);
    const section = out.context.slice(out.context.indexOf("## Relevant earlier conversation"));
    const lines = section
      .split("\n")
      .slice(1)
      .filter((l) => l && !l.startsWith("## "));
    const headers = lines.filter((l) => /^\[\d{1,2} March 2024\]$/.test(l));
    expect(headers).toEqual(["[10 March 2024]", "[11 March 2024]", "[12 March 2024]"]);
    const notes = lines.filter((l) => l.includes("Budget note"));
    expect(notes.every((l) => l.startsWith("Ada: Budget note"))).toBe(true);
    expect(section).not.toContain("2024-03-1");
    // The stamped lines of what was placed would not have fit in the budget.
    const placed = out.trace.compiled.filter((c) => c.section === "episodes").map((c) => c.object_id);
    expect(placed.length).toBe(notes.length);
    const stamped = episodes.filter((e) => placed.includes(e.id)).reduce((sum, e) => sum + e.tokens + 1, 0);
    expect(stamped).toBeGreaterThan(400);
  });
});
