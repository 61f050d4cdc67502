import { env } from "cloudflare:test";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { packTrace } from "../src/traces/trace-packing";
import { traceRowFrom, traceViewFrom } from "../src/traces/trace-record";
import { call, fact, KEYS, message, newThread } from "./helpers";

const ids = (entries: { object_id: string }[]) => entries.map((e) => e.object_id);

async function compiledThread(tenant: "acme" | "globex" = "acme") {
  const t = await newThread(undefined, { tenant });
  await t.events([
    fact("deploy_region", "eu-west-1", { id: `f-region-${t.thread}` }),
    fact("launch_date", "2026-03-01", { id: `f-launch-${t.thread}` }),
    fact("scratch", "temporary value", { id: `w-scratch-${t.thread}`, layer: "working" }),
    message("Where do we deploy the service?", { id: `m-1-${t.thread}` }),
  ]);
  const compiled = await t.context({ query: "which region do we deploy to?", budget_tokens: 200 });
  expect(compiled.status).toBe(200);
  return { t, compiled: compiled.json };
}

describe("compile traces", () => {
  it("a compile's trace can be read back by its id, with the same compiled and omitted objects", async () => {
    const { t, compiled } = await compiledThread();
    expect(compiled.trace_id).toMatch(/^[0-9A-Z]{26}$/);
    expect(compiled.trace.compile_ms).toBeGreaterThanOrEqual(0);

    const res = await call("GET", `/v1/tenants/acme/traces/${compiled.trace_id}`);
    expect(res.status).toBe(200);
    expect(res.json.trace_id).toBe(compiled.trace_id);
    expect(res.json.tenant).toBe("acme");
    expect(res.json.thread).toBe(t.thread);
    expect(res.json.project_id).toBe(t.project);
    expect(res.json.budget_tokens).toBe(200);
    expect(res.json.tokens).toBe(compiled.tokens);
    expect(res.json.compile_ms).toBe(compiled.trace.compile_ms);
    expect(res.json.trace).toEqual(compiled.trace);
    expect(ids(res.json.trace.compiled)).toEqual(ids(compiled.trace.compiled));
    expect(ids(res.json.trace.omitted)).toEqual(ids(compiled.trace.omitted));
    expect(res.json.candidates).toEqual({
      considered:
        compiled.trace.compiled.length + compiled.trace.omitted.length + compiled.trace.quarantined.length,
      compiled: compiled.trace.compiled.length,
      omitted: compiled.trace.omitted.length,
      quarantined: compiled.trace.quarantined.length,
    });
  });

  it("is stored gzipped, at a fraction of its text, and read back whole", async () => {
    const t = await newThread();
    // Forty turns: a trace that lists their ids, as a long thread's does by the hundred.
    await t.events(
      Array.from({ length: 40 }, (_, i) =>
        message(`Turn ${i}: the vendor for part ${i} is Vendor ${i}.`, { id: `pm-${i}-${t.thread}` }),
      ),
    );
    const compiled = (await t.context({ query: "Which vendor supplies part 3?" })).json;
    const row = await env.TENANT_ACME_DB.prepare("SELECT trace_json FROM traces WHERE trace_id = ?")
      .bind(compiled.trace_id)
      .first<{ trace_json: string }>();
    expect(JSON.parse(row?.trace_json ?? "{}")).toMatchObject({ v: 3 });
    const read = await call("GET", `/v1/tenants/acme/traces/${compiled.trace_id}`);
    expect(read.json.trace).toEqual(compiled.trace);
    expect(row?.trace_json.length).toBeLessThan(JSON.stringify(read.json.trace).length / 3);
  });

  it("trace_detail summary answers with counts per reason; the stored trace still lists every omitted object", async () => {
    const t = await newThread();
    await t.events([
      // Rewrites of one key leave superseded versions; many facts and a small budget leave some over budget.
      ...Array.from({ length: 8 }, (_, i) => fact("launch_budget", `$${(i + 1) * 1000}`, { id: `b-${i}` })),
      ...Array.from({ length: 30 }, (_, i) => fact(`service_${i}_owner`, `owner ${i} of service ${i}`)),
    ]);
    const body = {
      query: "what is the launch budget and who owns the services?",
      budget_tokens: 120,
      now: new Date(Date.now() + 60_000).toISOString(),
    };
    const full = await t.context(body);
    const summary = await t.context({ ...body, trace_detail: "summary" });
    expect(summary.status).toBe(200);
    expect(summary.json.context).toBe(full.json.context);
    expect(ids(summary.json.trace.compiled)).toEqual(ids(full.json.trace.compiled));
    expect(summary.json.trace).not.toHaveProperty("omitted");

    const reasons = full.json.trace.omitted.map((e: { reason: string }) => e.reason);
    expect(reasons).toContain("superseded");
    expect(reasons).toContain("over_budget");
    const counts: Record<string, number> = {};
    for (const reason of reasons) counts[reason] = (counts[reason] ?? 0) + 1;
    expect(summary.json.trace.omitted_by_reason).toEqual(counts);

    const stored = await call("GET", `/v1/tenants/acme/traces/${summary.json.trace_id}`);
    expect(stored.status).toBe(200);
    expect(stored.json.trace.omitted).toEqual(full.json.trace.omitted);
    expect(stored.json.candidates.omitted).toBe(reasons.length);
  });

  it("keeps the query's hash, never its text", async () => {
    const { compiled } = await compiledThread();
    const res = await call("GET", `/v1/tenants/acme/traces/${compiled.trace_id}`);
    const query = "which region do we deploy to?";
    expect(res.json.query_sha256).toBe(createHash("sha256").update(query).digest("hex"));
    expect(res.json.query_chars).toBe(query.length);
    const row = await env.TENANT_ACME_DB.prepare("SELECT * FROM traces WHERE trace_id = ?")
      .bind(compiled.trace_id)
      .first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain(query);
  });

  it("accepts a lower-case id, since ULIDs are case-insensitive", async () => {
    const { compiled } = await compiledThread();
    const res = await call("GET", `/v1/tenants/acme/traces/${compiled.trace_id.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.json.trace_id).toBe(compiled.trace_id);
  });

  it("another tenant can never read a trace: 401 on its path, 404 on its own", async () => {
    const { compiled } = await compiledThread("acme");
    const foreignKey = await call("GET", `/v1/tenants/acme/traces/${compiled.trace_id}`, undefined, {
      key: KEYS.globex,
    });
    expect(foreignKey.status).toBe(401);
    const ownPath = await call("GET", `/v1/tenants/globex/traces/${compiled.trace_id}`, undefined, {
      tenant: "globex",
    });
    expect(ownPath.status).toBe(404);
    expect(ownPath.contentType).toContain("application/problem+json");
  });

  it("an unknown id is a 404 problem", async () => {
    const res = await call("GET", "/v1/tenants/acme/traces/01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(res.status).toBe(404);
    expect(res.contentType).toContain("application/problem+json");
    expect(res.json.title).toBe("Trace not found");
  });

  it.each([
    ["too short", "01ARZ3NDEK"],
    ["excluded letter", "01ARZ3NDEKTSV4RRFFQ69G5FAU"],
    ["punctuation", "01ARZ3NDEKTSV4RRFFQ69G5FA-"],
  ])("a malformed id (%s) is a 400 naming trace_id", async (_label, id) => {
    const res = await call("GET", `/v1/tenants/acme/traces/${id}`);
    expect(res.status).toBe(400);
    expect(res.contentType).toContain("application/problem+json");
    expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual(["param.trace_id"]);
  });

  it("a compile still answers when its trace cannot be stored", async () => {
    const t = await newThread(undefined, { tenant: "globex" });
    await t.events([fact("deploy_region", "eu-west-1")]);
    // Provoke a real storage failure: the table the insert targets is gone while this compile runs.
    await env.TENANT_GLOBEX_DB.exec("ALTER TABLE traces RENAME TO traces_hidden");
    let compiled: Awaited<ReturnType<typeof t.context>>;
    try {
      compiled = await t.context({ query: "region" });
    } finally {
      await env.TENANT_GLOBEX_DB.exec("ALTER TABLE traces_hidden RENAME TO traces");
    }
    expect(compiled.status).toBe(200);
    expect(compiled.json.context).toContain("eu-west-1");
    const res = await call("GET", `/v1/tenants/globex/traces/${compiled.json.trace_id}`, undefined, {
      tenant: "globex",
    });
    expect(res.status).toBe(404);
  });
});

const RECORD = {
  tenant: "acme",
  traceId: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
  projectId: "p",
  thread: "t",
  createdAt: "2026-01-01T00:00:00.000Z",
  querySha256: "0".repeat(64),
  queryChars: 5,
  budgetTokens: 100,
  tokens: 50,
  compileMs: 1,
};

describe("trace records", () => {
  it("carry fields the compiler adds to its trace without knowing them", async () => {
    const trace = {
      compiled: [
        {
          object_id: "f1",
          kind: "fact",
          section: "facts",
          authority_level: 1,
          confidence_score: 0.9,
          priority_tier: "critical",
          compiled_as: "hard_constraint",
        },
      ],
      omitted: [{ object_id: "f2", kind: "fact", reason: "expired", valid_until: "2026-05-01T00:00:00Z" }],
      quarantined: [{ object_id: "f3", kind: "fact", detail: "disputed", contradiction_status: "disputed" }],
      cache_metadata: { prompt_cache_key: "k", static_prefix_tokens: 100 },
      compile_ms: 1.5,
    };
    const row = traceRowFrom({ ...RECORD, compileMs: 1.5, trace: trace as never });
    expect(row.candidateCount).toBe(3);
    expect((await traceViewFrom(row)).trace).toEqual(trace);
  });

  it("refuse a trace body without its lists", () => {
    expect(() => traceRowFrom({ ...RECORD, trace: { compiled: [] } as never })).toThrow();
  });

  it("are read back whole, packed, compact or written flat before the compact form", async () => {
    const trace = {
      compiled: [{ object_id: "f1", kind: "fact", refs: ["m1"] }],
      omitted: Array.from({ length: 50 }, (_, i) => ({
        object_id: `f${i + 2}`,
        kind: "fact",
        reason: "superseded",
      })),
      quarantined: [],
      candidates: { considered: 51 },
    };
    const row = traceRowFrom({ ...RECORD, trace: trace as never });
    expect(row.omittedCount).toBe(50);
    expect(row.traceJson.length).toBeLessThan(JSON.stringify(trace).length / 2);
    const packed = { ...row, traceJson: await packTrace(row.traceJson) };
    expect(JSON.parse(packed.traceJson)).toMatchObject({ v: 3 });
    expect((await traceViewFrom(packed)).trace).toEqual(trace);
    // Rows stored by earlier versions hold the compact form unpacked, or the trace itself.
    expect((await traceViewFrom(row)).trace).toEqual(trace);
    expect((await traceViewFrom({ ...row, traceJson: JSON.stringify(trace) })).trace).toEqual(trace);
  });
});
