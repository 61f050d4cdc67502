import { describe, expect, it } from "vitest";
import { EPISODE_MIN_COST_TOKENS, episodeValue } from "../src/compiler/passes/episode-value";
import { ask, message, newThread } from "./helpers";

/**
 * Retrieved earlier messages fill their allowance by relevance per token (episode-value.ts): one long,
 * fairly relevant message never takes the room of the short turns that each answer the question.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 4, 6, 8, minute)).toISOString();

/** A long pasted log of the kiln's firings (about 750 tokens) that keeps naming the kiln's rules. */
function kilnLog(): string {
  return Array.from(
    { length: 18 },
    (_, i) =>
      `Day ${i + 1}: kiln firing to cone ${4 + (i % 3)}; the rules for using the kiln were read out, ` +
      `shelf ${(i % 5) + 1} was vacuumed and the vents were left open overnight.`,
  ).join("\n");
}

describe("earlier messages in the context", () => {
  it("short turns that each answer come in before one long message that takes their room", async () => {
    const t = await newThread();
    const short = [
      "The kiln has to be booked in the studio calendar a day ahead, and whoever books it signs the " +
        "sheet on the door when they load it and again when they unload it the next morning.",
      "Only glazes from the blue shelf are safe for the kiln; anything from the red shelf is for the " +
        "raku barrel outside, and unlabelled jars go to the technician before anyone uses them.",
      "The kiln breaker is the third switch in the hallway panel, and it must stay on until the " +
        "controller reads below 100 degrees, even when the firing has finished hours earlier.",
    ];
    await t.events([
      message(kilnLog(), { id: "log", ts: at(1) }),
      ...short.map((content, i) => message(content, { id: `k${i}`, ts: at(2 + i) })),
      // Chatter after them, so they are earlier conversation rather than the recent tail.
      ...Array.from({ length: 16 }, (_, i) =>
        message(`Lovely day at the studio, session ${i + 1} went smoothly.`, { id: `c${i}`, ts: at(10 + i) }),
      ),
    ]);
    const { context, trace } = await ask(t, "What are the rules for using the kiln?", {
      budget_tokens: 1000,
    });
    for (const line of short) expect(context).toContain(line);
    // The log is still represented where it fits: by the passage that answers, never in place of them.
    const log = trace.compiled.find((c: { object_id: string }) => c.object_id === "log");
    expect(log?.detail).toBe("excerpt");
  });
});

describe("episodeValue", () => {
  it("orders by relevance among turns of a paragraph or less, and weighs length beyond", () => {
    expect(episodeValue(0.9, 12)).toBeGreaterThan(episodeValue(0.8, EPISODE_MIN_COST_TOKENS));
    expect(episodeValue(0.8, 12)).toBe(episodeValue(0.8, EPISODE_MIN_COST_TOKENS));
    expect(episodeValue(0.6, 100)).toBeGreaterThan(episodeValue(1, 1500));
    expect(episodeValue(1, 400)).toBeGreaterThan(episodeValue(0.5, 400));
  });
});
