import { env } from "cloudflare:test";
import { and, desc, eq, isNull, or } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FactRepository } from "../src/facts/fact-repository";
import { fullFactRow, leanFactRow, storedFactRow } from "../src/facts/fact-rows";
import { facts, type StoredFactRow } from "../src/facts/fact-schema";

/**
 * The compile read maps D1's rows itself (src/facts/fact-rows.ts) instead of through drizzle. Rows of
 * every shape the columns allow must come out exactly as drizzle's own select makes them: same fields,
 * same values, same key order.
 */
const text = fc.string({ maxLength: 12 });
const maybe = fc.option(text, { nil: null });
const row = (projectId: string, id: string) =>
  fc.record({
    projectId: fc.constant(projectId),
    id: fc.constant(id),
    lineageId: text,
    key: text,
    valueJson: text,
    content: text,
    tokens: fc.integer({ min: 0, max: 5000 }),
    memoryType: fc.constantFrom("user", "capability", "organizational" as const),
    userId: fc.option(fc.constantFrom("u1", "u2"), { nil: null }),
    threadId: text,
    sourceType: text,
    sourceAuthority: maybe,
    sourceIdentity: maybe,
    authorityRank: fc.integer({ min: 0, max: 10 }),
    scope: fc.constantFrom("global", "task", "hypothetical", "draft", "session" as const),
    scopeId: maybe,
    supersedes: maybe,
    supersededBy: maybe,
    isValid: fc.boolean(),
    contradictionStatus: fc.constantFrom("clean", "disputed", "overridden", "quarantined" as const),
    statusReason: maybe,
    dependsOnJson: text,
    needsReview: fc.boolean(),
    isConstraint: fc.boolean(),
    constraintType: maybe,
    classification: fc.constantFrom("public", "restricted", "confidential", "highly_restricted" as const),
    allowRolesJson: text,
    denyRolesJson: text,
    validFrom: text,
    validUntil: maybe,
    txStart: fc.constantFrom("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"),
    txEnd: maybe,
    summary: text,
    summaryTokens: fc.integer({ min: 0, max: 500 }),
    micro: text,
    microTokens: fc.integer({ min: 0, max: 100 }),
    contextJson: text,
    revision: fc.integer({ min: 0, max: 20 }),
  });

describe("the compile read's own row mapping", () => {
  it("gives drizzle's rows, field for field and in order, for full and changed-row reads", async () => {
    const db = drizzle(env.TENANT_ACME_DB);
    const repository = new FactRepository(env.TENANT_ACME_DB);
    const visible = (userId: string) => or(isNull(facts.userId), eq(facts.userId, userId));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 12 })
          .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => row(`fr-${run}`, `r${i}`)))),
        async (rows) => {
          const projectId = `fr-${run++}`;
          const stored: StoredFactRow[] = rows.map((r) => ({ ...r, projectId }));
          for (const r of stored) await db.insert(facts).values(r);
          const watcher = { thread: "t", token: "k" };

          for (const userId of ["u1", "u2"]) {
            const read = await repository.candidates(projectId, userId, [], watcher);
            const expected = await db
              .select()
              .from(facts)
              .where(and(eq(facts.projectId, projectId), visible(userId)))
              .orderBy(desc(facts.txStart), desc(facts.id));
            expect(read.rows).toStrictEqual(expected);
            expect(read.rows.map((r) => Object.keys(r))).toStrictEqual(expected.map((r) => Object.keys(r)));
          }
        },
      ),
      { numRuns: 25, seed: 4242 },
    );
  });
});

/**
 * The project's fact replica keeps and sends each row lean (no NULL columns, no shorter form that is the
 * content itself); the reader gives it back whole. Rows of every shape must come back exactly as D1
 * holds them, and a row the replica stored whole, before rows were lean, reads back as it was.
 */
describe("the fact replica's lean rows", () => {
  it("come back as D1's rows, and leave out what they can", async () => {
    const db = drizzle(env.TENANT_ACME_DB);
    let run = 0;
    // Rows whose shorter forms are their content, as most facts' are, and rows whose forms differ.
    const formsOf = (r: StoredFactRow, same: boolean) =>
      same ? { ...r, summary: r.content, micro: r.content } : r;
    await fc.assert(
      fc.asyncProperty(row("lean", "r0"), fc.boolean(), async (generated, same) => {
        const projectId = `lean-${run++}`;
        await db.insert(facts).values(formsOf({ ...generated, projectId }, same));
        const raw = (await env.TENANT_ACME_DB.prepare("SELECT * FROM facts WHERE project_id = ?")
          .bind(projectId)
          .first()) as Record<string, unknown>;
        const sent = JSON.stringify(leanFactRow(raw));
        const whole = storedFactRow(raw);
        expect(storedFactRow(fullFactRow(JSON.parse(sent)))).toStrictEqual(whole);
        expect(storedFactRow(fullFactRow(JSON.parse(JSON.stringify(raw))))).toStrictEqual(whole);
        const lean = JSON.parse(sent) as Record<string, unknown>;
        for (const [column, value] of Object.entries(raw)) {
          if (value === null) expect(lean).not.toHaveProperty(column);
        }
        if (same) {
          expect(lean).not.toHaveProperty("summary");
          expect(lean).not.toHaveProperty("micro");
        }
      }),
      { numRuns: 40, seed: 977 },
    );
  });
});
