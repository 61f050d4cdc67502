import { describe, expect, it } from "vitest";
import type { FactVersion } from "../src/domain/fact-version";
import { planFactWrites } from "../src/facts/plan-writes";
import { factRow } from "./support/context-objects";

const NOW = "2025-06-01T00:00:00.000Z";

function row(id: string, key: string, extra: Partial<FactVersion> = {}): FactVersion {
  return factRow({
    id,
    key,
    valueJson: JSON.stringify(id),
    content: `${key}: ${id}`,
    tokens: 3,
    memoryType: "user",
    userId: "u1",
    threadId: "t",
    sourceAuthority: "employee",
    ...extra,
  });
}

describe("planFactWrites", () => {
  it("supersedes the current fact of the same key and closes its transaction window", () => {
    const plan = planFactWrites([row("a", "k")], [row("b", "k")], NOW);
    expect(plan.closures).toEqual([{ id: "a", supersededBy: "b", txEnd: NOW }]);
    expect(plan.inserts[0]).toMatchObject({ id: "b", supersedes: "a", lineageId: "a" });
  });

  it("keeps a lower-authority write as disputed against a shared policy fact", () => {
    const policy = row("p1", "discount", {
      userId: null,
      memoryType: "organizational",
      authorityRank: 5,
      sourceAuthority: "policy",
    });
    const plan = planFactWrites([policy], [row("p2", "discount")], NOW);
    expect(plan.closures).toEqual([]);
    expect(plan.outcomes[0]).toMatchObject({ outcome: "disputed" });
    expect(plan.inserts[0]).toMatchObject({ contradictionStatus: "disputed", supersedes: null });
  });

  it("never touches another user's private memory", () => {
    const plan = planFactWrites([row("a", "k", { userId: "u2" })], [row("b", "k")], NOW);
    expect(plan.outcomes[0]).toMatchObject({ outcome: "created" });
  });

  it("resolves a supersedes key to its current fact and an id to its chain head", () => {
    const plan = planFactWrites(
      [
        row("a", "k", { supersededBy: "b", isValid: false, txEnd: NOW }),
        row("b", "k", { lineageId: "a", supersedes: "a" }),
      ],
      [row("c", "other", { supersedes: "a" })],
      NOW,
    );
    expect(plan.outcomes[0]).toMatchObject({ outcome: "superseded_previous", supersedes: "b" });
  });

  it("counts a repeated id as a duplicate", () => {
    const plan = planFactWrites([row("a", "k")], [row("a", "k")], NOW);
    expect(plan.outcomes[0]?.outcome).toBe("duplicate");
    expect(plan.inserts).toEqual([]);
  });
});
