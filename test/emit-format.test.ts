import { describe, expect, it } from "vitest";
import { CompilerMemos } from "../src/compiler/cache/memos";
import { emitFormat } from "../src/compiler/passes/emit-format";
import { canonicalJson, orderZones, toolLines, type ZoneBlock } from "../src/compiler/passes/zones";
import { sha256Hex } from "../src/items/sha256";

/** The compiler's memos, shared by the tests of this file as module-level tables once were. */
const memos = new CompilerMemos();

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

function envelope(query: string, rules = "Answer in English."): ZoneBlock[] {
  // Arrival order deliberately scrambled: dynamic first, static last.
  return [
    { zone: "current_turn", id: "m1", text: `## Recent messages\n[t1] user: ${query}` },
    { zone: "memory", id: "f2", text: `## Current facts\n- budget: 10k (for ${query})` },
    {
      zone: "retrieved",
      id: "d1",
      text: '<untrusted_data source="tool" id="d1">\nresult\n</untrusted_data>',
    },
    { zone: "task_state", id: "s1", text: "## State\n- ship on Friday" },
    {
      zone: "tools",
      id: "tools",
      text: [
        "## Tools",
        ...toolLines([{ name: "search", description: "Web search", input_schema: {} }]),
      ].join("\n"),
    },
    { zone: "policy", id: "p-b", text: "Policy B" },
    { zone: "policy", id: "p-a", text: "Policy A" },
    { zone: "system", id: "rules", text: `## Rules\n${rules}` },
  ];
}

describe("orderZones", () => {
  it("orders by zone, keeps arrival order in dynamic zones", () => {
    const ordered = orderZones([
      { zone: "current_turn", id: "z", text: "" },
      { zone: "memory", id: "b", text: "" },
      { zone: "memory", id: "a", text: "" },
      { zone: "system", id: "r", text: "" },
    ]);
    expect(ordered.map((b) => b.id)).toEqual(["r", "b", "a", "z"]);
  });

  it("orders static zones by content, not by arrival", () => {
    const a: ZoneBlock = { zone: "policy", id: "p-a", text: "A" };
    const b: ZoneBlock = { zone: "policy", id: "p-b", text: "B" };
    expect(orderZones([a, b])).toEqual(orderZones([b, a]));
    expect(orderZones([b, a]).map((x) => x.id)).toEqual(["p-a", "p-b"]);
  });

  it("respects an explicit order before ids", () => {
    const ordered = orderZones([
      { zone: "system", id: "a", text: "", order: 2 },
      { zone: "system", id: "b", text: "", order: 1 },
    ]);
    expect(ordered.map((x) => x.id)).toEqual(["b", "a"]);
  });
});

describe("toolLines", () => {
  it("renders a tool per line with its schema in canonical form", () => {
    const lines = toolLines([
      {
        name: "a",
        description: "first",
        input_schema: { type: "object", properties: { q: { type: "string" } } },
      },
      { name: "b", description: "second" },
    ]);
    expect(lines).toEqual([
      '- a: first\n  input_schema: {"properties":{"q":{"type":"string"}},"type":"object"}',
      "- b: second",
    ]);
  });
});

describe("canonicalJson", () => {
  it("renders the same object the same way whatever its key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { y: 2, z: 1 }] }, b: 1 }),
    );
  });
});

describe("emitFormat", () => {
  it("text: static zones first, in seed 001's order", () => {
    const { context, messages, anthropic } = emitFormat(envelope("q1"), "text", memos);
    const at = (s: string) => context.indexOf(s);
    const order = [
      "## Rules",
      "Policy A",
      "Policy B",
      "## Tools",
      "## Current facts",
      "<untrusted_data",
      "## State",
    ];
    for (let i = 1; i < order.length; i++)
      expect(at(order[i - 1] ?? ""), order[i]).toBeLessThan(at(order[i] ?? ""));
    expect(at("## State")).toBeLessThan(at("## Recent messages"));
    expect(messages).toBeUndefined();
    expect(anthropic).toBeUndefined();
  });

  it("the prefix hash is the sha256 of the static text and ignores the dynamic zones", () => {
    const first = emitFormat(envelope("what is the budget?"), "text", memos);
    const second = emitFormat(envelope("when do we ship?"), "text", memos);
    expect(first.context).not.toBe(second.context);
    expect(first.cache.prefix_hash).toBe(second.cache.prefix_hash);
    const staticText = first.context.slice(0, first.context.indexOf("## Current facts") - 2);
    expect(first.cache.prefix_hash).toBe(sha256Hex(staticText));
  });

  it("the prefix hash changes when the rules change", () => {
    const before = emitFormat(envelope("q", "Answer in English."), "text", memos);
    const after = emitFormat(envelope("q", "Answer in French."), "text", memos);
    expect(after.cache.prefix_hash).not.toBe(before.cache.prefix_hash);
  });

  it("counts static and dynamic tokens with the supplied counter", () => {
    const { context, cache } = emitFormat(envelope("q"), "text", memos, words);
    expect(cache.static_prefix_tokens).toBeGreaterThan(0);
    expect(cache.dynamic_tokens).toBeGreaterThan(0);
    expect((cache.static_prefix_tokens ?? 0) + (cache.dynamic_tokens ?? 0)).toBe(words(context));
  });

  it("openai: static system message, then the dynamic part as a second system message", () => {
    const { context, messages } = emitFormat(envelope("q"), "openai", memos);
    expect(messages).toHaveLength(2);
    const [top, added] = messages ?? [];
    expect(top?.role).toBe("system");
    expect(top?.content.startsWith("## Rules")).toBe(true);
    expect(top?.content).not.toContain("## Current facts");
    expect(added?.role).toBe("system");
    expect(added?.content.startsWith("## Current facts")).toBe(true);
    expect(`${top?.content}\n\n${added?.content}`).toBe(context);
  });

  it("openai: the top message is byte-identical across queries", () => {
    const a = emitFormat(envelope("one"), "openai", memos).messages?.[0];
    const b = emitFormat(envelope("two"), "openai", memos).messages?.[0];
    expect(a).toEqual(b);
  });

  it("anthropic: one system block per static zone, cache_control on the boundary only", () => {
    const { anthropic, cache } = emitFormat(envelope("q"), "anthropic", memos);
    const system = anthropic?.system ?? [];
    expect(system.map((b) => b.text.split("\n")[0])).toEqual(["## Rules", "Policy A", "## Tools"]);
    expect(system.map((b) => b.cache_control)).toEqual([undefined, undefined, { type: "ephemeral" }]);
    expect(sha256Hex(system.map((b) => b.text).join("\n\n"))).toBe(cache.prefix_hash);
    expect(anthropic?.messages).toHaveLength(1);
    expect(anthropic?.messages[0]?.role).toBe("user");
    expect(anthropic?.messages[0]?.content[0]?.text.startsWith("## Current facts")).toBe(true);
    expect(JSON.stringify(system)).not.toContain("untrusted_data");
  });

  it("handles an envelope with no static zones", () => {
    const dynamicOnly: ZoneBlock[] = [{ zone: "current_turn", id: "m", text: "hi" }];
    const openai = emitFormat(dynamicOnly, "openai", memos);
    expect(openai.messages).toEqual([{ role: "system", content: "hi" }]);
    expect(openai.cache.prefix_hash).toBe(sha256Hex(""));
    const anthropic = emitFormat(dynamicOnly, "anthropic", memos);
    expect(anthropic.anthropic?.system).toEqual([]);
  });
});
