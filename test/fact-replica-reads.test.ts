import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { entityLookup, queryEntities } from "../src/entities/query-entities";
import { FactCandidateCache, HELD_SEARCHES, type ProjectFactSearch } from "../src/facts/fact-candidate-cache";
import { searchTerms, WHOLE_PROJECT_VERSIONS } from "../src/facts/fact-candidates";
import { FactRepository } from "../src/facts/fact-repository";
import { fullFactRow } from "../src/facts/fact-rows";
import {
  FactReplica,
  type RawFactRow,
  REPLICA_PAGE,
  type ReplicaQuery,
} from "../src/project-index/fact-replica";
import { projectIndexStub } from "../src/project-index/project-index-stub";
import { RANKED_MATCH_BUDGET, rankedTerms } from "../src/retrieval/query-terms";
import { call, countingDatabase, fact, newThread, revisionOf, until } from "./helpers";

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
        known: [],
        since: 0,
      });
      const row = (id: string) => fullFactRow(JSON.parse(rows.rows[id] as string)) as RawFactRow;
      expect(rows.matched.some((id) => row(id).content.includes("was replaced"))).toBe(true);
      expect(rows.matched.every((id) => row(id).tx_end === null)).toBe(true);
      expect(rows.history.some((id) => row(id).key === "meter_7" && row(id).tx_end !== null)).toBe(true);

      // A version the reader holds as it is now is named, not sent again; one it holds from before its
      // last change is sent.
      const question = {
        userId: "u1",
        terms: ["meter", "7", "replaced"],
        similarIds: [],
        outside: { keys: [], ids: [] },
        entityIds: [],
      };
      const current = rows.matched.find((id) => row(id).content.includes("was replaced")) as string;
      const named = replica.search({ ...question, known: [current], since: second.revision });
      expect(named.matched).toEqual(rows.matched);
      expect(named.history).toEqual(rows.history);
      expect(named.rows[current]).toBeUndefined();
      expect(Object.keys(named.rows).length).toBe(Object.keys(rows.rows).length - 1);
      const stale = replica.search({ ...question, known: [current], since: row(current).revision - 1 });
      expect(stale.rows[current]).toBe(rows.rows[current]);
    });
  }, 120_000);
});

/**
 * A writer's word brings the replica to the write's revision before it is answered: the question that
 * follows a write finds the replica current instead of reading D1 while it waits.
 */
describe("the fact replica after a writer's word", () => {
  it("holds the written revision once the word is answered", async () => {
    const t = await newThread();
    await t.events([fact("ferry_dock", "The ferry leaves from dock 4")]);
    const projectRevision = () => revisionOf(t.project);
    // An index object no writer has told of anything, so nothing but the word below can bring it on.
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`word-${t.project}`));
    const held = () => runInDurableObject(stub, (_, state) => new FactReplica(state.storage).revision());
    expect(await held()).toBe(-1);
    const first = await projectRevision();
    await stub.advance("acme", t.project, first);
    expect(await held()).toBe(first);

    await t.events([fact("ferry_dock", "The ferry leaves from dock 6 from Monday")]);
    const second = await projectRevision();
    expect(second).toBeGreaterThan(first);
    await stub.advance("acme", t.project, second);
    expect(await held()).toBe(second);
    // Words arriving together are answered by the reads already made.
    await Promise.all([stub.advance("acme", t.project, second), stub.advance("acme", t.project, first)]);
    expect(await held()).toBe(second);
  }, 60_000);
});

/**
 * A replica written before rows carried what they refer to (the version a correction supersedes, those a
 * figure depends on) reads it from the rows it holds when the object next starts, so the slots of what a
 * correction corrected are read with it, without reading the project from D1 again.
 */
describe("a replica from before rows carried their references", () => {
  it("reads them from the rows it holds, once", async () => {
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`refs-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (_, state) => {
      const sql = state.storage.sql;
      // The object made its replica when it started: it is replaced by one of the earlier layout.
      sql.exec("DROP TABLE replica_facts");
      sql.exec("DROP TABLE replica_layout");
      sql.exec(`CREATE TABLE replica_facts (doc INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
        key TEXT NOT NULL, user_id TEXT, tx_start TEXT NOT NULL, tx_end TEXT, row TEXT NOT NULL,
        revision INTEGER)`);
      const row = (id: string, supersedes: string | null, dependsOn: string[]) =>
        JSON.stringify({ id, key: id, supersedes, depends_on_json: JSON.stringify(dependsOn) });
      for (const [id, row_] of [
        ["plain", row("plain", null, [])],
        ["correction", row("correction", "original", [])],
        ["figure", row("figure", null, ["price", "rate"])],
        // Not a list: it refers to nothing, and costs no statement.
        ["broken", JSON.stringify({ id: "broken", key: "broken", depends_on_json: "{not json" })],
      ] as const) {
        sql.exec(
          "INSERT INTO replica_facts (id, key, tx_start, row, revision) VALUES (?, ?, '2024', ?, 1)",
          id,
          id,
          row_,
        );
      }
      new FactReplica(state.storage);
      const refs = sql
        .exec<{ id: string; refs: string | null }>("SELECT id, refs FROM replica_facts ORDER BY id")
        .toArray();
      expect(refs).toEqual([
        { id: "broken", refs: null },
        { id: "correction", refs: JSON.stringify(["original"]) },
        { id: "figure", refs: JSON.stringify(["price", "rate"]) },
        { id: "plain", refs: null },
      ]);
    });
  });
});

describe("a replica whose references missed what its rows depend on", () => {
  it("reads them again from the rows it holds, once", async () => {
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`refs-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (_, state) => {
      const sql = state.storage.sql;
      // As an object of the earlier layout left it: refs held the superseded version only.
      sql.exec("DROP TABLE replica_layout");
      const row = JSON.stringify({
        id: "figure",
        key: "figure",
        supersedes: "old",
        depends_on_json: '["price"]',
      });
      sql.exec(
        `INSERT INTO replica_facts (id, key, tx_start, row, revision, refs)
          VALUES ('figure', 'figure', '2024', ?, 1, '["old"]')`,
        row,
      );
      new FactReplica(state.storage);
      const read = () => sql.exec<{ refs: string }>("SELECT refs FROM replica_facts").one().refs;
      expect(read()).toBe(JSON.stringify(["old", "price"]));
      // Once: a later start leaves what the rows hold as it is.
      sql.exec(`UPDATE replica_facts SET refs = '["kept"]'`);
      new FactReplica(state.storage);
      expect(read()).toBe(JSON.stringify(["kept"]));
    });
  });
});

/**
 * The same search asked of D1 and of the replica, through the reader's cache as a compile asks it: the
 * same versions, counted by the same sources, and the same entities named.
 */
describe("the fact replica's answer", () => {
  it("is the answer D1 gives to the same search", async () => {
    const t = await newThread();
    const old = { ts: "2024-01-01T00:00:00Z" };
    await t.events([
      fact("kiln_schedule", "The kiln at Harrow Street fires on Thursdays", old),
      fact("glaze_supplier", "Brightwater Ceramics supplies the celadon glaze", old),
      fact("studio_lead", "Brightwater Ceramics' account is run by Imogen Hale", old),
    ]);
    await t.events([
      fact("kiln_schedule", "The kiln at Harrow Street fires on Fridays now", { ts: "2024-01-05T00:00:00Z" }),
    ]);
    // A figure worked out from a price, and a correction of it filed under a slot of its own.
    await t.events([
      fact("clay_price", "Stoneware clay costs $31 a bag", { id: "cp-1", ...old }),
      fact("firing_cost", "Each firing costs $212 in clay and power", {
        id: "fc-1",
        ...old,
        depends_on: ["cp-1"],
      }),
    ]);
    await t.events([
      fact("firing_cost_revised", "The firing cost needs recalculating; the clay price it used was wrong", {
        ts: "2024-01-06T00:00:00Z",
        supersedes: "fc-1",
      }),
    ]);
    // A correction of that correction, named by its slot: the first figure is two references back.
    await t.events([
      fact("firing_cost_settled", "Settled with the potters' guild: firings are billed at cost", {
        ts: "2024-01-07T00:00:00Z",
        supersedes: "firing_cost_revised",
      }),
    ]);
    // More than the ranking budget share the kiln's words, so a question in them alone takes the newest.
    for (let start = 0; start < RANKED_MATCH_BUDGET + 150; start += 325) {
      const events = Array.from({ length: 325 }, (_, i) =>
        fact(`kiln_${start + i}_reading`, `Gauge ${start + i} of the kiln line reads ${start + i} degrees`, {
          ts: new Date(Date.UTC(2024, 2, 1, 0, 0, start + i)).toISOString(),
          source: { type: "tool" },
        }),
      );
      expect((await t.events(events)).status).toBe(200);
    }
    const database = env.TENANT_ACME_DB;
    const repository = new FactRepository(database);
    const index = projectIndexStub(env, "acme", t.project);
    const replica: ProjectFactSearch = {
      nearest: async () => [],
      search: (request) =>
        index.search("acme", t.project, { ...request, userId: "u1", vector: null, nearLimit: 50 }),
    };
    const projectRevision = () => revisionOf(t.project);
    // The question's own part asked directly, by a reader holding nothing.
    const ask = (revision: number, terms: string[], entityIds: string[] = []) =>
      index.search("acme", t.project, {
        revision,
        userId: "u1",
        terms,
        vector: null,
        nearLimit: 50,
        heldIds: [],
        knownIds: [],
        knownAt: 0,
        outside: { keys: [], ids: [] },
        entityIds,
      });
    // More than a page was written: the replica catches up by alarm and by each search that finds it behind.
    const revision = await projectRevision();
    const caughtUp = await until(
      () => ask(revision, []),
      (answer) => answer.rows !== undefined,
    );
    expect(caughtUp.rows).toBeDefined();
    // A reader ahead of what D1 holds (as it would be of a replica that cannot catch up) gets no rows.
    const ahead = await ask(Number.MAX_SAFE_INTEGER, ["kiln"]);
    expect(ahead.rows).toBeUndefined();
    let named: string[] = [];
    for (const text of [
      "When does the Harrow Street kiln fire?",
      "Who supplies glaze, and what about Brightwater Ceramics?",
      "What does gauge 17 read?",
      "What do the kiln line gauges read?",
      "How much does a firing cost now?",
      "What did we settle with the potters' guild?",
    ]) {
      const answers = [];
      for (const source of [undefined, replica]) {
        const cache = new FactCandidateCache();
        const reader = { projectId: t.project, userId: "u1", thread: `reader-${crypto.randomUUID()}` };
        const named = () => entityLookup(database, t.project, text);
        // The first read holds the newest versions and standing rules; the second is the question's own.
        await cache.read(repository, reader, [], Date.now(), named, source);
        answers.push(await cache.read(repository, reader, searchTerms(text), Date.now(), named, source));
      }
      const [viaD1, viaReplica] = answers as [(typeof answers)[0], (typeof answers)[0]];
      if (text.startsWith("What do the kiln")) expect(viaD1.candidates.truncated).toContain("matched");
      expect(viaD1.read).toBe("searched");
      expect(viaReplica.read).toBe("replica");
      const ids = (found: typeof viaD1) => found.candidates.rows.map((r) => r.id);
      expect(ids(viaReplica)).toEqual(ids(viaD1));
      expect(viaReplica.candidates.counts).toEqual(viaD1.candidates.counts);
      expect(viaReplica.candidates.entities).toEqual(viaD1.candidates.entities);
      expect(viaReplica.candidates.entityFactIds).toEqual(viaD1.candidates.entityFactIds);
      expect(viaReplica.candidates.rows).toEqual(viaD1.candidates.rows);
      // The correction brings the version it corrected, and that version's slot: its value is dead.
      if (text.includes("firing")) expect(ids(viaD1)).toContain("fc-1");
      // The correction of the correction brings the whole chain: the slot it names, the version that
      // slot's correction names, and what that version was worked out from.
      if (text.includes("guild")) {
        expect(viaD1.candidates.counts.matched).toBe(1);
        expect(ids(viaD1)).toEqual(expect.arrayContaining(["fc-1", "cp-1"]));
      }
      if (text.includes("Brightwater")) {
        named = viaReplica.candidates.entities.filter((e) => !e.pending).map((e) => e.id);
      }
    }

    // One reader asking question after question holds its last few searches: each answer comes from the
    // replica (every version it leaves out as held is found held), is D1's answer, and what the reader
    // holds is its base's versions and its last HELD_SEARCHES searches', each counted once.
    {
      const reader = { projectId: t.project, userId: "u1", thread: `reader-${crypto.randomUUID()}` };
      const cache = new FactCandidateCache();
      const first = await cache.read(repository, reader, [], Date.now(), undefined, replica);
      const heldSets: string[][] = [];
      for (const text of [
        "When does the Harrow Street kiln fire?",
        "Who supplies the celadon glaze?",
        "What does gauge 17 read?",
        "What does gauge 2040 read?",
        "Who runs the Brightwater account?",
        "How much does a firing cost now?",
        "What does gauge 4100 read?",
      ]) {
        const found = await cache.read(repository, reader, searchTerms(text), Date.now(), undefined, replica);
        expect(found.read).toBe("replica");
        const fresh = new FactCandidateCache();
        const alone = { ...reader, thread: `reader-${crypto.randomUUID()}` };
        await fresh.read(repository, alone, [], Date.now());
        const viaD1 = await fresh.read(repository, alone, searchTerms(text), Date.now());
        const ids = found.candidates.rows.map((r) => r.id);
        expect(ids).toEqual(viaD1.candidates.rows.map((r) => r.id));
        heldSets.push(ids);
        if (heldSets.length > HELD_SEARCHES) heldSets.shift();
      }
      const base = first.candidates.base;
      const baseIds = [...(base?.recent ?? []), ...(base?.standing ?? []), ...(base?.thread ?? [])].map(
        (r) => r.id,
      );
      expect(cache.heldRows()).toBe(new Set([...baseIds, ...heldSets.flat()]).size);
    }

    // What the replica remembers of a search (a term's count, an entity's part) goes with the next page.
    expect(named.length).toBeGreaterThan(0);
    const before = await ask(revision, ["kilnwash"], named);
    expect(before.rows?.counts.kilnwash).toBe(0);
    const entityFacts = before.rows?.entity.length ?? 0;
    expect(entityFacts).toBeGreaterThan(0);
    await t.events([fact("kiln_wash", "Brightwater Ceramics also supplies the kilnwash")]);
    const written = await projectRevision();
    const after = await until(
      () => ask(written, ["kilnwash"], named),
      (answer) => answer.rows !== undefined,
    );
    expect(after.rows?.counts.kilnwash).toBe(1);
    const kilnwash = after.rows?.matched[0] as string;
    expect(after.rows?.entity).toContain(kilnwash);
    expect(after.rows?.entity.length).toBe(entityFacts + 1);

    // Right after a write a reader was told of, the part it holds is brought up to date from D1 while the
    // replica answers the question's own part: the same candidates as D1's whole search. A question
    // naming an entity the write registered (which the reader's held registry does not know) is answered
    // by D1, as the replica was asked without it.
    const questions = [
      { text: "Who supplies glaze, and what about Brightwater Ceramics?", read: "replica" },
      { text: "Is Marlowe Pottery Supply reliable?", read: "searched" },
    ];
    const readers = questions.flatMap(({ text }) =>
      [undefined, replica].map((source) => ({
        text,
        source,
        cache: new FactCandidateCache(),
        reader: { projectId: t.project, userId: "u1", thread: `reader-${crypto.randomUUID()}` },
        named: () => entityLookup(database, t.project, text),
      })),
    );
    for (const r of readers) await r.cache.read(repository, r.reader, [], Date.now(), r.named, r.source);
    await t.events([
      fact("glaze_supplier", "Marlowe Pottery Supply now supplies the celadon glaze"),
      fact("kiln_schedule", "The kiln at Harrow Street fires on Mondays from March"),
    ]);
    const rewritten = await projectRevision();
    const answered = [];
    for (const r of readers) {
      expect(r.cache.announce(t.project, r.cache.token, rewritten)).toBe(true);
      answered.push(
        await r.cache.read(repository, r.reader, searchTerms(r.text), Date.now(), r.named, r.source),
      );
    }
    for (const [i, { read }] of questions.entries()) {
      const viaD1 = answered[2 * i] as (typeof answered)[0];
      const viaReplica = answered[2 * i + 1] as (typeof answered)[0];
      expect(viaD1.read).toBe("searched");
      expect(viaReplica.read).toBe(read);
      expect(viaReplica.candidates.revision).toBe(rewritten);
      expect(viaReplica.candidates.rows.map((r) => r.id)).toEqual(viaD1.candidates.rows.map((r) => r.id));
      expect(viaReplica.candidates.counts).toEqual(viaD1.candidates.counts);
      expect(viaReplica.candidates.entities).toEqual(viaD1.candidates.entities);
      expect(viaReplica.candidates.rows).toEqual(viaD1.candidates.rows);
      expect(viaReplica.candidates.rows.some((r) => r.content.includes("Marlowe"))).toBe(true);
    }
  }, 120_000);
});

/**
 * The history part of a replica search reads only the slots that can hold a version the answer lacks:
 * a found slot of one version holds only the version found, so it is not read; a found slot of more
 * versions is, and so is every slot the reader asks about (`outside`) whatever its versions.
 */
describe("the fact replica's history", () => {
  it("reads every slot that holds a version beyond those found, and those the reader asks about", async () => {
    const t = await newThread();
    await t.events([
      fact("alpha_ledger", "The alpha ledger closes on the fifth"),
      fact("beta_ledger", "The beta ledger closes on the tenth"),
      fact("gamma_rule", "Refunds above 500 euros need a second approver"),
    ]);
    await t.events([fact("beta_ledger", "The beta ledger closes on the twelfth")]);
    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`history-${t.project}`));
    await runInDurableObject(stub, async (_, state) => {
      const replica = new FactReplica(state.storage);
      await replica.catchUp(env.TENANT_ACME_DB, t.project, 10);
      const answer = replica.search({
        userId: "u1",
        terms: ["ledger"],
        similarIds: [],
        outside: { keys: ["gamma_rule", "alpha_ledger"], ids: [] },
        entityIds: [],
        known: [],
        since: 0,
      });
      const row = (id: string) => fullFactRow(JSON.parse(answer.rows[id] as string)) as RawFactRow;
      const matched = answer.matched.map((id) => row(id).content);
      expect(matched).toEqual(expect.arrayContaining(["alpha_ledger: The alpha ledger closes on the fifth"]));
      const history = answer.history.map(
        (id) => `${row(id).key}:${row(id).tx_end === null ? "current" : "closed"}`,
      );
      // The beta slot's first version, and the rule the reader asked about; nothing more of alpha's slot,
      // whose one version was found (even though the reader asked about it too).
      expect(history.sort()).toEqual(["beta_ledger:closed", "gamma_rule:current"]);
    });
  }, 60_000);
});

/**
 * A project its newest versions hold whole needs no search: a reader holds every version of it. What its
 * rows do not say is which of them refer to the entities a question names; the reader asks the index
 * object for that (its replica's entity part), not D1, and asks for the nearest facts only when something
 * waits for them.
 */
describe("a project held whole", () => {
  it("asks the replica which facts refer to the entities a question names, and reads nothing of D1", async () => {
    const t = await newThread();
    const old = { ts: "2024-01-01T00:00:00Z" };
    await t.events([
      fact("glaze_supplier", "Brightwater Ceramics supplies the celadon glaze", old),
      fact("studio_lead", "Brightwater Ceramics' account is run by Imogen Hale", old),
      fact("kiln_schedule", "The kiln at Harrow Street fires on Thursdays", old),
      fact("lead_hours", "Imogen Hale answers the phone on Tuesdays only", old),
    ]);
    await t.events([fact("glaze_supplier", "Brightwater Ceramics now supplies the tenmoku glaze too")]);
    const database = env.TENANT_ACME_DB;
    const { database: counting, reads } = countingDatabase(database);
    const index = projectIndexStub(env, "acme", t.project);
    let nearestAsked = 0;
    let askedWithNearest: boolean | undefined;
    const replica: ProjectFactSearch = {
      nearest: async () => {
        nearestAsked++;
        return [];
      },
      search: (request, withNearest) => {
        askedWithNearest = withNearest;
        return index.search("acme", t.project, { ...request, userId: "u1", vector: null, nearLimit: 50 });
      },
    };
    const revision = await revisionOf(t.project);
    await until(
      () => index.advance("acme", t.project, revision).then(() => revision),
      () => true,
    );
    const text = "Who runs the Brightwater Ceramics account, and what do they supply?";
    const answers = [];
    for (const source of [undefined, replica]) {
      const repository = new FactRepository(source ? counting : database);
      const cache = new FactCandidateCache();
      const reader = { projectId: t.project, userId: "u1", thread: `reader-${crypto.randomUUID()}` };
      const named = () => entityLookup(database, t.project, text);
      // The first read holds the project whole (its newest versions), with the registry's names.
      await cache.read(repository, reader, [], Date.now(), named, source);
      reads.statements = 0;
      const asked = nearestAsked;
      answers.push(await cache.read(repository, reader, searchTerms(text), Date.now(), named, source));
      if (source) {
        expect(reads.statements).toBe(0);
        expect(askedWithNearest).toBe(false);
        // Nobody waited for the nearest facts yet: not asked. Awaited, they are.
        expect(nearestAsked).toBe(asked);
        await answers.at(-1)?.near;
        expect(nearestAsked).toBe(asked + 1);
      }
    }
    const [viaD1, viaReplica] = answers as [(typeof answers)[0], (typeof answers)[0]];
    expect(viaD1.candidates.truncated).not.toContain("recent");
    expect(viaD1.read).toBe("searched");
    expect(viaReplica.read).toBe("replica");
    expect(viaD1.candidates.entities.filter((e) => !e.pending).length).toBeGreaterThan(0);
    expect(viaD1.candidates.entityFactIds.length).toBeGreaterThan(0);
    expect(viaReplica.candidates.entities).toEqual(viaD1.candidates.entities);
    expect(viaReplica.candidates.entityFactIds).toEqual(viaD1.candidates.entityFactIds);
    expect(viaReplica.candidates.neighbours).toEqual(viaD1.candidates.neighbours);
    expect(viaReplica.candidates.counts).toEqual(viaD1.candidates.counts);
    expect(viaReplica.candidates.rows).toEqual(viaD1.candidates.rows);
  }, 60_000);
});

/**
 * The replica's entity part in one statement answers as D1's search does where its bounds cut, in a
 * project past the newest versions a reader holds (so the part's facts are rows of their own): a hub
 * entity named by more facts than the entity source reads (its latest references first) and alongside
 * more people than it keeps as neighbours (the first found, scanning its latest facts first); and a
 * small entity, whose neighbours' facts fill the source (each neighbour's latest references, without
 * the entity's own facts). The people named alongside the hub change over time, so reading its oldest
 * references instead, or scanning its facts oldest first, finds other facts and other neighbours.
 */
describe("the entity part of a search", () => {
  it("is the same from the replica as from D1 when its bounds cut", async () => {
    const t = await newThread();
    const people = [
      "Imogen Hale",
      "Rufus Okafor",
      "Delia Marsh",
      "Tobias Quint",
      "Petra Lund",
      "Omar Feld",
      "Selma Brandt",
      "Cyrus Webb",
    ];
    const at = (minute: number) => ({ ts: new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString() });
    const older = people.flatMap((person, p) =>
      Array.from({ length: 30 }, (_, i) =>
        fact(`note_${p}_${i}`, `${person} signed delivery note ${p * 30 + i}`, at(p * 30 + i)),
      ),
    );
    const hub = Array.from({ length: 90 }, (_, i) =>
      fact(
        `order_${i}`,
        `Brightwater Ceramics placed order ${i} with ${people[Math.floor((i * people.length) / 90)]}`,
        at(300 + i),
      ),
    );
    const studio = Array.from({ length: 10 }, (_, i) =>
      fact(`booking_${i}`, `Harrow Street Studio booked kiln slot ${i} for ${people[i % 8]}`, at(400 + i)),
    );
    // Newer facts that name nobody: everything above lies outside the newest versions a reader holds.
    const meters = Array.from({ length: WHOLE_PROJECT_VERSIONS }, (_, i) =>
      fact(`meter_${i}`, `Meter ${i} in hall ${i % 9} reads ${i} kWh`),
    );
    for (const batch of [older, hub, studio, meters]) {
      for (let i = 0; i < batch.length; i += 250)
        expect((await t.events(batch.slice(i, i + 250))).status).toBe(200);
    }
    const database = env.TENANT_ACME_DB;
    const index = projectIndexStub(env, "acme", t.project);
    const revision = await revisionOf(t.project);
    await until(
      () => index.advance("acme", t.project, revision).then(() => revision),
      () => true,
    );
    const replica: ProjectFactSearch = {
      nearest: async () => [],
      search: (request) =>
        index.search("acme", t.project, { ...request, userId: "u1", vector: null, nearLimit: 25 }),
    };
    const ask = async (text: string) => {
      const answers = [];
      for (const source of [undefined, replica]) {
        const cache = new FactCandidateCache();
        const reader = { projectId: t.project, userId: "u1", thread: `reader-${crypto.randomUUID()}` };
        const named = () => entityLookup(database, t.project, text);
        const repository = new FactRepository(database);
        await cache.read(repository, reader, [], Date.now(), named, source);
        answers.push(await cache.read(repository, reader, searchTerms(text), Date.now(), named, source));
      }
      const [viaD1, viaReplica] = answers as [(typeof answers)[0], (typeof answers)[0]];
      expect(viaD1.read).toBe("searched");
      expect(viaReplica.read).toBe("replica");
      expect(viaD1.candidates.neighbours?.length).toBe(5);
      expect(viaReplica.candidates.entityFactIds).toEqual(viaD1.candidates.entityFactIds);
      expect(viaReplica.candidates.neighbours).toEqual(viaD1.candidates.neighbours);
      expect(viaReplica.candidates.counts).toEqual(viaD1.candidates.counts);
      expect(viaReplica.candidates.rows).toEqual(viaD1.candidates.rows);
      return viaD1.candidates;
    };
    const hubPart = await ask("What has Brightwater Ceramics ordered lately?");
    expect(hubPart.truncated).toContain("entity");
    const studioPart = await ask("What is on at Harrow Street Studio?");
    // Its own ten facts, and its neighbours' past the rest of the source.
    expect(studioPart.entityFactIds).toHaveLength(10);
    expect(studioPart.truncated).toContain("entity");
  }, 120_000);
});

/**
 * What the replica remembers between searches (each term's match count, each entity part) outlives a
 * write where the write cannot have changed it: a count stays, bounded by the rows written since, and is
 * counted again only when those bounds leave the ranking choice open; a part stays unless the write
 * touched one of its entities. Whatever it kept, a warm replica answers every question as one that
 * remembers nothing does, write after write: the same rows, and counts that make the same choice.
 */
describe("the replica's memos across writes", () => {
  it("answer as a replica that remembers nothing, and read again only what a write touched", async () => {
    const t = await newThread();
    const at = (minute: number) => ({ ts: new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString() });
    const people = ["Imogen Hale", "Rufus Okafor", "Delia Marsh"];
    await t.events([
      ...Array.from({ length: 12 }, (_, i) =>
        fact(`order_${i}`, `Brightwater Ceramics placed order ${i} with ${people[i % 3]}`, at(i)),
      ),
      ...Array.from({ length: 6 }, (_, i) =>
        fact(
          `booking_${i}`,
          `Harrow Street Studio booked kiln slot ${i} for ${people[(i + 1) % 3]}`,
          at(20 + i),
        ),
      ),
      fact("kiln_maker", "Kestrel Kilnworks rebuilt the gas kiln", at(30)),
      fact("kiln_service", "Kestrel Kilnworks services the kiln every spring", at(31)),
      ...Array.from({ length: 40 }, (_, i) =>
        fact(`meter_${i}`, `Meter ${i} in hall ${i % 9} reads ${i} kWh`, at(40 + i)),
      ),
    ]);
    const database = env.TENANT_ACME_DB;
    const texts = [
      "What has Brightwater Ceramics ordered?",
      "What is booked at Harrow Street Studio?",
      "Which meter in hall 4 reads kWh?",
      "Does Brightwater Ceramics buy tenmoku glaze?",
    ];
    const questions: ReplicaQuery[] = [];
    for (const text of texts) {
      const entities = await queryEntities(database, t.project, text);
      questions.push({
        userId: "u1",
        terms: searchTerms(text),
        similarIds: [],
        outside: { keys: [], ids: [] },
        entityIds: entities.filter((e) => !e.pending).map((e) => e.id),
        known: [],
        since: 0,
      });
    }
    const [brightwater, studio, meters, glaze] = questions as [
      ReplicaQuery,
      ReplicaQuery,
      ReplicaQuery,
      ReplicaQuery,
    ];
    expect(brightwater.entityIds).toHaveLength(1);
    expect(studio.entityIds).toHaveLength(1);

    const stub = env.PROJECT_INDEX.get(env.PROJECT_INDEX.idFromName(`memos-${t.project}`));
    const reads = { parts: 0, counts: 0 };
    let warm: FactReplica | undefined;
    /** The warm replica caught up with D1; each of its statements that reads a part or counts terms counted. */
    const inObject = (body: (replica: FactReplica, storage: DurableObjectStorage) => void) =>
      runInDurableObject(stub, async (_, state) => {
        if (!warm) {
          const sql = state.storage.sql;
          const counted = {
            exec: (query: string, ...bindings: unknown[]) => {
              if (query.includes("entity AS MATERIALIZED")) reads.parts++;
              if (query.includes("SELECT t.key AS i")) reads.counts++;
              return sql.exec(query, ...bindings);
            },
          } as unknown as SqlStorage;
          warm = new FactReplica(state.storage, counted);
        }
        const { revision, latest } = await warm.catchUp(database, t.project, 10);
        expect(revision).toBe(latest);
        body(warm, state.storage);
      });
    /** Every question, asked of the warm replica and of a new one over the same tables. */
    const same = (replica: FactReplica, storage: DurableObjectStorage) => {
      const cold = new FactReplica(storage);
      for (const question of questions) {
        const mine = replica.search(question);
        const fresh = cold.search(question);
        // The terms ranked, dropped and whether by newest: the order they rank in is the replica's own.
        const choice = (counts: Record<string, number>) => {
          const made = rankedTerms(
            question.terms,
            question.terms.map((term) => counts[term] ?? 0),
          );
          return { ...made, ranked: [...made.ranked].sort() };
        };
        expect(choice(mine.counts)).toEqual(choice(fresh.counts));
        expect({ ...mine, counts: undefined }).toEqual({ ...fresh, counts: undefined });
      }
    };

    await inObject((replica) => {
      for (const question of questions) replica.search(question);
    });
    expect(reads.parts).toBe(2);
    const write = async (
      event: ReturnType<typeof fact>,
      check: (replica: FactReplica, before: { parts: number; counts: number }) => void,
    ) => {
      expect((await t.events([event])).status).toBe(200);
      await inObject((replica, storage) => {
        const before = { ...reads };
        check(replica, before);
        same(replica, storage);
      });
    };

    // A fact that names no entity: both parts stay; the meters' count moves by one, far from the
    // others', so nothing is counted again.
    await write(fact("meter_40", "Meter 40 in hall 4 reads 40 kWh", at(90)), (replica, before) => {
      replica.search(brightwater);
      replica.search(studio);
      replica.search(meters);
      expect(reads).toEqual(before);
    });
    // A fact that names Brightwater and none of the people: its part is read again, the studio's
    // (whose neighbours are the people) stays.
    await write(
      fact("order_12", "Brightwater Ceramics placed order 12 by phone", at(91)),
      (replica, before) => {
        replica.search(studio);
        expect(reads.parts).toBe(before.parts);
        replica.search(brightwater);
        expect(reads.parts).toBe(before.parts + 1);
        const found = replica.search(brightwater);
        expect(found.entity.some((id) => found.rows[id]?.includes("placed order 12"))).toBe(true);
      },
    );
    // A new version of one of Brightwater's facts closes the old one: the part no longer holds it.
    await write(
      fact("order_3", "Brightwater Ceramics cancelled order 3 with Imogen Hale", at(92)),
      (replica, before) => {
        const found = replica.search(brightwater);
        expect(reads.parts).toBe(before.parts + 1);
        const texts = found.entity.map((id) => found.rows[id] ?? "");
        expect(texts.some((text) => text.includes("cancelled order 3"))).toBe(true);
        expect(texts.some((text) => text.includes("placed order 3 "))).toBe(false);
      },
    );
    // Another company merged into Brightwater, then split off again: its facts join the part, and
    // leave it, though the split's rows no longer refer to Brightwater at all.
    const kestrel = (
      await call("GET", `/entities?project_id=${t.project}&name=${encodeURIComponent("Kestrel Kilnworks")}`)
    ).json.entities[0] as { id: string };
    const [brightwaterId] = brightwater.entityIds as [string];
    const kestrelFact = (replica: FactReplica) => {
      const found = replica.search(brightwater);
      return found.entity.some((id) => found.rows[id]?.includes("Kestrel Kilnworks"));
    };
    const edit = async (path: string, body: object, status: number) => {
      const edited = await call("POST", `/entities/${brightwaterId}/${path}?as_user=u1`, body);
      expect(edited.status, JSON.stringify(edited.json)).toBe(status);
      await inObject((replica, storage) => same(replica, storage));
    };
    await edit("merge", { entity_id: kestrel.id }, 200);
    await inObject((replica) => expect(kestrelFact(replica)).toBe(true));
    await edit("split", { aliases: ["kestrel kilnworks"] }, 201);
    await inObject((replica) => expect(kestrelFact(replica)).toBe(false));
    // A reference moved from Brightwater to the studio, as a split moves one (its fact restamped at the
    // next revision, src/facts/fact-stamps.ts): the fact's rows then refer to the studio alone, and only
    // what they referred to before says the Brightwater part held it.
    let moved = "";
    await inObject((replica) => {
      const found = replica.search(brightwater);
      moved = found.entity.find((id) => found.rows[id]?.includes("placed order")) as string;
    });
    const [studioId] = studio.entityIds as [string];
    await database.batch([
      database
        .prepare(
          `UPDATE facts SET revision = (SELECT revision FROM fact_revisions WHERE project_id = ?1) + 1
            WHERE project_id = ?1 AND id = ?2`,
        )
        .bind(t.project, moved),
      database
        .prepare("UPDATE fact_entities SET entity_id = ?3 WHERE project_id = ?1 AND fact_id = ?2")
        .bind(t.project, moved, studioId),
      database
        .prepare("UPDATE fact_revisions SET revision = revision + 1 WHERE project_id = ?")
        .bind(t.project),
    ]);
    await inObject((replica, storage) => {
      same(replica, storage);
      expect(replica.search(brightwater).entity).not.toContain(moved);
      expect(replica.search(studio).entity).toContain(moved);
    });
    // A word no fact held: its count of none cannot stand once a row is written, and the new fact is
    // found by it.
    await write(
      fact("glaze_supplier", "Brightwater Ceramics now buys tenmoku glaze", at(93)),
      (replica, before) => {
        const found = replica.search(glaze);
        expect(reads.counts).toBeGreaterThan(before.counts);
        expect(found.matched.length).toBeGreaterThan(0);
      },
    );
  }, 120_000);
});
