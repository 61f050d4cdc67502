import { describe, expect, it } from "vitest";
import { LAYER_HISTORY } from "../src/thread/layers/layer-store";
import { ask, fact, newThread } from "./helpers";

/**
 * A working layer written every turn keeps every version; a compile reads its current entries and the
 * newest LAYER_HISTORY replaced ones, and says how many older ones it left out.
 */

const at = (n: number) => new Date(Date.UTC(2025, 2, 1, 8) + n * 60_000).toISOString();

const stages = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) =>
    fact("task.stage", `stage ${from + i}`, { id: `w${from + i}`, layer: "working", ts: at(from + i) }),
  );

describe("a working layer's history", () => {
  it("is compiled up to its newest replaced versions, and the trace says how many older ones were left out", async () => {
    const t = await newThread();
    const total = LAYER_HISTORY + 40;
    for (let from = 0; from < total; from += 500) {
      expect((await t.events(stages(from, Math.min(500, total - from)))).status).toBe(200);
    }
    const { context, trace, reasonFor } = await ask(t, "What stage is the task at?");
    expect(context).toContain(`stage ${total - 1}`);
    const replaced = total - 1;
    expect(trace.candidates.layer_history).toEqual({
      kept: LAYER_HISTORY,
      left_out: replaced - LAYER_HISTORY,
    });
    expect(trace.candidates.truncated).toBe(true);
    // The newest replaced versions are candidates, left out as replaced; the older ones are not candidates.
    expect(reasonFor(`w${total - 2}`)).toBeDefined();
    expect(reasonFor(`w${replaced - LAYER_HISTORY}`)).toBeDefined();
    expect(reasonFor(`w${replaced - LAYER_HISTORY - 1}`)).toBeUndefined();
    expect(reasonFor("w0")).toBeUndefined();
    expect(trace.omitted.length).toBeLessThan(LAYER_HISTORY + 20);
  });

  it("files a write older than the current value as history, and says so", async () => {
    const t = await newThread();
    await t.events(stages(10, 3));
    const late = await t.events([
      fact("task.stage", "stage early", { id: "late", layer: "working", ts: at(1) }),
    ]);
    expect(late.json.facts).toEqual([
      { id: "late", key: "task.stage", outcome: "history", supersedes: null, reason: null },
    ]);
    const { context } = await ask(t, "What stage is the task at?");
    expect(context).toContain("stage 12");
    expect(context).not.toContain("stage early");
  });

  it("is compiled whole below the bound, with nothing reported", async () => {
    const t = await newThread();
    await t.events(stages(0, 30));
    const { context, trace, reasonFor } = await ask(t, "What stage is the task at?");
    expect(context).toContain("stage 29");
    expect(trace.candidates.layer_history).toBeUndefined();
    expect(reasonFor("w0")).toBeDefined();
  });
});
