import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ask, call, fact, KEYS, message, newThread, until } from "./helpers";

/**
 * Issue 17 item 4: the entity registry through the public API. Facts are resolved before they are
 * written (their mentions bind to, review against, or create canonical entities), and the registry is
 * read, merged, split and reviewed through /v1/tenants/:t/entities.
 */

type EntityView = {
  id: string;
  canonical_name: string;
  entity_type: string;
  status: string;
  merged_into: string | null;
  aliases: { alias: string; source: string }[];
};
type Review = {
  id: string;
  entity_id: string;
  candidate_id: string;
  entity_name: string;
  candidate_name: string;
  status: string;
  score: number;
};

async function entities(project: string, query = "", tenant: "acme" | "globex" | "initech" = "acme") {
  const res = await call("GET", `/v1/tenants/${tenant}/entities?project_id=${project}${query}`, undefined, {
    tenant,
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.entities as EntityView[];
}
const named = (list: EntityView[], name: string) => {
  const found = list.find((e) => e.canonical_name === name);
  if (!found) throw new Error(`no entity '${name}' in ${list.map((e) => e.canonical_name).join(", ")}`);
  return found;
};
async function reviews(project: string, status = "open", tenant: "acme" | "globex" = "acme") {
  const res = await call(
    "GET",
    `/v1/tenants/${tenant}/entities/review?project_id=${project}&status=${status}`,
    undefined,
    { tenant },
  );
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.reviews as Review[];
}
/** An entity's page read as the test threads' user, who may see their own facts. */
const detail = async (id: string, query = "") => {
  const res = await call("GET", `/entities/${id}?as_user=u1${query}`);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json;
};

describe("resolution before writes", () => {
  it("registers what facts name, one entity per name whatever key or wording names it", async () => {
    const t = await newThread({
      user_id: "u1",
      user_name: "Ines Varga",
      authority: "manager",
      organization: "Tidewater",
    });
    const res = await t.events([
      fact("project_heron_budget", "$40,000", { id: "b1" }),
      fact("heron_launch", "Slips to June; Marisol Reed signs off", { id: "l1" }),
      fact("vendor", "Quarry Holdings", { id: "v1" }),
    ]);
    expect(res.status).toBe(200);
    const list = await entities(t.project);
    expect(list.map((e) => [e.canonical_name, e.entity_type, e.status]).sort()).toEqual([
      ["Ines Varga", "person", "active"],
      ["Marisol Reed", "person", "active"],
      ["Project Heron", "project", "active"],
      ["Quarry Holdings", "organization", "active"],
      ["Tidewater", "organization", "active"],
    ]);
    const heron = await detail(named(list, "Project Heron").id);
    expect(heron.aliases.map((a: { alias: string }) => a.alias)).toEqual(["Heron", "Project Heron"]);
    expect(heron.facts.map((f: { id: string }) => f.id)).toEqual(["b1", "l1"]);
    expect(heron.history.map((h: { event: string }) => h.event)).toEqual(["created"]);
    // The user and their organisation are registered from the thread identity.
    expect(named(list, "Ines Varga")).toMatchObject({
      metadata: { user_id: "u1" },
      provenance: { origin: "identity" },
    });
  });

  it("binds later mentions to the entity and adds their new words as aliases", async () => {
    const t = await newThread();
    await t.events([fact("owner", "Marisol Reed", { id: "o1" })]);
    await t.events([fact("approver", "Marisol Reed <marisol@tidewater.io>", { id: "a1" })]);
    const list = await entities(t.project);
    const reed = await detail(named(list, "Marisol Reed").id);
    expect(reed.entity_type).toBe("person");
    expect(reed.facts.map((f: { id: string }) => f.id)).toEqual(["a1", "o1"]);
    // The address beside the name is the same person's: an alias and metadata, not an entity of its own.
    expect(reed.aliases.map((a: { alias: string }) => a.alias)).toEqual([
      "Marisol Reed",
      "marisol@tidewater.io",
    ]);
    expect(reed.metadata).toMatchObject({ email: "marisol@tidewater.io", email_domain: "tidewater.io" });
    expect(list.map((e) => e.canonical_name)).toEqual(["Ada", "Marisol Reed"]);
  });

  it("keeps two people of one name apart when their addresses differ: an unequal identifier vetoes the bind", async () => {
    const t = await newThread();
    await t.events([fact("contact_a", "Leontyne Marsh <leontyne@brightwater.io>", { id: "c1" })]);
    await t.events([fact("contact_b", "Leontyne Marsh <leontyne@otherco.com>", { id: "c2" })]);
    const marshes = (await entities(t.project)).filter((e) => e.canonical_name === "Leontyne Marsh");
    expect(marshes.map((e) => e.status)).toEqual(["active", "active"]);
    const pages = await Promise.all(marshes.map((e) => detail(e.id)));
    const byFact = new Map(pages.map((p) => [p.facts.map((f: { id: string }) => f.id).join(","), p]));
    expect([...byFact.keys()].sort()).toEqual(["c1", "c2"]);
    expect(byFact.get("c1").metadata.email).toBe("leontyne@brightwater.io");
    expect(byFact.get("c2").metadata.email).toBe("leontyne@otherco.com");
    for (const page of pages) {
      // Each keeps its own address; neither gained the other's.
      const emails = page.aliases
        .map((a: { alias: string }) => a.alias)
        .filter((a: string) => a.includes("@"));
      expect(emails).toEqual([page.metadata.email]);
    }
    // In one batch too: the second address is not folded into the entity the first created.
    const u = await newThread();
    await u.events([
      fact("contact_a", "Leontyne Marsh <leontyne@brightwater.io>", { id: "d1" }),
      fact("contact_b", "Leontyne Marsh <leontyne@otherco.com>", { id: "d2" }),
    ]);
    const inBatch = (await entities(u.project)).filter((e) => e.canonical_name === "Leontyne Marsh");
    expect(inBatch).toHaveLength(2);
    const facts = await Promise.all(
      inBatch.map(async (e) => (await detail(e.id)).facts.map((f: { id: string }) => f.id)),
    );
    expect(facts.map((f) => f.join(",")).sort()).toEqual(["d1", "d2"]);
    // The bare name is now ambiguous between the two: it goes to review, not to either of them.
    await t.events([fact("escalation", "Leontyne Marsh", { id: "c3" })]);
    const open = await reviews(t.project);
    expect(open.map((r) => r.entity_name)).toEqual(["Leontyne Marsh"]);
    for (const page of await Promise.all(marshes.map((e) => detail(e.id)))) {
      expect(page.facts.map((f: { id: string }) => f.id)).not.toContain("c3");
    }
  });

  it("keeps near-miss names apart: another spelling goes to review, a shared word makes a new entity", async () => {
    const t = await newThread();
    await t.events([
      fact("owner", "Marisol Reed", { id: "o1" }),
      fact("project_atlas_status", "green", { id: "s1" }),
    ]);
    await t.events([
      fact("reviewer", "Marisol Reid", { id: "r1" }),
      fact("supplier", "Atlas Copco", { id: "s2" }),
    ]);
    const list = await entities(t.project);
    expect(named(list, "Marisol Reid").status).toBe("pending");
    expect(named(list, "Atlas Copco").status).toBe("active");
    expect(named(list, "Atlas Copco").id).not.toBe(named(list, "Project Atlas").id);
    const open = await reviews(t.project);
    expect(open.map((r) => [r.entity_name, r.candidate_name])).toEqual([["Marisol Reid", "Marisol Reed"]]);
    expect(open[0]?.score).toBeGreaterThan(0.7);
    expect(open[0]?.score).toBeLessThan(0.95);
    const reed = await detail(named(list, "Marisol Reed").id);
    expect(reed.facts.map((f: { id: string }) => f.id)).toEqual(["o1"]);
  });

  it("follows the tenant's thresholds", async () => {
    for (const tenant of ["acme", "globex"] as const) {
      const t = await newThread(undefined, { tenant });
      await t.events([fact("owner", "Marisol Reed", { id: "o1" })]);
      await t.events([fact("backup_owner", "Marisol", { id: "o2" })]);
      const list = await entities(t.project, "", tenant);
      const reed = named(list, "Marisol Reed");
      if (tenant === "globex") {
        expect(reed.aliases.map((a) => a.alias)).toContain("Marisol");
        expect(await reviews(t.project, "open", tenant)).toEqual([]);
      } else {
        expect(reed.aliases.map((a) => a.alias)).not.toContain("Marisol");
        expect((await reviews(t.project, "open", tenant)).map((r) => r.candidate_id)).toEqual([reed.id]);
      }
    }
  });

  it("writes a fact whatever its text, keeping runs of capitals and long keys out of the registry", async () => {
    const t = await newThread();
    const shouting = Array.from({ length: 3000 }, (_, i) => `Word${String.fromCharCode(97 + (i % 26))}`).join(
      " ",
    );
    const key = Array.from({ length: 30 }, (_, i) => `part${i}`).join("_");
    const res = await t.events([fact(key, `${shouting}. Ask Oskar Brandt.`, { id: "long" })]);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const names = (await entities(t.project)).map((e) => e.canonical_name);
    expect(names).toEqual(["Ada", "Oskar Brandt"]);
  });

  it("keeps the registry with the project's database when a tenant has several", async () => {
    const run = Math.random().toString(36).slice(2, 8);
    const projects = [`ent-${run}-a`, `ent-${run}-b`, `ent-${run}-c`, `ent-${run}-d`];
    for (const project of projects) {
      const t = await newThread(undefined, { tenant: "initech", project });
      await t.events([fact("project_osprey_phase", "pilot", { id: "p1" })]);
    }
    const counts = await Promise.all(
      [env.TENANT_INITECH_DB, env.TENANT_INITECH_DB_2].map(async (db) =>
        Promise.all(
          projects.map(
            async (p) =>
              (
                await db
                  .prepare("SELECT count(*) AS n FROM entities WHERE project_id = ?")
                  .bind(p)
                  .first<{ n: number }>()
              )?.n ?? 0,
          ),
        ),
      ),
    );
    // Each project's entities are in exactly one of the two databases: the one holding its facts.
    for (const [i] of projects.entries()) {
      expect([counts[0]?.[i] ?? 0, counts[1]?.[i] ?? 0].filter((n) => n > 0)).toHaveLength(1);
    }
    const all = await call("GET", "/v1/tenants/initech/entities?name=project%20osprey&limit=500", undefined, {
      tenant: "initech",
    });
    const found = (all.json.entities as { project_id: string }[])
      .map((e) => e.project_id)
      .filter((p) => projects.includes(p));
    expect(found.sort()).toEqual(projects);
  });
});

describe("GET /entities", () => {
  it("pages by name with a cursor, and filters by type, name and status", async () => {
    const t = await newThread();
    await t.events([
      fact("team", "the billing squad", { id: "f1" }),
      fact("office", "the Lisbon office", { id: "f2" }),
      fact("project_kite_lead", "Oskar Brandt", { id: "f3" }),
      fact("repo", "the invoices repo", { id: "f4" }),
      fact("doc", "see OPS-4471", { id: "f5" }),
    ]);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { json: { entities: EntityView[]; next_cursor: string | null } } = await call(
        "GET",
        `/entities?project_id=${t.project}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...res.json.entities.map((e) => e.canonical_name));
      cursor = res.json.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual([
      "Ada",
      "Billing squad",
      "Invoices repo",
      "Lisbon office",
      "OPS-4471",
      "Oskar Brandt",
      "Project Kite",
    ]);
    expect(pages).toBe(4);
    expect((await entities(t.project, "&type=place")).map((e) => e.canonical_name)).toEqual([
      "Lisbon office",
    ]);
    expect((await entities(t.project, "&name=KITE")).map((e) => e.canonical_name)).toEqual(["Project Kite"]);
    expect(await entities(t.project, "&status=merged")).toEqual([]);
  });

  it("refuses a cursor it did not issue, an unknown type and a limit out of range, naming the field", async () => {
    for (const [path, field] of [
      ["/entities?cursor=abc", "query.cursor"],
      ["/entities?type=planet", "query.type"],
      ["/entities?limit=0", "query.limit"],
      ["/entities?limit=abc", "query.limit"],
      ["/entities/review?limit=abc", "query.limit"],
      ["/entities/review?limit=501", "query.limit"],
      ["/entities/review?cursor=abc", "query.cursor"],
    ]) {
      const res = await call("GET", path as string);
      expect(res.status).toBe(400);
      expect(res.contentType).toContain("application/problem+json");
      // Each bad field once: a word given as a limit is not also reported as out of range.
      expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    expect((await call("GET", "/entities/no-such-entity")).status).toBe(404);
  });

  it("refuses a name filter that normalises to nothing, naming query.name", async () => {
    const t = await newThread();
    await t.events([fact("office", "the Lisbon office", { id: "f1" })]);
    for (const name of ["---", "%25", "%20.%20"]) {
      const res = await call("GET", `/entities?project_id=${t.project}&name=${name}`);
      expect(res.status, name).toBe(400);
      expect(res.contentType).toContain("application/problem+json");
      expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual(["query.name"]);
    }
    // Punctuation around a name is still a name.
    expect((await entities(t.project, "&name=--lisbon--")).map((e) => e.canonical_name)).toEqual([
      "Lisbon office",
    ]);
  });

  it("says a limit out of range is out of range, however many digits it has", async () => {
    for (const path of [
      "/entities?limit=1000",
      "/entities/review?limit=1000",
      "/entities/review?limit=501",
      "/entities/some-entity/messages?limit=123456789",
      "/entities?limit=0",
    ]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(400);
      expect(res.json.errors, path).toEqual([{ field: "query.limit", message: "must be between 1 and 500" }]);
    }
    for (const path of ["/entities?limit=ten", "/entities/review?limit=-5", "/entities?limit=2.5"]) {
      const res = await call("GET", path);
      expect(res.json.errors, path).toEqual([{ field: "query.limit", message: "must be a whole number" }]);
    }
  });

  it("refuses a cursor issued for another list: other filters, or another list altogether", async () => {
    const t = await newThread();
    await t.events([
      fact("office", "the Lisbon office", { id: "f1" }),
      fact("office_2", "the Tallinn office", { id: "f2" }),
      fact("office_3", "the Oporto office", { id: "f3" }),
      fact("team", "the billing squad", { id: "f4" }),
    ]);
    const first = await call("GET", `/entities?project_id=${t.project}&type=place&limit=1`);
    expect(first.status).toBe(200);
    const cursor = first.json.next_cursor as string;
    expect(cursor).toBeTruthy();
    // The same list goes on.
    const next = await call("GET", `/entities?project_id=${t.project}&type=place&limit=1&cursor=${cursor}`);
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    expect(next.json.entities).toHaveLength(1);
    for (const other of [
      `/entities?project_id=${t.project}&type=team&limit=1&cursor=${cursor}`,
      `/entities?project_id=${t.project}&limit=1&cursor=${cursor}`,
      `/entities?project_id=${t.project}&type=place&name=tallinn&limit=1&cursor=${cursor}`,
      `/entities?project_id=${t.project}&type=place&status=merged&limit=1&cursor=${cursor}`,
      `/entities?type=place&limit=1&cursor=${cursor}`,
      `/entities/review?project_id=${t.project}&cursor=${cursor}`,
    ]) {
      const res = await call("GET", other);
      expect(res.status, other).toBe(400);
      expect(res.contentType).toContain("application/problem+json");
      expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual(["query.cursor"]);
    }
  });

  it("says when an entity's facts were read without a viewer, while its messages are listed to all", async () => {
    const t = await newThread({ user_id: "u1", user_name: "Ada", authority: "employee" });
    await t.events([
      fact("project_kite_budget", "$9,000", { id: "k1" }),
      message("Is Project Kite still on budget?", { id: "m1" }),
    ]);
    await until(
      () => call("GET", `/threads/${t.thread}/extractions`),
      (res) => res.json?.watermark?.pending_messages === 0,
    );
    const kite = named(await entities(t.project), "Project Kite");
    const anonymous = await call("GET", `/entities/${kite.id}`);
    expect(anonymous.status).toBe(200);
    // The thread user's own fact needs their eyes; the page says its facts were filtered.
    expect(anonymous.json.facts).toEqual([]);
    expect(anonymous.json.facts_filtered).toBe(true);
    expect(anonymous.json.messages.map((m: { mention: string }) => m.mention)).toEqual(["project kite"]);
    const own = await detail(kite.id);
    expect(own.facts_filtered).toBe(false);
    expect(own.facts.map((f: { id: string }) => f.id)).toEqual(["k1"]);
    const byRole = await call("GET", `/entities/${kite.id}?roles=hr`);
    expect(byRole.json.facts_filtered).toBe(false);
  });

  it("lists only the facts the viewer may see on an entity's page", async () => {
    const t = await newThread({ user_id: "u1", user_name: "Ada", authority: "employee" });
    await t.events([
      fact("project_kite_budget", "$9,000", { id: "open" }),
      fact("project_kite_salary_band", "L5", { id: "hr", allow_roles: ["hr"] }),
    ]);
    const kite = named(await entities(t.project), "Project Kite");
    expect((await detail(kite.id)).facts.map((f: { id: string }) => f.id)).toEqual(["open"]);
    expect((await detail(kite.id, "&roles=hr")).facts.map((f: { id: string }) => f.id)).toEqual([
      "hr",
      "open",
    ]);
  });
});

/** A thread with two facts, and the two entities (by name) they registered apart. */
async function twoEntities(a: [key: string, value: string, id: string, name: string], b: typeof a) {
  const t = await newThread();
  await t.events([fact(a[0], a[1], { id: a[2] }), fact(b[0], b[1], { id: b[2] })]);
  const list = await entities(t.project);
  return { t, first: named(list, a[3]), second: named(list, b[3]) };
}

/** A thread whose facts name two companies, registered apart: Quarry Holdings and QH Group. */
async function twoCompanies() {
  const { t, first, second } = await twoEntities(
    ["vendor", "Quarry Holdings", "v1", "Quarry Holdings"],
    ["supplier", "QH Group", "v2", "QH Group"],
  );
  return { t, quarry: first, qh: second };
}

/** A thread whose second write names a near miss of a name of its first: the one open review between them. */
async function nearMiss(first: unknown[], second: unknown[], names: [pending: string, candidate: string]) {
  const t = await newThread();
  await t.events(first);
  await t.events(second);
  const [review] = await reviews(t.project);
  expect(review).toMatchObject({ entity_name: names[0], candidate_name: names[1] });
  if (!review) throw new Error("expected a review");
  return { t, review };
}

describe("merge, split and review", () => {
  it("merges one entity into another: aliases and facts move, the absorbed one is kept as merged, and the history says so", async () => {
    const { t, quarry, qh } = await twoCompanies();
    const merged = await call("POST", `/entities/${quarry.id}/merge?as_user=u1`, {
      entity_id: qh.id,
      reason: "same company",
    });
    expect(merged.status, JSON.stringify(merged.json)).toBe(200);
    expect(merged.json.aliases.map((a: { alias: string }) => a.alias).sort()).toEqual([
      "QH Group",
      "Quarry Holdings",
    ]);
    expect(merged.json.facts.map((f: { id: string }) => f.id)).toEqual(["v1", "v2"]);
    // A team and an organisation are related kinds: they merge, and the history records the types.
    expect(merged.json.history[0]).toMatchObject({
      event: "absorbed",
      other_entity_id: qh.id,
      detail: {
        reason: "same company",
        aliases: ["QH Group"],
        facts: 1,
        messages: 0,
        type_change: { survivor: "organization", absorbed: "team", now: "organization" },
      },
    });
    const absorbed = await detail(qh.id);
    expect(absorbed).toMatchObject({ status: "merged", merged_into: quarry.id, aliases: [], facts: [] });
    expect(absorbed.history[0]).toMatchObject({ event: "merged_into", other_entity_id: quarry.id });
    // A later mention of the absorbed name binds to the survivor.
    await t.events([fact("carrier", "QH Group", { id: "v3" })]);
    expect((await detail(quarry.id)).facts.map((f: { id: string }) => f.id)).toEqual(["v1", "v2", "v3"]);
    // No review is opened about the absorbed entity, and it gains no names back: the merge answered it.
    expect(await reviews(t.project)).toEqual([]);
    expect(await detail(qh.id)).toMatchObject({ status: "merged", aliases: [], facts: [] });
    expect((await call("POST", `/entities/${quarry.id}/merge`, { entity_id: qh.id })).status).toBe(409);
  });

  it("refuses a review decision with an unknown key, naming the key", async () => {
    const res = await call("POST", "/entities/review/no-such-review", { decision: "accept", reson: "same" });
    expect(res.status).toBe(400);
    expect(res.contentType).toContain("application/problem+json");
    expect(res.json.errors).toEqual([{ field: "reson", message: "is not a known field" }]);
    // The same body, spelt right, is valid: the review is then looked up.
    const spelt = await call("POST", "/entities/review/no-such-review", {
      decision: "accept",
      reason: "same",
    });
    expect(spelt.status).toBe(404);
  });

  it("refuses a merge with itself, an unknown entity or a missing field, naming the field", async () => {
    const t = await newThread();
    await t.events([fact("vendor", "Quarry Holdings", { id: "v1" })]);
    const quarry = named(await entities(t.project), "Quarry Holdings");
    const self = await call("POST", `/entities/${quarry.id}/merge`, { entity_id: quarry.id });
    expect([self.status, self.json.errors]).toEqual([
      400,
      [{ field: "entity_id", message: "must name another entity" }],
    ]);
    const unknown = await call("POST", `/entities/${quarry.id}/merge`, { entity_id: "nobody" });
    expect([unknown.status, unknown.json.errors[0].field]).toEqual([404, "entity_id"]);
    const missing = await call("POST", `/entities/${quarry.id}/merge`, {});
    expect([missing.status, missing.json.errors[0].field]).toEqual([400, "entity_id"]);
  });

  it("refuses to merge entities of two types unless allow_type_change is given, and records the change", async () => {
    const { first: reed, second: kestrel } = await twoEntities(
      ["owner", "Marisol Reed", "o1", "Marisol Reed"],
      ["ingest", "the Kestrel service drops batches", "k1", "Kestrel service"],
    );
    expect([reed.entity_type, kestrel.entity_type]).toEqual(["person", "system"]);
    const refused = await call("POST", `/entities/${reed.id}/merge`, { entity_id: kestrel.id });
    expect(refused.status, JSON.stringify(refused.json)).toBe(409);
    expect(refused.contentType).toContain("application/problem+json");
    expect(refused.json.errors.map((e: { field: string }) => e.field)).toEqual(["entity_id"]);
    expect(refused.json.detail).toContain("allow_type_change");
    expect((await detail(kestrel.id)).status).toBe("active");
    const notFlag = await call("POST", `/entities/${reed.id}/merge`, {
      entity_id: kestrel.id,
      allow_type_change: "yes",
    });
    expect([notFlag.status, notFlag.json.errors[0].field]).toEqual([400, "allow_type_change"]);
    const forced = await call("POST", `/entities/${reed.id}/merge?as_user=u1`, {
      entity_id: kestrel.id,
      allow_type_change: true,
    });
    expect(forced.status, JSON.stringify(forced.json)).toBe(200);
    expect(forced.json.entity_type).toBe("person");
    expect(forced.json.facts.map((f: { id: string }) => f.id)).toEqual(["k1", "o1"]);
    expect(forced.json.history[0]).toMatchObject({
      event: "absorbed",
      detail: {
        facts: 1,
        messages: 0,
        type_change: { survivor: "person", absorbed: "system", now: "person" },
      },
    });
  });

  it("merges a typed entity into an untyped one: the survivor takes the type, and the history says so", async () => {
    const {
      t,
      first: quarry,
      second: bluefin,
    } = await twoEntities(
      ["vendor", "Quarry Holdings", "v1", "Quarry Holdings"],
      ["ledger", "Bluefin Ledger", "b1", "Bluefin Ledger"],
    );
    expect([quarry.entity_type, bluefin.entity_type]).toEqual(["organization", "other"]);
    const merged = await call("POST", `/entities/${bluefin.id}/merge`, { entity_id: quarry.id });
    expect(merged.status, JSON.stringify(merged.json)).toBe(200);
    expect(merged.json.entity_type).toBe("organization");
    expect(merged.json.history[0].detail.type_change).toEqual({
      survivor: "other",
      absorbed: "organization",
      now: "organization",
    });
    // An untyped entity that a typed mention binds takes its type, and the history says so too.
    await t.events([fact("ledger_vendor", "Zephyr Quill", { id: "z1" })]);
    const zephyr = named(await entities(t.project), "Zephyr Quill");
    expect(zephyr.entity_type).toBe("other");
    await t.events([fact("ledger_owner", "Zephyr Quill <zephyr@quill.io>", { id: "z2" })]);
    const typed = await detail(zephyr.id);
    expect(typed.entity_type).toBe("person");
    expect(typed.history.filter((h: { event: string }) => h.event === "retyped")).toMatchObject([
      { detail: { from: "other", to: "person" } },
    ]);
  });

  it("answers a body not sent as JSON to a merge, split or review with a 415 problem", async () => {
    const { quarry, qh } = await twoCompanies();
    for (const path of [
      `/entities/${quarry.id}/merge`,
      `/entities/${quarry.id}/split`,
      "/entities/review/r1",
    ]) {
      const res = await SELF.fetch(`https://tenure.test/v1/tenants/acme${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEYS.acme}`, "content-type": "text/plain" },
        body: JSON.stringify({ entity_id: qh.id, aliases: ["QH Group"], decision: "accept" }),
      });
      expect(res.status, path).toBe(415);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
    expect((await detail(qh.id)).status).toBe("active");
  });

  it("splits aliases, with the facts that used them, into a new entity", async () => {
    const { quarry, qh } = await twoCompanies();
    await call("POST", `/entities/${quarry.id}/merge`, { entity_id: qh.id });
    const split = await call("POST", `/entities/${quarry.id}/split`, {
      aliases: ["qh group"],
      entity_type: "organization",
    });
    expect(split.status, JSON.stringify(split.json)).toBe(201);
    expect(split.json.created).toMatchObject({
      canonical_name: "QH Group",
      entity_type: "organization",
      status: "active",
    });
    expect(split.json.entity.aliases.map((a: { alias: string }) => a.alias)).toEqual(["Quarry Holdings"]);
    expect((await detail(split.json.created.id)).facts.map((f: { id: string }) => f.id)).toEqual(["v2"]);
    expect((await detail(quarry.id)).facts.map((f: { id: string }) => f.id)).toEqual(["v1"]);
    expect((await detail(quarry.id)).history[0]).toMatchObject({
      event: "split",
      other_entity_id: split.json.created.id,
    });
    const notAlias = await call("POST", `/entities/${quarry.id}/split`, {
      aliases: ["Quarry Holdings", "Granite"],
    });
    expect([notAlias.status, notAlias.json.errors[0].field]).toEqual([400, "aliases.1"]);
    const everything = await call("POST", `/entities/${quarry.id}/split`, { aliases: ["Quarry Holdings"] });
    expect([everything.status, everything.json.errors[0].field]).toEqual([400, "aliases"]);
  });

  it("refuses a split whose canonical name the entity keeps or another entity goes by, naming canonical_name", async () => {
    const { t, review } = await nearMiss(
      [fact("owner", "Priya Raman", { id: "p1" }), fact("vendor", "Quarry Holdings", { id: "v1" })],
      [fact("reviewer", "Priya Ramen", { id: "p2" })],
      ["Priya Ramen", "Priya Raman"],
    );
    expect((await call("POST", `/entities/review/${review.id}`, { decision: "accept" })).status).toBe(200);
    const priya = review.candidate_id;
    for (const name of ["Priya Raman", "priya  RAMAN", "Quarry Holdings"]) {
      const res = await call("POST", `/entities/${priya}/split`, {
        aliases: ["Priya Ramen"],
        canonical_name: name,
      });
      expect(res.status, JSON.stringify(res.json)).toBe(400);
      expect(res.contentType).toContain("application/problem+json");
      expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual(["canonical_name"]);
    }
    // Nothing moved: one Priya Raman, still with both names and both facts.
    const list = await entities(t.project);
    expect(list.filter((e) => e.canonical_name === "Priya Raman")).toHaveLength(1);
    expect((await detail(priya)).facts.map((f: { id: string }) => f.id)).toEqual(["p1", "p2"]);
    // A name of the moved aliases, or one no entity goes by, is the new entity's.
    const split = await call("POST", `/entities/${priya}/split`, {
      aliases: ["Priya Ramen"],
      canonical_name: "Priya Ramen-Okafor",
    });
    expect(split.status, JSON.stringify(split.json)).toBe(201);
    expect(split.json.created.canonical_name).toBe("Priya Ramen-Okafor");
    expect(split.json.entity.canonical_name).toBe("Priya Raman");
    // A later mention of the name binds to the one entity that goes by it.
    await t.events([fact("approver", "Priya Raman", { id: "p3" })]);
    expect((await detail(priya)).facts.map((f: { id: string }) => f.id)).toEqual(["p1", "p3"]);
  });

  it("accepts a review: the pending node is merged into its candidate, with its facts and name", async () => {
    const t = await newThread();
    await t.events([fact("owner", "Marisol Reed", { id: "o1" })]);
    await t.events([fact("backup_owner", "Marisol", { id: "o2" })]);
    const [review] = await reviews(t.project);
    if (!review) throw new Error("expected a review");
    const res = await call("POST", `/entities/review/${review.id}`, {
      decision: "accept",
      reason: "same person",
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.review).toMatchObject({ status: "accepted", reason: "same person" });
    expect(res.json.entity.id).toBe(review.candidate_id);
    expect(res.json.entity.aliases.map((a: { alias: string }) => a.alias)).toContain("Marisol");
    const reed = await detail(review.candidate_id);
    expect(reed.facts.map((f: { id: string }) => f.id)).toEqual(["o1", "o2"]);
    expect(
      reed.history
        .map((h: { event: string }) => h.event)
        .slice(0, 2)
        .sort(),
    ).toEqual(["absorbed", "review_accepted"]);
    expect(await reviews(t.project)).toEqual([]);
    expect((await reviews(t.project, "accepted")).map((r) => r.id)).toEqual([review.id]);
    // The accepted name now binds without review.
    await t.events([fact("escalation_contact", "Marisol", { id: "o3" })]);
    expect(await reviews(t.project)).toEqual([]);
    const again = await call("POST", `/entities/review/${review.id}`, { decision: "reject" });
    expect(again.status).toBe(409);
  });

  it("keeps a review open when its candidate is merged away, and accepting it then merges the pending node into the survivor", async () => {
    const { t, review } = await nearMiss(
      [
        fact("account_owner", "Ottilie Brannock", { id: "o1" }),
        fact("billing_owner", "Ottilie Brannock-Hale", { id: "o2" }),
      ],
      [fact("refund_contact", "Ottilie Brannick", { id: "r1" })],
      ["Ottilie Brannick", "Ottilie Brannock"],
    );
    const hale = named(await entities(t.project), "Ottilie Brannock-Hale");
    const merged = await call("POST", `/entities/${hale.id}/merge`, { entity_id: review.candidate_id });
    expect(merged.status, JSON.stringify(merged.json)).toBe(200);
    // The question the review asks (is Brannick that person?) is still open, about the survivor now;
    // the review still names the candidate it was opened against.
    const open = await reviews(t.project);
    expect(open.map((r) => [r.id, r.status, r.candidate_id])).toEqual([
      [review.id, "open", review.candidate_id],
    ]);
    expect((await detail(review.entity_id)).status).toBe("pending");
    // The survivor's page lists the review it now answers.
    expect((await detail(hale.id)).reviews.map((r: Review) => [r.id, r.status])).toEqual([
      [review.id, "open"],
    ]);
    const accepted = await call("POST", `/entities/review/${review.id}`, { decision: "accept" });
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
    expect(accepted.json.review.status).toBe("accepted");
    expect(accepted.json.entity.id).toBe(hale.id);
    expect(await detail(review.entity_id)).toMatchObject({ status: "merged", merged_into: hale.id });
    const survivor = await detail(hale.id);
    expect(survivor.facts.map((f: { id: string }) => f.id)).toEqual(["o1", "o2", "r1"]);
    expect(survivor.aliases.map((a: { alias: string }) => a.alias)).toContain("Ottilie Brannick");
    expect(survivor.history.find((h: { event: string }) => h.event === "review_accepted")).toMatchObject({
      other_entity_id: review.entity_id,
    });
  });

  it("closes a review when its pending node absorbs its candidate: the merge answered it", async () => {
    const { t, review } = await nearMiss(
      [fact("account_owner", "Ottilie Brannock", { id: "o1" })],
      [fact("refund_contact", "Ottilie Brannick", { id: "r1" })],
      ["Ottilie Brannick", "Ottilie Brannock"],
    );
    const merged = await call("POST", `/entities/${review.entity_id}/merge`, {
      entity_id: review.candidate_id,
    });
    expect(merged.status, JSON.stringify(merged.json)).toBe(200);
    expect(merged.json.status).toBe("active");
    expect(await reviews(t.project)).toEqual([]);
    expect((await reviews(t.project, "closed")).map((r) => r.id)).toEqual([review.id]);
  });

  it("rejects a review: the pending node becomes an entity of its own", async () => {
    const t = await newThread();
    await t.events([
      fact("owner", "Marisol Reed", { id: "o1" }),
      fact("reviewer", "Marisol Reid", { id: "r1" }),
    ]);
    const [review] = await reviews(t.project);
    if (!review) throw new Error("expected a review");
    const res = await call("POST", `/entities/review/${review.id}`, { decision: "reject" });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.review.status).toBe("rejected");
    expect(res.json.entity).toMatchObject({
      id: review.entity_id,
      canonical_name: "Marisol Reid",
      status: "active",
    });
    expect((await detail(review.entity_id)).facts.map((f: { id: string }) => f.id)).toEqual(["r1"]);
    const bad = await call("POST", `/entities/review/${review.id}`, { decision: "maybe" });
    expect([bad.status, bad.json.errors[0].field]).toEqual([400, "decision"]);
    expect((await call("POST", "/entities/review/none", { decision: "accept" })).status).toBe(404);
  });
});

describe("pending entities and high-authority constraints (seed 001)", () => {
  it("keeps a constraint naming a pending entity out of the MUST rules until its review is accepted", async () => {
    const t = await newThread();
    await t.events([fact("account_owner", "Ottilie Brannock", { id: "o1" })]);
    // "Ottilie Brannick" is one letter off a registered name: a pending node and a review, not a merge.
    await t.events([
      fact("refund_rule", "Always route refunds for Ottilie Brannick through finance", {
        id: "r1",
        is_constraint: true,
        source: { type: "policy" },
      }),
      fact("shipping", "Always confirm the shipping address", { id: "c2", is_constraint: true }),
    ]);
    const [review] = await reviews(t.project);
    expect(review).toMatchObject({ entity_name: "Ottilie Brannick", candidate_name: "Ottilie Brannock" });
    if (!review) throw new Error("expected a review");
    const before = await ask(t, "how are refunds routed?");
    const line = before.context.split("\n").find((l) => l.includes("Ottilie Brannick")) ?? "";
    // Still in the context, as guidance that says why, never as a hard rule.
    expect(line).not.toMatch(/\b(?:MUST|DO NOT):/);
    expect(line).toMatch(/SHOULD:/);
    expect(line).toContain("pending entity review: Ottilie Brannick");
    const entry = before.trace.compiled.find((c: { object_id: string }) => c.object_id === "r1");
    expect(entry).toMatchObject({ compiled_as: "behavioral_guidance", pending_entities: [review.entity_id] });
    // A constraint that names no pending entity still binds.
    expect(before.context).toMatch(/MUST: shipping \[constraint\]: Always confirm the shipping address/);
    expect(before.trace.compiled.find((c: { object_id: string }) => c.object_id === "c2").compiled_as).toBe(
      "hard_constraint",
    );

    const accepted = await call("POST", `/entities/review/${review.id}`, { decision: "accept" });
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
    // The same question from the same thread: the decision reaches its held search at once.
    const after = await ask(t, "how are refunds routed?");
    expect(after.context).toMatch(
      /MUST: refund_rule \[constraint\]: Always route refunds for Ottilie Brannick/,
    );
    const resolved = after.trace.compiled.find((c: { object_id: string }) => c.object_id === "r1");
    expect(resolved.compiled_as).toBe("hard_constraint");
    expect(resolved.pending_entities).toBeUndefined();
  });
});
