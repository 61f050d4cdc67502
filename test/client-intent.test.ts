import { describe, expect, it } from "vitest";
import { call, fact, message, newThread } from "./helpers";

/**
 * Issue 14, item 11: a value the client wrote or cleared is never re-derived by extraction from older
 * messages.
 */

const at = (m: number) => `2025-03-01T10:${String(m).padStart(2, "0")}:00Z`;
type View = { key: string; value: unknown; source: { type: string } };

async function addressVersions(thread: string, project: string): Promise<View[]> {
  await call("POST", `/threads/${thread}/context`, { query: "What is my home address?" });
  const res = await call(
    "GET",
    `/facts?project_id=${project}&as_user=u1&include_history=true&key=home_address`,
  );
  return res.json.facts;
}

describe("client intent outranks extraction", () => {
  it("a value cleared in the same call as the message that stated it stays cleared", async () => {
    const t = await newThread();
    await t.events([
      message("My home address is 12 Rue de Rivoli, Paris.", { id: "m1" }),
      fact("home_address", "[deleted]", { id: "del" }),
    ]);
    const versions = await addressVersions(t.thread, t.project);
    expect(versions.map((v) => v.value)).toEqual(["[deleted]"]);
    const state = await call("GET", `/threads/${t.thread}/state`);
    const address = state.json.facts.filter((f: View) => f.key === "home_address");
    expect(address.map((f: View) => f.value)).toEqual(["[deleted]"]);
  });

  it("an address the client overwrote is not re-created from a message older than the overwrite", async () => {
    const t = await newThread();
    await t.events([message("My home address is 12 Rue de Rivoli, Paris.", { id: "m1", ts: at(1) })]);
    await t.context({ query: "address" });
    await t.events([fact("home_address", "[deleted]", { id: "del", ts: at(5) })]);
    // A late turn from before the overwrite, with change language, under the same or another key.
    await t.events([
      message("Actually, my home address is now 12 Rue de Rivoli, Paris.", { id: "m2", ts: at(3) }),
      message("To be clear, my address changed to 12 Rue de Rivoli, Paris.", { id: "m3", ts: at(4) }),
    ]);
    const versions = await addressVersions(t.thread, t.project);
    const current = versions.filter((v) => v.value === "[deleted]");
    expect(current).toHaveLength(1);
    const state = await call("GET", `/threads/${t.thread}/state`);
    expect(JSON.stringify(state.json.facts)).not.toContain("Rivoli");
  });
});
