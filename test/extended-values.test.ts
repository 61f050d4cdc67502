import { describe, expect, it } from "vitest";
import { ask, fact, message, newThread } from "./helpers";

/**
 * A current value often extends the one it replaced: a date gains a time, a figure a unit or more
 * digits. The replaced value is masked where it is quoted on its own, never inside the current one.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 8, minute)).toISOString();

/** Old value and the new value that extends it without a space. */
const cases: [string, string][] = [
  ["2025-06", "2025-06-15"],
  ["March 3", "March 3rd"],
  ["v1.2.0", "v1.2.0-beta"],
  ["$2,500", "$2,500/month"],
  ["port 80", "port 80/tcp"],
  ["10:30 UTC", "10:30 UTC+2"],
  ["10.0.0.1", "10.0.0.1:8080"],
];

describe("a value that extends the one it replaced", () => {
  it.each(cases)("%s → %s is compiled whole, in either layer", async (old, current) => {
    for (const layer of [undefined, "working"]) {
      const t = await newThread();
      await t.events([
        fact("release", old, { layer, ts: at(0) }),
        fact("release", current, { layer, ts: at(1) }),
        message(`Heads-up: the release is ${current} now.`, { id: "m-now", ts: at(2) }),
        message(`Back then the release was ${old} and nobody minded.`, { id: "m-then", ts: at(3) }),
      ]);
      const { context } = await ask(t, "When is the release?", { budget_tokens: 4000 });
      expect(context).toContain(`release: ${current}`);
      // A message quoting the current value keeps it whole.
      expect(context).toContain(`the release is ${current} now`);
      // The replaced value on its own is still recognised.
      expect(context).not.toContain(`the release was ${old} and`);
    }
  });
});

/**
 * A value extended after a space or a comma. The current value's own line shows it whole; a message
 * quoting it is masked there still (a text that cites the replaced value in the same words, "Thursday,
 * not Tuesday", is masked by design, and a message's words alone do not tell the two apart).
 */
const spaced: [string, string][] = [
  ["March 3", "March 3, 2026"],
  ["2025-03-01", "2025-03-01 14:00 UTC"],
  ["Redis cluster", "Redis cluster in eu-west-1"],
];

describe("a value that extends the one it replaced after a space", () => {
  it.each(spaced)("%s → %s: the current value's line is whole, in either layer", async (old, current) => {
    for (const layer of [undefined, "working"]) {
      const t = await newThread();
      await t.events([
        fact("release", old, { layer, ts: at(0) }),
        fact("release", current, { layer, ts: at(1) }),
        fact("rollback", `planned, not for ${old}`, { ts: at(2) }),
        message(`Back then the release was ${old} and nobody minded.`, { id: "m-then", ts: at(3) }),
      ]);
      const { context } = await ask(t, "When is the release?", { budget_tokens: 4000 });
      expect(context).toContain(`release: ${current}`);
      // Any other line citing the replaced value is masked, a fact's as a message's.
      expect(context).toContain("rollback: planned, not for [superseded]");
      expect(context).not.toContain(`the release was ${old} and`);
    }
  });
});
