import { describe, expect, it } from "vitest";
import { call, fact, newThread } from "./helpers";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("bitemporal reads", () => {
  it("reads by transaction time: what the system believed at a moment", async () => {
    const t = await newThread();
    await t.events([fact("office", "London", { id: "o1", ts: "2025-01-01T00:00:00Z" })]);
    const first = (await call("GET", `/facts?key=office&as_user=u1&project_id=${t.project}`)).json.facts[0];
    await wait(15);
    await t.events([fact("office", "Chicago", { id: "o2", ts: "2025-06-06T12:00:00Z" })]);
    const second = (await call("GET", `/facts?key=office&as_user=u1&project_id=${t.project}`)).json.facts[0];
    expect(second.id).toBe("o2");

    const believedThen = await call(
      "GET",
      `/facts?key=office&as_user=u1&project_id=${t.project}&as_of=${first.tx_start}`,
    );
    expect(believedThen.json.facts.map((f: any) => f.value)).toEqual(["London"]);
    const believedNow = await call(
      "GET",
      `/facts?key=office&as_user=u1&project_id=${t.project}&as_of=${second.tx_start}`,
    );
    expect(believedNow.json.facts.map((f: any) => f.value)).toEqual(["Chicago"]);
  });

  it("reads by valid time: what was true in the world at a moment", async () => {
    const t = await newThread();
    await t.events([
      fact("office", "London", { id: "v1", ts: "2025-01-01T00:00:00Z" }),
      fact("office", "Chicago", { id: "v2", ts: "2025-06-06T12:00:00Z", valid_from: "2025-06-06T12:00:00Z" }),
    ]);
    const march = await call(
      "GET",
      `/facts?key=office&as_user=u1&project_id=${t.project}&valid_at=2025-03-01T00:00:00Z`,
    );
    expect(march.json.facts.map((f: any) => f.value)).toEqual(["London"]);
    const july = await call(
      "GET",
      `/facts?key=office&as_user=u1&project_id=${t.project}&valid_at=2025-07-01T00:00:00Z`,
    );
    expect(july.json.facts.map((f: any) => f.value)).toEqual(["Chicago"]);
    const before = await call(
      "GET",
      `/facts?key=office&as_user=u1&project_id=${t.project}&valid_at=2024-01-01T00:00:00Z`,
    );
    expect(before.json.facts).toEqual([]);
  });

  it("omits facts outside their validity window as expired", async () => {
    const t = await newThread();
    await t.events([
      fact("promo", "20% off", {
        id: "e1",
        valid_from: "2025-01-01T00:00:00Z",
        valid_until: "2025-02-01T00:00:00Z",
      }),
      fact("launch", "v2 ships", { id: "e2", valid_from: "2026-01-01T00:00:00Z" }),
    ]);
    const ctx = await t.context({ query: "promo launch", now: "2025-03-01T00:00:00Z" });
    expect(ctx.json.context).not.toMatch(/20% off|v2 ships/);
    expect(ctx.json.trace.omitted).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ object_id: "e1", reason: "expired" }),
        expect.objectContaining({ object_id: "e2", reason: "expired" }),
      ]),
    );
    const inWindow = await t.context({ query: "promo", now: "2025-01-15T00:00:00Z" });
    expect(inWindow.json.context).toContain("20% off");
  });
});
