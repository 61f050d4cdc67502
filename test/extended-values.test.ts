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
 * A value refined after a space or a comma: what the old value said still holds, so it is no dead claim.
 * The current value is whole on its own line and wherever it is quoted, and so is the old one; a value
 * the slot held before it, which the refinement did not keep, is still masked.
 */
const spaced: [string, string][] = [
  ["March 3", "March 3, 2026"],
  ["2025-03-01", "2025-03-01 14:00 UTC"],
  ["Redis cluster", "Redis cluster in eu-west-1"],
];

describe("a value that refines the one it replaced after a space", () => {
  it.each(spaced)(
    "%s → %s: both are whole wherever they are quoted, in either layer",
    async (old, current) => {
      for (const layer of [undefined, "working"]) {
        const t = await newThread();
        await t.events([
          fact("release", "the first week of April", { layer, ts: at(0) }),
          fact("release", old, { layer, ts: at(1) }),
          fact("release", current, { layer, ts: at(2) }),
          fact("rollback", `planned, not for ${old}`, { ts: at(3) }),
          message(`Heads-up: the release is ${current} now.`, { id: "m-now", ts: at(4) }),
          message("Back then the release was the first week of April and nobody minded.", {
            id: "m-then",
            ts: at(5),
          }),
        ]);
        const { context } = await ask(t, "When is the release?", { budget_tokens: 4000 });
        expect(context).toContain(`release: ${current}`);
        expect(context).toContain(`the release is ${current} now`);
        expect(context).toContain(`rollback: planned, not for ${old}`);
        // The value the refinement replaced without keeping is still recognised.
        expect(context).not.toContain("the release was the first week of April and");
      }
    },
  );
});

describe("a refined value replaced in turn", () => {
  it("is dead once the current value no longer refines it", async () => {
    const t = await newThread();
    await t.events([
      fact("release", "March 3", { ts: at(0) }),
      fact("release", "March 3, 2026", { ts: at(1) }),
      fact("release", "March 10, 2026", { ts: at(2) }),
      message("Nobody minded March 3 for the release back then, to be fair.", { id: "m-then", ts: at(3) }),
    ]);
    const { context } = await ask(t, "When is the release?", { budget_tokens: 4000 });
    expect(context).toContain("release: March 10, 2026");
    expect(context).toContain("Nobody minded [superseded] for the release");
  });
});
