import { describe, expect, it } from "vitest";
import { WHOLE_PROJECT_VERSIONS } from "../src/facts/fact-candidates";
import { call, fact, newThread } from "./helpers";

/**
 * A compile finds the facts that refer to an entity its question names, in whatever words they were
 * written (the entity registry, src/entities): a fact that calls a company by its abbreviation is found
 * by a question that uses the full name, though no word of the one is in the other.
 */
describe("facts found through the entities a question names", () => {
  it("brings an old fact written under an alias, past the newest versions, into the context", async () => {
    const t = await newThread();
    // Facts of the organisation, but not rules: only a search brings them back once they are old.
    const shared = { memory_type: "organizational" };
    await t.events([
      fact("hosting_provider", "Amazon Web Services (AWS) hosts the billing stack", shared),
      fact("cloud_spend_march", "The AWS bill rose to $48,000 in March", shared),
    ]);
    // "AWS" said by an ordinary user is not sure enough to bind on its own: someone accepts the review.
    const open = await call("GET", `/entities/review?project_id=${t.project}`);
    const review = open.json.reviews.find((r: { entity_name: string }) => r.entity_name === "AWS");
    expect(review?.candidate_name).toBe("Amazon Web Services");
    const accepted = await call("POST", `/entities/review/${review.id}`, { decision: "accept" });
    expect(accepted.status).toBe(200);
    const newer = WHOLE_PROJECT_VERSIONS + 100;
    for (let start = 0; start < newer; start += 300) {
      const batch = Array.from({ length: Math.min(300, newer - start) }, (_, k) =>
        fact(`greenhouse_bed_${start + k}`, `Bed ${start + k} grows basil and thyme`),
      );
      expect((await t.events(batch)).status).toBe(200);
    }
    const ctx = await t.context({ query: "What did Amazon Web Services cost us?", budget_tokens: 1500 });
    expect(ctx.json.context).toContain("$48,000");
    const { candidates } = ctx.json.trace;
    expect(candidates.entities).toEqual([
      expect.objectContaining({
        name: "Amazon Web Services",
        mention: "Amazon Web Services",
        pending: false,
      }),
    ]);
    expect(candidates.facts.entity).toBeGreaterThanOrEqual(1);
    expect(candidates.facts.truncated).toContain("recent");
  }, 120_000);

  it("pulls the named entity's neighbourhood: a fact about an entity it shares a fact with is a candidate", async () => {
    const t = await newThread();
    const shared = { memory_type: "organizational" };
    await t.events([
      fact("wrenfield_lead", "Halvard Oyelaran leads Project Wrenfield", { ...shared, id: "lead" }),
      fact("halvard_leave", "Halvard Oyelaran is away until the 14th", { ...shared, id: "leave" }),
      fact("kiln_owner", "Brisa Tamayo keeps the kiln keys", { ...shared, id: "kiln" }),
    ]);
    const newer = WHOLE_PROJECT_VERSIONS + 100;
    for (let start = 0; start < newer; start += 300) {
      const batch = Array.from({ length: Math.min(300, newer - start) }, (_, k) =>
        fact(`greenhouse_bed_${start + k}`, `Bed ${start + k} grows basil and thyme`),
      );
      expect((await t.events(batch)).status).toBe(200);
    }
    const list = await call("GET", `/entities?project_id=${t.project}&name=Halvard`);
    const halvard = list.json.entities[0];
    expect(halvard.canonical_name).toBe("Halvard Oyelaran");
    const ctx = await t.context({ query: "Who is on Project Wrenfield?", budget_tokens: 1500 });
    const { trace } = ctx.json;
    const considered = new Set(
      [...trace.compiled, ...trace.omitted].map((o: { object_id: string }) => o.object_id),
    );
    // The fact naming Wrenfield brings Halvard; Halvard's own fact shares no word with the question.
    expect(trace.candidates.entities.map((e: { name: string }) => e.name)).toEqual(["Project Wrenfield"]);
    expect(trace.candidates.neighbours).toEqual([halvard.id]);
    expect(considered.has("lead")).toBe(true);
    expect(considered.has("leave")).toBe(true);
    // An entity sharing no fact with Wrenfield is no neighbour: its facts stay out.
    expect(considered.has("kiln")).toBe(false);
    expect(trace.candidates.facts.truncated).toContain("recent");
  }, 120_000);

  it("names no entity, and reads no entity facts, for a question that names nothing registered", async () => {
    const t = await newThread();
    await t.events([fact("office_plant", "The fern by the window needs water on Fridays")]);
    const ctx = await t.context({ query: "When does the fern get water?" });
    expect(ctx.json.trace.candidates.entities).toEqual([]);
    expect(ctx.json.trace.candidates.facts.entity).toBe(0);
    expect(ctx.json.trace.candidates.neighbours).toBeUndefined();
    expect(ctx.json.context).toContain("Fridays");
  });

  it("finds an entity written after the thread held the project's registry, by a question it never asked", async () => {
    const t = await newThread();
    const shared = { memory_type: "organizational" };
    await t.events([fact("office_plant", "The fern by the window needs water on Fridays", shared)]);
    // The thread now holds the project's facts and its registry's terms: a question naming something
    // unregistered reads nothing more.
    const first = await t.context({ query: "Who looks after Quillmoor Fabrication?" });
    expect(first.json.trace.candidates.entities).toEqual([]);
    // Another thread of the project registers the name; its write moves the project's revision on.
    const other = await newThread(undefined, { project: t.project });
    await other.events([
      fact("quillmoor_contact", "Quillmoor Fabrication is looked after by Delphine Arkwright", shared),
    ]);
    const ctx = await t.context({ query: "What do we know about Quillmoor Fabrication?" });
    expect(ctx.json.trace.candidates.entities).toEqual([
      expect.objectContaining({ name: "Quillmoor Fabrication", pending: false }),
    ]);
    expect(ctx.json.context).toContain("Delphine Arkwright");
  });

  it("follows a merge made after the thread held the registry: a new question by the absorbed name finds the entity", async () => {
    const t = await newThread();
    const shared = { memory_type: "organizational" };
    await t.events([
      fact("bakery_supplier", "Ostrander Mills supplies the bakery's rye flour", shared),
      fact("courier", "Velloway Freight collects the parcels on Tuesdays", shared),
    ]);
    const list = async (name: string) =>
      (await call("GET", `/entities?project_id=${t.project}&name=${encodeURIComponent(name)}`)).json
        .entities[0] as { id: string; canonical_name: string };
    const mills = await list("Ostrander");
    const freight = await list("Velloway");
    expect([mills.canonical_name, freight.canonical_name]).toEqual(["Ostrander Mills", "Velloway Freight"]);
    const before = await t.context({ query: "Who supplies Ostrander Mills flour?" });
    expect(before.json.trace.candidates.entities.map((e: { name: string }) => e.name)).toEqual([
      "Ostrander Mills",
    ]);
    // Absorbing one into the other (a made-up correction) is announced like a write: the held registry
    // is read again, and the absorbed name now finds the entity it was merged into.
    const merged = await call("POST", `/entities/${freight.id}/merge?as_user=u1`, { entity_id: mills.id });
    expect(merged.status, JSON.stringify(merged.json)).toBe(200);
    const after = await t.context({ query: "Does anything else come from Ostrander Mills?" });
    expect(after.json.trace.candidates.entities.map((e: { name: string }) => e.name)).toEqual([
      "Velloway Freight",
    ]);
  });
});
