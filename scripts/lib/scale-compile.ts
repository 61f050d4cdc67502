// The pure compiler at a large project's scale, for `npm run bench:compile -- --scale-facts N`: what a
// thread object hands compileContext when the project holds N fact versions (scripts/lib/scale-fixture.ts's
// filler, as bench:scale writes it) and every question is new. The candidate facts are built as the fact
// search builds them (src/facts/fact-candidates.ts): the newest versions (all of a project of up to 500,
// else the newest 200), the best full-text matches, some of the nearest facts and the history of every
// slot these fill, newest first. The newest 501 versions are the object's held rows, the same frozen
// objects compile after compile; the question's other rows arrive from the fact replica as new frozen
// objects every time, as its answers do.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { MESSAGE_TAIL } from "../../src/compiler/compile";
import type { CompileInput } from "../../src/compiler/compile-input";
import type { MessageRecord, StatedClaims } from "../../src/compiler/types";
import type { FactVersion } from "../../src/domain/fact-version";
import { DEFAULT_AUTHORITY_LADDER } from "../../src/facts/authority";
import {
  FACT_CANDIDATE_LIMITS,
  newestCandidates,
  newestFirst,
  searchTerms,
  WHOLE_PROJECT_VERSIONS,
} from "../../src/facts/fact-candidates";
import { prepareFact } from "../../src/facts/prepare-fact";
import { loadTokenCounter } from "../../src/tokens/count-tokens";
import { fillerFact, fillerMessage, freshQuestions, picker } from "./scale-fixture";

/** The nearest facts a question brings besides its matches (the vector source's bound). */
const NEAREST = FACT_CANDIDATE_LIMITS.similar;
/** Messages in the thread; the tail and the turns sharing a word with the question are handed over. */
const MESSAGES = 1000;
const EPISODES = 30;

export interface ScaleCompile {
  /** Everything but the question's own part, the same for every compile. */
  input: Omit<CompileInput, "query" | "facts" | "episodes" | "similar" | "statedClaims">;
  /** The question's candidates, episodes and nearest facts, with fresh copies of its own rows. */
  forQuestion: (
    question: string,
    round: number,
  ) => Pick<CompileInput, "query" | "facts" | "episodes" | "similar" | "statedClaims">;
  questions: string[];
}

/**
 * `writes`: every question follows a write of one new fact, as in an agent's loop: its version joins the
 * held newest versions in front, and the oldest of them drops out, so the run the lists begin with
 * moves by one each question (the candidates as a thread object reads them right after a write).
 */
export async function scaleCompile(
  size: number,
  questionCount: number,
  writes = false,
): Promise<ScaleCompile> {
  const { chance, pick } = picker(size);
  const countTokens = await loadTokenCounter();
  const identity = { user_id: "u1", user_name: "Ada", authority: "employee" };
  const start = Date.parse("2026-01-01T00:00:00Z");
  const at = (i: number) => new Date(start + i * 1000).toISOString();
  const writer = {
    projectId: "scale",
    threadId: "scale",
    identity,
    ladder: DEFAULT_AUTHORITY_LADDER,
    receivedAt: at(0),
    countTokens,
  };
  const versions = fillerChain(size, writer, at, { pick, chance });
  for (const row of versions) Object.freeze(row);
  const newest = [...versions].sort(newestFirst);
  const read = newest.slice(0, WHOLE_PROJECT_VERSIONS + 1);
  const current = newest.filter((r) => r.txEnd === null);
  const byKey = new Map<string, FactVersion[]>();
  for (const row of newest) byKey.set(row.key, [...(byKey.get(row.key) ?? []), row]);
  const words = new Map(current.map((r) => [r, new Set(searchTerms(r.content))]));

  const transcript: MessageRecord[] = Array.from({ length: MESSAGES }, (_, i) => {
    const m = fillerMessage(i, at(size + i), pick);
    const line = `${m.speaker ?? m.role}: ${m.content}`;
    return {
      id: m.id,
      ts: m.ts,
      role: m.role,
      speaker: m.speaker ?? null,
      content: m.content,
      line,
      tokens: countTokens(line),
    };
  });
  for (const m of transcript) Object.freeze(m);
  const tail = transcript.slice(-MESSAGE_TAIL);
  // What extraction read from the turns, as the object hands it over for the tail and the episodes:
  // the week's spending is a slot value, and every other such turn retires the figure it replaces.
  const stated = new Map<string, StatedClaims>();
  for (const [i, m] of transcript.entries()) {
    const spent = /^We spent (\$\d+) on groceries/.exec(m.content);
    if (!spent) continue;
    stated.set(m.id, {
      ts: m.ts,
      claims: [{ key: "weekly_grocery_spend", value: spent[1] as string }],
      ...(Math.floor(i / 24) % 2 === 0
        ? { retired: [`we spent $${40 + ((i + 7) % 160)} on groceries`] }
        : {}),
    });
  }
  const claimsOf = (messages: readonly MessageRecord[]) =>
    new Map(
      messages.flatMap((m) => (stated.has(m.id) ? [[m.id, stated.get(m.id) as StatedClaims] as const] : [])),
    );
  const earlier = transcript.slice(0, -MESSAGE_TAIL);
  const asked: string[] = [];
  const questions = [
    ...freshQuestions("facts", Math.ceil(questionCount / 2), asked),
    ...freshQuestions("messages", Math.floor(questionCount / 2), asked),
  ];

  // The newest versions the thread object holds (its newest-versions read, one past a whole project): the
  // same frozen objects question after question, until a write (`writes`) puts its own in front. The
  // newest of them are candidates (all, for a whole project); any of them a search finds comes back as
  // the object it holds.
  let held = read;
  let heldIds = new Set(held.map((r) => r.id));
  let recent = newestCandidates(held);
  let recentIds = new Set(recent.map((r) => r.id));
  const forQuestion = (question: string, round: number) => {
    const terms = searchTerms(question);
    if (writes) {
      // A new fact under a key of its own, written a second after the newest held version.
      const event = fillerFact(size + round, at(size + round), pick, chance);
      const row = prepareFact(
        { ...event, key: `written_${round}`, ts: at(size + questionCount + round) },
        { ...writer, receivedAt: at(size + questionCount + round) },
      );
      held = [Object.freeze(row), ...held].slice(0, WHOLE_PROJECT_VERSIONS + 1);
      heldIds = new Set(held.map((r) => r.id));
      recent = newestCandidates(held);
      recentIds = new Set(recent.map((r) => r.id));
    }
    // Full text: the current facts sharing most of the question's words, newest first among equals.
    const matched = current
      .map((row) => ({ row, hits: terms.filter((t) => words.get(row)?.has(t)).length }))
      .filter((m) => m.hits > 0)
      .sort((a, b) => b.hits - a.hits)
      .slice(0, FACT_CANDIDATE_LIMITS.matched)
      .map((m) => m.row);
    // The nearest: a deterministic draw of other current facts, with their cosines.
    const draw = picker(size * 7919 + round);
    const nearest = Array.from({ length: NEAREST }, () => draw.pick(current));
    const found = new Map<string, FactVersion>();
    for (const row of [...recent, ...matched, ...nearest]) found.set(row.id, row);
    // History: every version of the slots filled outside the newest ones.
    for (const row of [...found.values()]) {
      if (recentIds.has(row.id)) continue;
      for (const version of byKey.get(row.key) ?? []) found.set(version.id, version);
    }
    // Rows outside the held newest ones come as new objects with new strings, decoded from JSON as the
    // replica's answers are (src/facts/fact-repository.ts frozenRow).
    const facts = [...found.values()]
      .map((row) =>
        heldIds.has(row.id) ? row : Object.freeze(JSON.parse(JSON.stringify(row)) as FactVersion),
      )
      .sort(newestFirst);
    const similar = new Map(nearest.map((row) => [row.id, 0.4 + draw.chance() * 0.4]));
    const episodes = earlier
      .filter((m) => terms.some((t) => m.content.toLowerCase().includes(t)))
      .slice(-EPISODES)
      .map((m, i) => ({ ...m, score: 1 / (i + 1) }));
    return { query: question, facts, episodes, similar, statedClaims: claimsOf([...tail, ...episodes]) };
  };

  return {
    questions,
    forQuestion,
    input: {
      budgetTokens: 8000,
      factsShare: 0.7,
      now: at(size + MESSAGES + 60),
      tenantId: "bench",
      projectId: "scale",
      threadId: "scale",
      identity,
      environment: {},
      ladder: DEFAULT_AUTHORITY_LADDER,
      working: [],
      environmentFacts: [],
      items: [],
      messages: tail,
      countTokens,
    },
  };
}

/**
 * bench:scale's filler as stored versions, in the order written: versions of one key form one chain, a
 * new one closing the last (as src/facts/plan-writes.ts does). `written(i, row, closed)` is told of each.
 */
export function fillerChain(
  size: number,
  writer: Omit<Parameters<typeof prepareFact>[1], "receivedAt">,
  at: (i: number) => string,
  draw: ReturnType<typeof picker>,
  written: (i: number, row: FactVersion, closed?: FactVersion) => void = () => undefined,
): FactVersion[] {
  const latest = new Map<string, FactVersion>();
  const versions: FactVersion[] = [];
  for (let i = 0; i < size; i++) {
    const row = prepareFact(fillerFact(i, at(i), draw.pick, draw.chance), { ...writer, receivedAt: at(i) });
    const previous = latest.get(row.key);
    if (previous) {
      previous.txEnd = row.txStart;
      previous.supersededBy = row.id;
      previous.isValid = false;
      row.supersedes = previous.id;
      row.lineageId = previous.lineageId;
    }
    written(i, row, previous);
    latest.set(row.key, row);
    versions.push(row);
  }
  return versions;
}

/**
 * The compiler of another commit (`ref`), for a baseline measured in the same run: its `src/` is
 * exported once into node_modules/.cache (so its imports of packages resolve as the worktree's do) and
 * imported from there.
 */
export async function compilerAt(ref: string): Promise<{
  compileContext: (input: CompileInput) => unknown;
  newCache: () => unknown;
  commit: string;
}> {
  const { dir, commit } = sourceAt(ref);
  const compile = await import(join(dir, "src/compiler/compile.ts"));
  const cache = await import(join(dir, "src/compiler/cache/compile-cache.ts"));
  const memos = await import(join(dir, "src/compiler/cache/memos.ts"));
  const text = new memos.TextMemos();
  return {
    compileContext: compile.compileContext,
    newCache: () => new cache.CompileCache(text),
    commit,
  };
}

/**
 * Another commit's `src/` (`ref`), exported once into node_modules/.cache so its imports of packages
 * resolve as the worktree's do: benches import a baseline's modules from `dir` and time them beside
 * this tree's in the same run.
 */
export function sourceAt(ref: string): { dir: string; commit: string } {
  const root = resolve(import.meta.dirname, "../..");
  const commit = execFileSync("git", ["rev-parse", "--short", ref], { cwd: root, encoding: "utf8" }).trim();
  const dir = join(root, "node_modules", ".cache", "bench-compile-baseline", commit);
  if (!existsSync(join(dir, "src"))) {
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync("git", ["archive", "--format=tar", commit, "src"], {
      cwd: root,
      maxBuffer: 1 << 28,
    });
    execFileSync("tar", ["-x", "-C", dir], { input: archive });
  }
  return { dir, commit };
}
