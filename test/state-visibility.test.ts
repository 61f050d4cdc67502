import { describe, expect, it } from "vitest";
import { call, fact, newThread } from "./helpers";

/** GET …/state shows what a compile for the thread's own user could: the same gates, the same redaction. */
describe("thread state reads", () => {
  it("hide role-restricted and other users' private facts, and redact secrets for a caller without clearance", async () => {
    const employee = { user_id: "emp", user_name: "Ed", authority: "employee" };
    const t = await newThread(employee);
    const hr = await newThread(
      { user_id: "hr1", user_name: "Hana", authority: "employee", roles: ["hr"] },
      { project: t.project },
    );
    const other = await newThread(
      { user_id: "bob", user_name: "Bob", authority: "employee" },
      { project: t.project },
    );
    await t.events([
      // A policy record is organisational memory, shared by the project (a user's own statement is theirs).
      fact("salary_band", "Band B8 for the new hire", {
        id: "s1",
        allow_roles: ["hr"],
        source: { type: "policy" },
      }),
      fact("office_city", "Lisbon", { id: "c1" }),
      fact("billing_card", "Card on file: 4111 1111 1111 1111", { id: "k1" }),
      fact("wifi", "the password is correct horse battery staple", { id: "w1", layer: "working" }),
    ]);
    await other.events([fact("favourite_editor", "Bob prefers Helix", { id: "e1", memory_type: "user" })]);

    const state = (await call("GET", `/threads/${t.thread}/state`)).json;
    const byKey = Object.fromEntries(state.facts.map((f: any) => [f.key, f]));
    expect(byKey.office_city?.value).toBe("Lisbon");
    expect(byKey.salary_band).toBeUndefined();
    expect(byKey.favourite_editor).toBeUndefined();
    expect(JSON.stringify(state)).not.toContain("4111");
    expect(byKey.billing_card?.value).toContain("[REDACTED:");
    expect(JSON.stringify(state.working_set)).not.toContain("correct horse");
    expect(JSON.stringify(state.working_set)).toContain("[REDACTED:");

    // The HR user of the same project sees the restricted fact; Bob sees his own preference.
    const hrState = (await call("GET", `/threads/${hr.thread}/state`)).json;
    expect(hrState.facts.map((f: any) => f.key)).toContain("salary_band");
    const bobState = (await call("GET", `/threads/${other.thread}/state`)).json;
    expect(bobState.facts.map((f: any) => f.key)).toContain("favourite_editor");
  });

  it("show secrets to a user cleared for them", async () => {
    const t = await newThread({
      user_id: "sec",
      authority: "employee",
      permissions: ["secrets:read", "pii:read"],
    });
    await t.events([fact("billing_card", "Card on file: 4111 1111 1111 1111", { id: "k1" })]);
    const state = (await call("GET", `/threads/${t.thread}/state`)).json;
    expect(state.facts[0].value).toContain("4111 1111 1111 1111");
  });
});
