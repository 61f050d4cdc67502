import { describe, expect, it } from "vitest";
import { ask, message, newThread } from "./helpers";

describe("a batch of messages sent without times", () => {
  it("keeps the order it was sent in, whatever the ids", async () => {
    const t = await newThread();
    await t.events([
      message("Zebra crossing repairs start on the high street tomorrow.", { id: "q-zeta" }),
      message("Alpaca shearing moved to the east barn.", { id: "a-alpha" }),
      message("Middle gate padlock code changed to 4471.", { id: "m-mid" }),
    ]);
    const { context } = await ask(t, "What changed today?");
    const at = (text: string) => context.indexOf(text);
    expect(at("Zebra crossing")).toBeGreaterThanOrEqual(0);
    expect(at("Zebra crossing")).toBeLessThan(at("Alpaca shearing"));
    expect(at("Alpaca shearing")).toBeLessThan(at("Middle gate"));
  });
});
