import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FactReplica, type RawFactRow, REPLICA_PAGE } from "../src/project-index/fact-replica";
import { fact, newThread } from "./helpers";

/**
 * A replica far behind D1 (a project that predates it, a bulk import) catches up a page at a time,
 * whole revisions only, so that at every step it holds every row of every revision it claims; and what
 * it then answers is what the project holds. Run against the tenant's real D1 inside workerd, on an
 * index object no writer has told of anything.
 */
describe("the fact replica's catch-up", () => {
  it("reads a project larger than a page in pages of whole revisions", async () => {
    const t = await newThread();
    const total = REPLICA_PAGE + 400;
    for (let start = 0; start < total; start += 400) {
      const events = Array.from({ length: 400 }, (_, i) =>
        fact(`meter_${start + i}`, `Meter ${start + i} in hall ${(start + i) % 9} reads ${start + i} kWh`),
      );
      expect((await t.events(events)).status).toBe(200);
    }
    await t.events([fact("meter_7", "Meter 7 in hall 7 was replaced and reads 0 kWh")]);
    const database = env.TENANT_ACME_DB;
    const revisions = async () =>
      (
        await database
          .prepare(
            "SELECT revision, count(*) AS n FROM facts WHERE project_id = ? GROUP BY revision ORDER BY revision",
          )
          .bind(t.project)
          .all<{ revision: number; n: number }>()
      ).results;
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`pages-${t.project}`));
    await runInDurableObject(stub, async (_, state) => {
      const replica = new FactReplica(state.storage);
      expect(replica.revision()).toBe(-1);
      const first = await replica.catchUp(database, t.project, 1);
      expect(first.revision).toBeLessThan(first.latest);
      const held = () =>
        state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM replica_facts").one().n;
      // Exactly the rows of the revisions it claims: no revision is held in part.
      const claimed = (await revisions()).filter((r) => r.revision <= first.revision);
      expect(held()).toBe(claimed.reduce((sum, r) => sum + r.n, 0));
      expect(held()).toBeLessThanOrEqual(REPLICA_PAGE);

      const second = await replica.catchUp(database, t.project, 1);
      expect(second.revision).toBe(second.latest);
      expect(held()).toBe(total + 1);

      // It answers as D1 holds the project: the current version matched, the closed one as history.
      const rows = replica.search({
        userId: "u1",
        terms: ["meter", "7", "replaced"],
        similarIds: [],
        outside: { keys: [], ids: [] },
        entityIds: [],
      });
      const row = (id: string) => JSON.parse(rows.rows[id] as string) as RawFactRow;
      expect(rows.matched.some((id) => row(id).content.includes("was replaced"))).toBe(true);
      expect(rows.matched.every((id) => row(id).tx_end === null)).toBe(true);
      expect(rows.history.some((id) => row(id).key === "meter_7" && row(id).tx_end !== null)).toBe(true);
    });
  }, 120_000);
});
