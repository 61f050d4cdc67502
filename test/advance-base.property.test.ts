import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FactVersion } from "../src/domain/fact-version";
import {
  advanceBase,
  FACT_CANDIDATE_LIMITS,
  type FactBase,
  isStanding,
  newestFirst,
  WHOLE_PROJECT_VERSIONS,
} from "../src/facts/fact-candidates";
import { factRow } from "./support/context-objects";

/**
 * A reader holds the query-independent part of a search (the newest versions it may know of, the
 * current standing rules and its thread's own current facts, each one past its bound) and, after a write, applies only the versions written
 * or changed since (src/facts/fact-candidates.ts advanceBase). Over projects larger than both bounds and
 * any mix of inserts, closures, review flags and other users' facts, the part it arrives at must be the
 * one a fresh read finds; when it cannot be exact, it must say so rather than guess.
 */

type Row = FactVersion & { revision: number };

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

interface Spec {
  user: "u1" | "ada" | null;
  kind: "plain" | "policy" | "constraint" | "system";
  rank: number;
  /** The reader's thread wrote it, or another. */
  thread: "t1" | "t2";
  /** Rows written in one minute share a transaction time: the id breaks the tie. */
  minute: number;
}

const spec = fc.record({
  user: fc.constantFrom<Spec["user"]>(null, null, "u1", "ada"),
  kind: fc.constantFrom<Spec["kind"]>("plain", "plain", "policy", "constraint", "system"),
  rank: fc.integer({ min: 1, max: 5 }),
  thread: fc.constantFrom<Spec["thread"]>("t1", "t1", "t2"),
  minute: fc.integer({ min: 0, max: 400 }),
});

function row(id: number, s: Spec, revision: number, minuteOffset = 0): Row {
  return {
    ...factRow({
      id: `f${String(id).padStart(5, "0")}`,
      txStart: at(s.minute + minuteOffset),
      userId: s.user,
      sourceType: s.kind === "policy" || s.kind === "system" ? s.kind : "user",
      isConstraint: s.kind === "constraint",
      authorityRank: s.rank,
      threadId: s.thread,
    }),
    revision,
  };
}

const visible = (rows: readonly Row[]) => rows.filter((r) => r.userId === null || r.userId === "u1");

/** What the search's statements read (fact-repository.ts), in their order, one row past each bound. */
function freshBase(rows: readonly Row[], revision: number): FactBase {
  const mine = visible(rows);
  return {
    threadId: "t1",
    thread: mine
      .filter((r) => r.threadId === "t1" && r.txEnd === null)
      .sort(newestFirst)
      .slice(0, FACT_CANDIDATE_LIMITS.thread + 1),
    revision,
    recent: [...mine].sort(newestFirst).slice(0, WHOLE_PROJECT_VERSIONS + 1),
    standing: mine
      .filter(isStanding)
      .sort((a, b) => b.authorityRank - a.authorityRank || newestFirst(a, b))
      .slice(0, FACT_CANDIDATE_LIMITS.standing + 1),
  };
}

const ids = (list: readonly FactVersion[]) => list.map((r) => r.id);

describe("advanceBase", () => {
  it("arrives at what a fresh read finds, or says it cannot", () => {
    const stats = { runs: 0, recentCut: 0, standingCut: 0, threadCut: 0, unknown: 0 };
    const change = fc.oneof(
      fc.record({ op: fc.constant("insert" as const), spec }),
      fc.record({ op: fc.constant("close" as const), pick: fc.nat() }),
      fc.record({ op: fc.constant("review" as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(
        fc.array(spec, { minLength: 0, maxLength: 900, size: "max" }),
        fc.array(change, { minLength: 0, maxLength: 40, size: "max" }),
        (initial, changes) => {
          let rows: Row[] = initial.map((s, i) => row(i, s, 1));
          const held = freshBase(rows, 1);
          // One later write: every row it inserts or changes is stamped with its revision.
          for (const [i, c] of changes.entries()) {
            if (c.op === "insert") {
              rows.push(row(10_000 + i, c.spec, 2, 400));
              continue;
            }
            const target = rows[c.pick % Math.max(1, rows.length)];
            if (!target) continue;
            const changed: Row =
              c.op === "close"
                ? { ...target, txEnd: at(900), isValid: false, revision: 2 }
                : { ...target, needsReview: true, revision: 2 };
            rows = rows.map((r) => (r.id === target.id ? changed : r));
          }
          const changedRows = visible(rows).filter((r) => r.revision > held.revision);
          const advanced = advanceBase(held, changedRows, 2);
          const fresh = freshBase(rows, 2);
          stats.runs++;
          if (held.recent.length > WHOLE_PROJECT_VERSIONS) stats.recentCut++;
          if (held.standing.length > FACT_CANDIDATE_LIMITS.standing) stats.standingCut++;
          const heldThread = held.thread ?? [];
          if (heldThread.length > FACT_CANDIDATE_LIMITS.thread) stats.threadCut++;
          if (advanced === undefined) {
            stats.unknown++;
            // Only when held rules or the thread's own facts were cut at their bound and one of them left.
            const now = new Map(rows.map((r) => [r.id, r]));
            const standingLeft =
              held.standing.length === FACT_CANDIDATE_LIMITS.standing + 1 &&
              held.standing.some((r) => !isStanding(now.get(r.id) as Row));
            const threadLeft =
              heldThread.length === FACT_CANDIDATE_LIMITS.thread + 1 &&
              heldThread.some((r) => (now.get(r.id) as Row).txEnd !== null);
            expect(standingLeft || threadLeft).toBe(true);
            return;
          }
          expect(advanced.revision).toBe(2);
          expect(ids(advanced.recent)).toEqual(ids(fresh.recent));
          expect(ids(advanced.standing)).toEqual(ids(fresh.standing));
          expect(ids(advanced.thread ?? [])).toEqual(ids(fresh.thread ?? []));
          // The rows are the changed versions where they changed, the held ones elsewhere.
          expect(advanced.recent).toEqual(fresh.recent);
          expect(advanced.standing).toEqual(fresh.standing);
          expect(advanced.thread).toEqual(fresh.thread);
        },
      ),
      { numRuns: 150 },
    );
    // The runs cut both bounds, and some could not be applied exactly.
    expect(stats.recentCut).toBeGreaterThan(10);
    expect(stats.standingCut).toBeGreaterThan(10);
    expect(stats.threadCut).toBeGreaterThan(10);
    expect(stats.unknown).toBeGreaterThan(0);
    expect(stats.unknown).toBeLessThan(stats.runs);
  });

  it("keeps the held part, at the new revision, when nothing the reader may know of changed", () => {
    const held = freshBase([row(1, { user: null, kind: "policy", rank: 5, thread: "t1", minute: 1 }, 1)], 1);
    const advanced = advanceBase(held, [], 3);
    expect(advanced).toEqual({ ...held, revision: 3 });
    expect(advanced?.recent[0]).toBe(held.recent[0]);
  });
});
