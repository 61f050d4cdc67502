import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import { factObject } from "../src/compiler/passes/normalize";
import {
  instructionOverrides,
  type NamedThings,
} from "../src/compiler/passes/temporal/instruction-authority";
import { type AuthorityTier, DEFAULT_AUTHORITY_LADDER } from "../src/facts/authority";
import { factRow, origin } from "./support/context-objects";

/**
 * Memos kept per Context Object (src/compiler/cache/memos.ts) serve a large project's candidates, which
 * come back as the same objects in a list that changes with every question. An object is never changed
 * once made: a changed record is normalised into a new object under the same id. A memo must therefore
 * answer for the object it was given, never for its id, and for every other input it was read against.
 */

const directive = (id: string, key: string, value: string, minute: number) =>
  factObject(
    factRow({
      id,
      key,
      valueJson: JSON.stringify(value),
      content: `${key}: ${value}`,
      validFrom: `2025-03-04T10:0${minute}:00.000Z`,
      txStart: `2025-03-04T10:0${minute}:00.000Z`,
    }),
    origin,
  );

const cap = directive(
  "cap",
  "directive_1",
  "[VP] Ines (VP Procurement): Laptop purchases are capped at $1,800 per person",
  1,
);
const ask = directive(
  "ask",
  "directive_2",
  "[MANAGER] Otto (IT Manager): Order the $3,200 laptops for the design group",
  2,
);
const overridden = (
  facts: ReturnType<typeof directive>[],
  memos: CompilerMemos,
  ladder = DEFAULT_AUTHORITY_LADDER,
  things?: NamedThings,
) => instructionOverrides(facts, ladder, things, memos).map((o) => [o.object.objectId, o.reason]);

describe("attributed instructions read once per object", () => {
  it("reads a changed fact under the same id afresh rather than serving its old instruction", () => {
    const memos = new CompilerMemos();
    expect(overridden([cap, ask], memos)).toEqual([["ask", "overridden"]]);
    // The manager now asks for laptops within the cap: nothing collides any more.
    const within = directive(
      "ask",
      "directive_2",
      "[MANAGER] Otto (IT Manager): Order the $1,500 laptops for the design group",
      2,
    );
    expect(overridden([cap, within], memos)).toEqual([]);
    expect(overridden([cap, within], memos)).toEqual(overridden([cap, within], new CompilerMemos()));
    // The first object still reads as it did.
    expect(overridden([cap, ask], memos)).toEqual([["ask", "overridden"]]);
  });

  it("reads an object again with another registry's view of the things it names", () => {
    const memos = new CompilerMemos();
    expect(overridden([cap, ask], memos)).toEqual([["ask", "overridden"]]);
    // A registry by which the cap and the order name two different registered things: two matters.
    const apart: NamedThings = (text) => (text.includes("capped") ? ["entity-a"] : ["entity-b"]);
    expect(overridden([cap, ask], memos, DEFAULT_AUTHORITY_LADDER, apart)).toEqual([]);
    expect(overridden([cap, ask], memos)).toEqual([["ask", "overridden"]]);
  });

  it("reads an object again against another authority ladder", () => {
    const memos = new CompilerMemos();
    expect(overridden([cap, ask], memos)).toEqual([["ask", "overridden"]]);
    // A tenant whose ladder ranks managers above VPs: the manager's order is no longer outranked.
    const managersFirst: AuthorityTier[] = [
      { rank: 4, name: "manager", words: ["manager"] },
      { rank: 3, name: "vp", words: ["vp"] },
    ];
    const fresh = overridden([cap, ask], new CompilerMemos(), managersFirst);
    expect(fresh).not.toEqual([["ask", "overridden"]]);
    expect(overridden([cap, ask], memos, managersFirst)).toEqual(fresh);
  });
});
