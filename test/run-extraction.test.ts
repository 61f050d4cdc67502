import { describe, expect, it } from "vitest";
import { newFactsOnly } from "../src/extraction/run-extraction";
import type { ExtractedFact } from "../src/items/types";

const fact = (key: string, value: string, supersedes: string | null = null): ExtractedFact => ({
  key,
  value,
  ref: "m1",
  ts: "2025-01-01T00:00:00.000Z",
  supersedes,
  scope: "global",
  scope_id: null,
  classification: "public",
  allow_roles: [],
  authority: null,
  confidence: "medium",
});

describe("newFactsOnly", () => {
  it("drops a restatement of a current fact and routes later corrections of its key to that fact", () => {
    const out = newFactsOnly(
      [fact("project_budget", "$100,000"), fact("project_budget", "$80,000", "project_budget")],
      [{ key: "approved_budget", value: "$100,000 (Manager approved)" }],
      [],
      {},
    );
    expect(out.facts).toEqual([
      expect.objectContaining({ key: "approved_budget", value: "$80,000", supersedes: "approved_budget" }),
    ]);
    expect(out.aliases).toEqual({ project_budget: "approved_budget" });
  });

  it("never resurrects a superseded value without change language", () => {
    const out = newFactsOnly(
      [fact("status", "approved order"), fact("plan", "approved order", "plan")],
      [],
      ["Approved order"],
      {},
    );
    expect(out.facts.map((f) => f.key)).toEqual(["plan"]);
  });

  it("applies aliases learned in earlier runs", () => {
    const out = newFactsOnly([fact("vendor", "GlobalTech", "vendor")], [], [], { vendor: "selected_vendor" });
    expect(out.facts[0]).toMatchObject({ key: "selected_vendor", supersedes: "selected_vendor" });
  });

  it("a change the client already recorded, for the turn's time or later, is not a new change", () => {
    const recorded = {
      key: "launch_date",
      value: "Launch moved to April 15 (per executive decision)",
      validFrom: "2025-01-01T00:00:00.000Z",
      recorded: true,
    };
    const change = fact("launch_date", "April 15 (per executive decision)", "launch_date");
    const out = newFactsOnly([change], [recorded], [], {});
    expect(out.facts).toEqual([]);
    // The turn still states that slot's value, so a later change of the slot dates it.
    expect(out.claims).toEqual([{ message_id: "m1", key: "launch_date", value: change.value }]);

    // Whatever it says, a fact the client recorded for a later time is newer than the turn.
    const later = { ...recorded, value: "Launch moved to May 2", validFrom: "2025-01-02T00:00:00.000Z" };
    expect(newFactsOnly([change], [later], [], {}).facts).toEqual([]);

    // Client intent outranks extraction: recorded for the turn's own time, the client's fact wins too,
    // whatever it says.
    expect(newFactsOnly([change], [{ ...recorded, value: "Launch moved to May 2" }], [], {}).facts).toEqual(
      [],
    );

    // The change stays new when the fact was extracted or recorded before the turn.
    for (const other of [
      { ...recorded, recorded: false },
      { ...recorded, validFrom: "2024-12-31T23:59:00.000Z" },
    ]) {
      expect(newFactsOnly([change], [other], [], {}).facts).toEqual([change]);
    }
  });
});
