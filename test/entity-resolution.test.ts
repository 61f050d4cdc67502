import { describe, expect, it } from "vitest";
import { type CaseFile, runCases } from "../scripts/lib/entity-cases";
import { DEFAULT_ENTITY_THRESHOLDS, type Mention } from "../src/domain/entities";
import { factEntities, namedThings, registryThings } from "../src/entities/fact-entities";
import { MemoryRegistry } from "../src/entities/memory-registry";
import { initialsOf, normalizeName } from "../src/entities/names";
import { registryEntity } from "../src/entities/registry-entity";
import { decide } from "../src/entities/resolution/decide";
import { lexicalMatch } from "../src/entities/resolution/lexical";
import { resolveMentions } from "../src/entities/resolution/resolve";
import { scoreCandidate, typeFactor } from "../src/entities/resolution/score";
import cases from "./fixtures/entity-resolution.json";

/** Issue 17 items 2 and 3: candidate generation, the similarity score and seed 001's decisions, pure. */

const T = DEFAULT_ENTITY_THRESHOLDS;

const mention = (name: string, fields: Partial<Mention> = {}): Mention => ({
  text: name,
  name,
  type: "other",
  strength: "strong",
  aliases: [],
  metadata: {},
  origin: "message",
  ...fields,
});

const registry = () =>
  new MemoryRegistry([
    registryEntity({
      id: "reed",
      name: "Marisol Reed",
      type: "person",
      metadata: { email: "marisol@tidewater.io", email_domain: "tidewater.io" },
    }),
    registryEntity({ id: "heron", name: "Project Heron", type: "project", aliases: ["Heron"] }),
    registryEntity({ id: "gcp", name: "Granite Compute Platform", type: "system" }),
    registryEntity({ id: "cto", name: "chief technology officer", type: "role", aliases: ["CTO"] }),
  ]);

const resolveOne = (m: Mention, r = registry(), context = {}) =>
  decide(
    m,
    r.candidates(m).map((e) => scoreCandidate(m, e, context)),
    T,
  );

describe("names", () => {
  it("normalises case, accents, punctuation, determiners and legal suffixes, and abbreviates by initials", () => {
    expect(normalizeName("  The Café-Noir, Ltd. ")).toBe("cafe noir");
    expect(normalizeName("Tidewater & Sons Inc")).toBe("tidewater and sons");
    expect(initialsOf("granite compute platform")).toBe("gcp");
    expect(initialsOf("bank of tidewater")).toBe("bt");
    expect(initialsOf("gcp")).toBe("gcp");
  });
});

describe("similarity", () => {
  it("scores exact names above partial ones, and partial person names only for people", () => {
    const aliases = [{ norm: "marisol reed" }];
    expect(lexicalMatch(["marisol reed"], "person", aliases, "person")).toMatchObject({
      kind: "exact",
      score: 0.97,
    });
    expect(lexicalMatch(["marisol"], "person", aliases, "person")).toMatchObject({ kind: "given" });
    expect(lexicalMatch(["mari"], "person", aliases, "person")).toMatchObject({ kind: "nickname" });
    expect(lexicalMatch(["m reed"], "person", aliases, "person")).toMatchObject({ kind: "nickname" });
    expect(lexicalMatch(["heron"], "project", [{ norm: "heron logistics" }], "organization").kind).toBe(
      "overlap",
    );
    expect(lexicalMatch(["gcp"], "other", [{ norm: "granite compute platform" }], "system")).toMatchObject({
      kind: "initials",
      score: 0.9,
    });
  });

  it("lets type, metadata, neighbourhood, scope and authority move the score, and an unequal identifier veto it", () => {
    const r = registry();
    const reed = r.get("reed");
    if (!reed) throw new Error("no reed");
    reed.neighbours.push("heron", "gcp");
    reed.provenance.thread_id = "t1";
    const plain = scoreCandidate(mention("Marisol", { type: "person" }), reed, {});
    const supported = scoreCandidate(
      mention("Marisol", { type: "person", metadata: { email_domain: "tidewater.io" } }),
      reed,
      {
        threadId: "t1",
        coMentioned: ["heron", "gcp"],
        authorityRank: 4,
      },
    );
    expect(plain.score).toBe(0.8);
    expect(supported.features).toMatchObject({
      metadata: 0.03,
      neighbourhood: 0.05,
      scope: 0.02,
      authority: 0.02,
    });
    expect(supported.score).toBe(0.92);
    const otherAddress = scoreCandidate(
      mention("Marisol Reed", { type: "person", metadata: { email: "mreed@elsewhere.org" } }),
      reed,
      {},
    );
    expect(otherAddress.score).toBeLessThanOrEqual(T.review);
    expect(typeFactor("project", "place")).toBe(0.4);
    expect(
      scoreCandidate(mention("Heron", { type: "place" }), r.get("heron") as never, {}).score,
    ).toBeLessThanOrEqual(T.review);
  });
});

describe("decisions at seed 001's thresholds", () => {
  it("binds an exact name, reviews a partial one, and creates an entity for an unmatched one", () => {
    expect(resolveOne(mention("Marisol Reed", { type: "person" }))).toMatchObject({
      kind: "bind",
      best: { entity: { id: "reed" } },
    });
    expect(resolveOne(mention("Marisol", { type: "person", strength: "weak" }))).toMatchObject({
      kind: "review",
      best: { score: 0.8 },
    });
    expect(resolveOne(mention("Halden Reed", { type: "person" })).kind).toBe("new");
    expect(resolveOne(mention("Halden", { strength: "weak" })).kind).toBe("skip");
  });

  it("never merges near-miss names: another spelling, a shared word, a shared first name", () => {
    expect(resolveOne(mention("Marisol Reid", { type: "person" })).kind).toBe("review");
    expect(resolveOne(mention("Heron Logistics", { type: "organization" })).kind).toBe("new");
    const two = registry();
    two.add(registryEntity({ id: "okoye", name: "Marisol Okoye", type: "person" }));
    const ambiguous = resolveOne(mention("Marisol", { type: "person" }), two);
    expect(ambiguous.kind).toBe("review");
    expect(ambiguous.kind === "review" && ambiguous.runnerUp?.entity.id).toBeTruthy();
  });

  it("reads names that differ only in a short word as other names, not misspellings of one", () => {
    // A letter, a number or an acronym is what tells "Hangar B" from "Hangar C", or the QA from the
    // QE rota: no fuzzy match, so no review between them.
    expect(lexicalMatch(["hangar b"], "place", [{ norm: "hangar c" }], "place").kind).toBe("overlap");
    expect(lexicalMatch(["qa rota"], "other", [{ norm: "qe rota" }], "other").score).toBeLessThan(0.7);
    // A misspelling in a longer word still is one.
    expect(lexicalMatch(["hangar lindqvist"], "place", [{ norm: "hangar lindquist" }], "place").kind).toBe(
      "fuzzy",
    );
  });

  it("follows the tenant's thresholds", () => {
    const m = mention("Marisol", { type: "person" });
    const r = registry();
    const scored = r.candidates(m).map((e) => scoreCandidate(m, e, {}));
    expect(decide(m, scored, { bind: 0.75, review: 0.5 }).kind).toBe("bind");
    expect(decide(m, scored, { bind: 0.99, review: 0.85 }).kind).toBe("new");
  });

  it("plans a batch: one entity for a new name said twice, a pending node with its review, aliases on bind", () => {
    const r = registry();
    const plan = resolveMentions(
      [
        {
          key: "f1",
          mentions: [mention("Halden Ames", { type: "person" }), mention("Heron", { strength: "weak" })],
          context: {},
          provenance: { thread_id: "t1" },
        },
        {
          key: "f2",
          mentions: [
            mention("Halden Ames", { type: "person" }),
            mention("Marisol", { type: "person", strength: "weak" }),
          ],
          context: {},
          provenance: {},
        },
        {
          key: "f3",
          mentions: [
            mention("Heron Project", { type: "project", aliases: ["Heron"], name: "Project Heron" }),
            mention("GCP", { strength: "weak" }),
          ],
          context: {},
          provenance: {},
        },
      ],
      r,
      T,
    );
    expect(plan.created.map((e) => [e.id, e.status])).toEqual([
      ["new:person:halden ames", "active"],
      ["new:person:marisol", "pending"],
      ["new:system:gcp", "pending"],
    ]);
    expect(plan.created[0]?.provenance).toEqual({ thread_id: "t1" });
    expect(plan.reviews.map((v) => [v.entityId, v.candidateId])).toEqual([
      ["new:person:marisol", "reed"],
      ["new:system:gcp", "gcp"],
    ]);
    expect(plan.links).toEqual([
      { source: "f1", entityId: "new:person:halden ames", mention: "halden ames" },
      { source: "f1", entityId: "heron", mention: "heron" },
      { source: "f2", entityId: "new:person:halden ames", mention: "halden ames" },
      { source: "f2", entityId: "new:person:marisol", mention: "marisol" },
      { source: "f3", entityId: "heron", mention: "project heron" },
      { source: "f3", entityId: "new:system:gcp", mention: "gcp" },
    ]);
    expect(plan.aliases).toEqual([]);
  });

  it("adds the words of a bound mention as an alias, and types an untyped entity", () => {
    const r = new MemoryRegistry([registryEntity({ id: "ames", name: "Halden Ames", type: "other" })]);
    const plan = resolveMentions(
      [
        {
          key: "f",
          mentions: [
            mention("Halden Ames", {
              type: "person",
              aliases: ["H. Ames"],
              metadata: { email: "halden@ames.net" },
            }),
          ],
          context: {},
          provenance: {},
        },
      ],
      r,
      T,
    );
    expect(plan.aliases.map((a) => a.alias.alias)).toEqual(["H. Ames", "halden@ames.net"]);
    expect(plan.retyped).toEqual([{ entityId: "ames", type: "person" }]);
    expect(plan.metadata).toEqual([{ entityId: "ames", metadata: { email: "halden@ames.net" } }]);
  });
});

describe("factEntities", () => {
  it("gives two keys naming one entity and attribute the same entity ids and attribute", () => {
    const r = registry();
    const long = factEntities({ key: "project_heron_budget", value: "$40,000" }, r);
    const short = factEntities({ key: "heron_budget", value: "$45,000" }, r);
    expect(long).toEqual({ entityIds: ["heron"], pendingIds: [], attribute: "budget" });
    expect(short).toEqual(long);
    expect(factEntities({ key: "discount_cap", value: "15%" }, r)).toEqual({
      entityIds: [],
      pendingIds: [],
      attribute: "discount_cap",
    });
  });

  it("names the registered things a text is about, as canonical ids: not its people, roles, untyped, pending or near-miss names", () => {
    const r = registry();
    r.add(registryEntity({ id: "pending-wren", name: "Wrenfield Depot", type: "place", status: "pending" }));
    r.add(registryEntity({ id: "heron-freight", name: "Heron Freight", type: "organization" }));
    expect(
      namedThings("Marisol Reed asks the CTO to cap Heron spend on the Granite Compute Platform", r),
    ).toEqual(["gcp", "heron"]);
    expect(namedThings("Ship it from Wrenfield Depot", r)).toEqual([]);
    expect(namedThings("Give Heron Freight a discount", r)).toEqual(["heron-freight"]);
    expect(namedThings("Give Heron Logistics a discount", r)).toEqual([]);
    // An untyped name may be a person or a title: no evidence of what a text is about.
    r.add(registryEntity({ id: "max", name: "Manager Max", type: "other" }));
    expect(namedThings("cap offers from Manager Max", r)).toEqual([]);
    // A held copy of the registry answers the same through one view per copy.
    const entities = r.all();
    expect(registryThings(entities)).toBe(registryThings(entities));
    expect(registryThings(entities)("cap the Heron spend")).toEqual(["heron"]);
  });

  it("reads entities from the value too, and lists pending ones apart", () => {
    const r = registry();
    r.add(registryEntity({ id: "pending-ames", name: "Halden Ames", type: "person", status: "pending" }));
    const found = factEntities({ key: "cto_approval", value: "Halden Ames signs for the CTO on Heron" }, r);
    expect(found).toEqual({
      entityIds: ["cto", "heron"],
      pendingIds: ["pending-ames"],
      attribute: "approval",
    });
  });
});

describe("the labelled set (npm run bench:entities)", () => {
  it("has no false merge at the default thresholds, and binds most labelled mentions", () => {
    const figures = runCases(cases as CaseFile, T);
    expect(figures.falseMerges).toEqual([]);
    expect(figures.precision).toBe(1);
    expect(figures.recall).toBeGreaterThan(0.6);
    expect(figures.results.filter((r) => r.decision === "unseen" && r.expect !== null)).toEqual([]);
  });
});

describe("the in-memory registry's candidates", () => {
  it("are those with the mention's one word, then those with a word it begins, in the registry's order", () => {
    const people = [
      "Samantha Reed",
      "Sandra Lee",
      "Samuel Park",
      "Ola Samsonite",
      "Tam Samara",
      "Sam Okafor",
    ];
    const held = new MemoryRegistry(
      people.map((name, i) => registryEntity({ id: `p${i}`, name, type: "person" })),
    );
    const found = (name: string) => held.candidates(mention(name, { type: "person" })).map((e) => e.id);
    // "Sam" is Sam Okafor's word (found first, by the whole word) and begins Samantha, Samuel, Samsonite
    // and Samara; Sandra shares only "Sa".
    expect(found("Sam")).toEqual(["p5", "p0", "p2", "p3", "p4"]);
    expect(found("Sama")).toEqual(["p0", "p4"]);
    expect(found("Samuel")).toEqual(["p2"]);
    // Too short to be a prefix: only a whole word matches.
    expect(found("Sa")).toEqual([]);
    // A name learnt later (an alias) is found by its beginning too.
    held.addAlias("p1", { alias: "Sammy", norm: "sammy", source: "observed" });
    expect(found("Samm")).toEqual(["p1"]);
  });
});
