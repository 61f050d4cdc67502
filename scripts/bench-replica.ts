// `npm run bench:replica [-- --facts 10000] [--questions 200] [--rounds 3] [--baseline main] [--statements]
//                        [--write-every N]`
//
// The project fact replica's search (src/project-index/fact-replica.ts), the largest part of a new
// question's compile at scale, timed in Node over `node:sqlite` (the SQLite engine Durable Objects use),
// beside the replica of `--baseline` (a git ref) in the same run: question by question, the two alternate
// which goes first, so a machine that speeds up or slows down during the run moves both alike. Wall time
// of a server compile swings by a fifth from one run to the next on a shared machine; this does not.
//
// The project is bench:scale's filler (scripts/lib/scale-fixture.ts): `--facts` versions, a new one of a
// key closing the last, written in batches of 500 as revisions, with each version's references to the
// companies, teams and people it names (as an entity registry resolves them). Each replica catches up from
// a D1 stand-in: the migrations applied to an in-memory `node:sqlite` database, read through the D1 calls
// the catch-up makes. Each question (fresh ones, as bench:scale asks) is asked as a thread object asks
// it: its search terms, the entities it names, 25 nearest facts (a deterministic draw), and the newest
// versions read (up to WHOLE_PROJECT_VERSIONS + 1) as known. It prints each side's time per search (p50, p95, mean), how many answers differ
// (0 when a change keeps the answers; rows compare as the reader decodes them), and with `--statements` each side's time per statement.
// With `--write-every N`, one fact is written to the D1 stand-in before every Nth question, and both
// replicas catch up with it (untimed) before either is asked: the turn-by-turn case, where a question
// follows a write. Writes alternate between a new version of a current fact (closing the old one) and a
// fact of a new key naming one of the filler's entities, so a write both adds and removes matches.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { getTableColumns } from "drizzle-orm";
import type { FactVersion } from "../src/domain/fact-version";
import { DEFAULT_AUTHORITY_LADDER } from "../src/facts/authority";
import {
  FACT_CANDIDATE_LIMITS,
  newestFirst,
  searchTerms,
  WHOLE_PROJECT_VERSIONS,
} from "../src/facts/fact-candidates";
import { fullFactRow, storedFactRow } from "../src/facts/fact-rows";
import { facts } from "../src/facts/fact-schema";
import type { FactReplica, ReplicaQuery } from "../src/project-index/fact-replica";
import { rankedTerms } from "../src/retrieval/query-terms";
import { loadTokenCounter } from "../src/tokens/count-tokens";
import { percentile } from "./lib/bench-http";
import { nodeSqlStorage } from "./lib/node-sql-storage";
import { fillerChain, sourceAt } from "./lib/scale-compile";
import { FILLER_ENTITIES, freshQuestions, picker } from "./lib/scale-fixture";

const USAGE = `usage: npm run bench:replica [-- --facts N] [--questions N] [--rounds N] [--baseline REF] [--statements] [--write-every N]
  --facts N        fact versions in the project (default 10000)
  --questions N    fresh questions (default 200)
  --rounds N       passes over the questions; the first warms the JIT and is not timed (default 3)
  --baseline REF   git ref whose replica is timed beside this tree's (default HEAD)
  --statements     print each side's time per SQL statement too`;

const { values: options } = parseArgs({
  options: {
    facts: { type: "string", default: "10000" },
    questions: { type: "string", default: "200" },
    rounds: { type: "string", default: "3" },
    baseline: { type: "string", default: "HEAD" },
    statements: { type: "boolean", default: false },
    "write-every": { type: "string", default: "0" },
    help: { type: "boolean", default: false },
  },
});
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}
const positive = (text: string, name: string) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench:replica: --${name} must be a positive integer, got '${text}'\n${USAGE}`);
    process.exit(2);
  }
  return n;
};
const SIZE = positive(options.facts, "facts");
const QUESTIONS = positive(options.questions, "questions");
const ROUNDS = Math.max(2, positive(options.rounds, "rounds"));
const WRITE_EVERY = options["write-every"] === "0" ? 0 : positive(options["write-every"], "write-every");
const PROJECT = "bench";
const USER = "u1";
/** Versions per write, as bench:scale writes its filler. */
const BATCH = 500;
const NEAREST = FACT_CANDIDATE_LIMITS.similar;
/** The baseline's source, checked before the fixture is built. */
const baseline = (() => {
  try {
    return sourceAt(options.baseline);
  } catch {
    console.error(
      `bench:replica: --baseline '${options.baseline}' names no commit of this repository\n${USAGE}`,
    );
    process.exit(2);
  }
})();
const { dir, commit } = baseline;

type ReplicaClass = new (storage: DurableObjectStorage, sql?: SqlStorage) => FactReplica;

/**
 * The filler as stored versions, each with the revision of the write that last stamped it: its own, or
 * the one that closed it (closing restamps a version, as the fact repository does).
 */
async function fillerVersions(): Promise<(FactVersion & { revision: number })[]> {
  const start = Date.parse("2026-01-01T00:00:00Z");
  const at = (i: number) => new Date(start + i * 1000).toISOString();
  const writer = {
    projectId: PROJECT,
    threadId: "bench",
    identity: { user_id: USER, user_name: "Ada", authority: "employee" },
    ladder: DEFAULT_AUTHORITY_LADDER,
    countTokens: await loadTokenCounter(),
  };
  const revisions = new Map<string, number>();
  const versions = fillerChain(SIZE, writer, at, picker(SIZE), (i, row, closed) => {
    const revision = 1 + Math.floor(i / BATCH);
    revisions.set(row.id, revision);
    if (closed) revisions.set(closed.id, revision);
  });
  return versions.map((row) => Object.assign(row, { revision: revisions.get(row.id) as number }));
}

const ENTITY_NAMES = [...FILLER_ENTITIES.companies, ...FILLER_ENTITIES.teams, ...FILLER_ENTITIES.people];
const entityId = (name: string) => `entity-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
/** The names of registered entities a text holds (the registry's exact-name match). */
const mentions = (text: string) => {
  const lower = text.toLowerCase();
  return ENTITY_NAMES.filter((name) => lower.includes(name.toLowerCase()));
};
const named = (text: string) => mentions(text).map(entityId);

/** The D1 stand-in: the migrations applied to an in-memory database holding the project's facts. */
function sourceDatabase(versions: readonly (FactVersion & { revision: number })[]) {
  const db = new DatabaseSync(":memory:");
  const migrations = resolve(import.meta.dirname, "../migrations");
  for (const file of readdirSync(migrations)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    db.exec(readFileSync(join(migrations, file), "utf8"));
  }
  const columns = Object.entries(getTableColumns(facts)).map(([property, column]) => ({
    property,
    name: column.name,
  }));
  const insert = db.prepare(
    `INSERT INTO facts (${columns.map((c) => c.name).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
  );
  const link = db.prepare(
    "INSERT INTO fact_entities (project_id, fact_id, mention, entity_id) VALUES (?, ?, ?, ?)",
  );
  /** A version and its references to the entities it names, as the fact repository writes them. */
  const store = (row: FactVersion) => {
    const record = row as unknown as Record<string, unknown>;
    insert.run(
      ...columns.map(({ property }) => {
        const value = record[property];
        return typeof value === "boolean" ? Number(value) : ((value ?? null) as string | number | null);
      }),
    );
    for (const mention of mentions(row.content)) link.run(PROJECT, row.id, mention, entityId(mention));
  };
  db.exec("BEGIN");
  for (const row of versions) store(row);
  const revision = versions.reduce((most, r) => Math.max(most, r.revision), 0);
  db.prepare("INSERT INTO fact_revisions (project_id, revision) VALUES (?, ?)").run(PROJECT, revision);
  db.exec("COMMIT");
  const statement = (sql: string, bound: unknown[] = []) => ({
    sql,
    bound,
    bind: (...values: unknown[]) => statement(sql, values),
  });
  const d1 = {
    prepare: (sql: string) => statement(sql),
    batch: async (list: { sql: string; bound: unknown[] }[]) =>
      list.map((s) => ({ results: db.prepare(s.sql).all(...(s.bound as (string | number | null)[])) })),
  } as unknown as D1Database;
  let latest = revision;
  const current = versions.filter((r) => r.txEnd === null);
  /** One write of one fact, as its own revision: the `n`th (see --write-every). */
  const write = (n: number) => {
    latest++;
    const at = new Date(Date.parse("2027-01-01T00:00:00Z") + n * 1000).toISOString();
    const template = current[(n * 7919) % current.length] as FactVersion;
    const name = ENTITY_NAMES[n % ENTITY_NAMES.length] as string;
    const replaced = n % 2 === 0 ? template : undefined;
    const row = {
      ...template,
      id: `written-${n}`,
      key: replaced ? template.key : `written_${n}`,
      content: replaced
        ? `${template.content} (checked again, round ${n})`
        : `${name} asked for the ${n}th review`,
      txStart: at,
      txEnd: null,
      revision: latest,
    };
    db.exec("BEGIN");
    if (replaced) {
      db.prepare("UPDATE facts SET tx_end = ?, revision = ? WHERE id = ?").run(at, latest, replaced.id);
    }
    store(row);
    db.prepare("UPDATE fact_revisions SET revision = ? WHERE project_id = ?").run(latest, PROJECT);
    db.exec("COMMIT");
  };
  return { d1, write };
}

/** A replica of `Replica`'s code in a database of its own, caught up with the source. */
async function replicaOf(Replica: ReplicaClass, source: D1Database) {
  const store = nodeSqlStorage(":memory:");
  const statements = new Map<string, number>();
  /** Statements are timed only while the replica searches, not while it catches up. */
  const timing = { on: false };
  const exec = store.sql.exec;
  const timed = ((query: string, ...bindings: never[]) => {
    const started = performance.now();
    const rows = exec(query, ...bindings).toArray();
    const key = query.replace(/\s+/g, " ").trim().slice(0, 100);
    if (timing.on) statements.set(key, (statements.get(key) ?? 0) + performance.now() - started);
    return {
      toArray: () => rows,
      one: () => rows[0],
      [Symbol.iterator]: () => rows[Symbol.iterator](),
    };
  }) as unknown as SqlStorage["exec"];
  const sql = { exec: timed } as unknown as SqlStorage;
  const storage = {
    sql,
    transactionSync: <T>(body: () => T): T => {
      store.database.exec("BEGIN");
      try {
        const result = body();
        store.database.exec("COMMIT");
        return result;
      } catch (error) {
        store.database.exec("ROLLBACK");
        throw error;
      }
    },
  } as unknown as DurableObjectStorage;
  const replica = new Replica(storage, sql);
  for (;;) {
    const { revision, latest } = await replica.catchUp(source, PROJECT, 100);
    if (revision >= latest) break;
  }
  timing.on = true;
  /** Catches up with what was written since, untimed. */
  const catchUp = async () => {
    timing.on = false;
    try {
      await replica.catchUp(source, PROJECT, 1);
    } finally {
      timing.on = true;
    }
  };
  return { replica, statements, catchUp };
}

const versions = await fillerVersions();
const { d1: source, write } = sourceDatabase(versions);
const theirs = (await import(join(dir, "src/project-index/fact-replica.ts"))).FactReplica as ReplicaClass;
const mine = (await import("../src/project-index/fact-replica")).FactReplica as ReplicaClass;
const sides = { mine: await replicaOf(mine, source), theirs: await replicaOf(theirs, source) };

const current = versions.filter((r) => r.txEnd === null).map((r) => r.id);
// The reader knows every version of its newest-versions read (one past a whole project), as a thread
// object does (src/facts/fact-candidate-cache.ts knownRows): their rows are not sent again.
const known = [...versions].sort(newestFirst).slice(0, WHOLE_PROJECT_VERSIONS + 1);
const since = versions.reduce((most, r) => Math.max(most, r.revision), 0);
const queries: ReplicaQuery[] = freshQuestions("facts", QUESTIONS, []).map((question, i) => {
  const draw = picker(SIZE * 7919 + i);
  return {
    userId: USER,
    terms: searchTerms(question),
    similarIds: [...new Set(Array.from({ length: NEAREST }, () => draw.pick(current)))],
    outside: { keys: [], ids: [] },
    entityIds: named(question),
    known: known.map((r) => r.id),
    since,
  };
});

/**
 * An answer with its rows as the reader decodes them, and its term counts as the choice they make
 * (query-terms.ts rankedTerms, the terms ranked as a set): two encodings of the same rows compare equal, and so do counts that a
 * replica remembered from before a write (off by a row or two) and ones counted again, when both make the
 * same choice, which is all the reader takes from them.
 */
const decoded = (answer: ReturnType<FactReplica["search"]>, query: ReplicaQuery) => ({
  ...answer,
  counts: (() => {
    const choice = rankedTerms(
      query.terms,
      query.terms.map((term) => answer.counts[term] ?? 0),
    );
    // The replica ranks the terms in their own order, whatever their counts' order.
    return { ...choice, ranked: [...choice.ranked].sort() };
  })(),
  rows: Object.fromEntries(
    Object.entries(answer.rows).map(([id, row]) => [id, storedFactRow(fullFactRow(JSON.parse(row)))]),
  ),
});

const times = { mine: [] as number[], theirs: [] as number[] };
let differing = 0;
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, query] of queries.entries()) {
    if (WRITE_EVERY && i % WRITE_EVERY === 0) {
      write(round * queries.length + i);
      for (const side of Object.values(sides)) await side.catchUp();
    }
    const order = (round + i) % 2 === 0 ? (["mine", "theirs"] as const) : (["theirs", "mine"] as const);
    const answers: Record<string, string> = {};
    for (const side of order) {
      const started = performance.now();
      const answer = sides[side].replica.search(query);
      const elapsed = performance.now() - started;
      if (round > 0) times[side].push(elapsed);
      if (round === ROUNDS - 1) answers[side] = JSON.stringify(decoded(answer, query));
    }
    if (round === ROUNDS - 1 && answers.mine !== answers.theirs) differing++;
  }
  // The first round warms the JIT and each replica's memos; the statements are timed from the second.
  if (round === 0) for (const side of Object.values(sides)) side.statements.clear();
}

const line = (name: string, list: number[]) => {
  const s = [...list].sort((a, b) => a - b);
  const mean = s.reduce((t, x) => t + x, 0) / s.length;
  return `  ${name.padEnd(26)} p50 ${percentile(s, 50).toFixed(2).padStart(6)} ms   p95 ${percentile(s, 95).toFixed(2).padStart(6)} ms   mean ${mean.toFixed(2).padStart(6)} ms`;
};
const withEntities = queries.filter((q) => q.entityIds.length > 0).length;
console.log(
  `\nfact replica search at ${SIZE} fact versions (node:sqlite; ${QUESTIONS} fresh questions, ${withEntities} naming an entity, ${ROUNDS - 1} timed rounds after one untimed; each replica keeps its memos across questions, as the index object does)`,
);
console.log(line("this tree", times.mine));
console.log(line(`baseline ${commit} (${options.baseline})`, times.theirs));
console.log(`  answers differing from the baseline's: ${differing} of ${QUESTIONS}`);
if (options.statements) {
  const searches = times.mine.length;
  for (const [side, label] of [
    ["mine", "this tree"],
    ["theirs", `baseline ${commit}`],
  ] as const) {
    console.log(`\n  ${label}, per statement (ms per search):`);
    for (const [statement, ms] of [...sides[side].statements].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
      console.log(`  ${(ms / searches).toFixed(3).padStart(7)}  ${statement}`);
    }
  }
}
