// `npm run bench:scale [-- --sizes 1000,10000] [--messages 1000,10000] [--rounds 20] [--write-rounds 10]
//                      [--queries new|repeat] [--url URL] [--json FILE] [--compare FILE] [--cpu-profile DIR]`
//
// Issue 15's scale figures, through the public HTTP API of a local dev server started here (or --url):
//  - facts at scale: a project of N facts (filler written in batches of 500 as the thread user's own;
//    --policy-share 0.4 makes that share shared policy, `source: {type: "policy"}`) with three distinctive facts planted at the oldest, middle and
//    newest positions; each is asked about in its own compile and counts as recalled when its value is
//    in the compiled context. Ingest events/s, the first compile right after the bulk write, and
//    p50/p95 of the server's trace.compile_ms and of the client's round trip over every compile after
//    the bulk write (the first one, the recall questions and --rounds varied queries); then --write-rounds
//    compiles each right after a write of one fact (the turn-by-turn case), reported apart;
//  - messages at scale: a thread of M conversational turns with three planted statements; ingest
//    events/s, the first compile right after the bulk write, how long extraction took to drain
//    (GET state watermark.pending_messages = 0, with a deadline), how long the message vectors took
//    after that (GET state unindexed_messages = 0, the same deadline again; compiles 2 s apart meanwhile,
//    its figures reported apart: those compiles share the object with that work), then the same compile
//    figures and recall;
//  - where compile_ms went: p50/p95 of trace.timings' facts_ms, thread_reads_ms and passes_ms per scenario,
//    and its slowest compiles with their split;
//  - the issue's targets beside each figure, met or not; no assertions.
// The --rounds questions are new ones by default (--queries new): each asked once, never repeating another
// compile's question, as an agent's questions mostly are. A question asked again is served from what its
// thread object held of the first time (the project's fact search, term and text memos), so cycling
// through a few fixed questions (--queries repeat, the ten of scripts/lib/scale-fixture.ts, as runs before
// this option did) times warm repeats and understates a new question's cost.
// Memory: when the bench starts the server, it reads the V8 heap of the server's Worker isolate through
// its inspector (scripts/lib/isolate-heap.mjs), after a full collection, before each scenario and after
// its compiles. Locally the Worker and all its Durable Objects share that isolate, so for one object's
// share a facts scenario ends with a second thread of the same project asking the first one's questions:
// the heap's growth meanwhile is what one more thread object holds (the figure that must stay flat as
// the project grows). It also prints the RSS of the workerd processes, a coarse bound on everything
// (SQLite's caches included). When it started the server it also restarts it at the end and times each
// thread's first compile on a cold object.
// What each thread object holds between compiles is reported by the service itself (trace.held: the fact
// versions of its last few searches and its compile cache's objects): the table prints it after the last
// compile of each scenario, the figure that must stay flat as the project grows.
// --cpu-profile DIR samples the Worker isolate's CPU (every 100 µs, through the server's inspector:
// scripts/lib/isolate-profile.mjs) over each scenario's --rounds questions and writes
// DIR/facts-<size>.cpuprofile and DIR/messages-<size>.cpuprofile, for Chrome DevTools: the router, the
// thread objects and the project index share that isolate locally, so one profile shows where a new
// question's time goes in all of them. Sampling slows the compiles it watches: read the figures of a run
// without it.
// --compare FILE puts a run saved with --json (e.g. of an earlier commit, served with --url) beside
// this one, scenario by scenario.
// 1M facts is allowed but slow (ingest alone takes tens of minutes on a 2-core machine).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { apiClient, type Call, percentile, sorted } from "./lib/bench-http";
import { DevServer } from "./lib/dev-server.mjs";
import { IsolateHeap } from "./lib/isolate-heap.mjs";
import { IsolateProfile } from "./lib/isolate-profile.mjs";
import {
  FACT_QUERIES,
  fillerFact,
  fillerMessage,
  freshQuestions,
  MESSAGE_QUERIES,
  PLANTED_FACTS,
  PLANTED_MESSAGES,
  type Planted,
  picker,
  plantedIndex,
} from "./lib/scale-fixture";

const { values: options } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000" },
    messages: { type: "string", default: "1000,10000" },
    rounds: { type: "string", default: "20" },
    "write-rounds": { type: "string", default: "10" },
    "drain-timeout": { type: "string", default: "300" },
    "policy-share": { type: "string", default: "0" },
    queries: { type: "string", default: "new" },
    url: { type: "string" },
    json: { type: "string" },
    compare: { type: "string" },
    "cpu-profile": { type: "string" },
    tenant: { type: "string", default: "dev" },
    key: { type: "string", default: "local-dev-key" },
  },
});
const list = (text: string) =>
  text
    .split(",")
    .map((n) => Number(n.replaceAll("_", "")))
    .filter((n) => Number.isInteger(n) && n >= 3);
const FACT_SIZES = list(options.sizes);
const MESSAGE_SIZES = list(options.messages);
const ROUNDS = Math.max(1, Number(options.rounds) || 20);
/** Facts scenarios: compiles each right after a write of one fact (the turn-by-turn case). */
const WRITE_ROUNDS = Math.max(0, Number(options["write-rounds"]) || 0);
const DRAIN_TIMEOUT_MS = Math.max(1, Number(options["drain-timeout"]) || 300) * 1000;
/** Messages scenarios: the pause between the compiles made while the message vectors are written. */
const BACKLOG_PAUSE_MS = 2_000;
const BUDGET = 8000;
const BATCH = 500;
/** Share of filler facts written as shared policy; policy facts compile as always-on rules. */
const POLICY_SHARE = Math.min(1, Math.max(0, Number(options["policy-share"]) || 0));

/** `new`: every round asks a question not asked before; `repeat`: the rounds cycle through ten fixed ones. */
const FRESH_QUERIES = options.queries !== "repeat";

const progress = (text: string) => console.error(`  … ${text}`);

interface Compiled {
  context: string;
  trace_id: string;
  trace: {
    compile_ms: number;
    candidates?: { total?: number };
    extraction_pending?: number;
    timings?: {
      facts_read?: string;
      waited_ms?: number;
      facts_ms?: number;
      thread_reads_ms?: number;
      passes_ms?: number;
    };
    held?: { fact_rows: number; compiled_objects: number };
  };
}

interface Memory {
  /** Sum over the dev server's workerd processes, MiB; undefined when not observable. */
  beforeMiB?: number;
  afterMiB?: number;
  /** The Worker isolate's V8 heap after a full collection, MiB (scripts/lib/isolate-heap.mjs). */
  heapBeforeMiB?: number;
  heapAfterMiB?: number;
  /**
   * Facts scenarios: what one more thread object of the project holds, MiB: the heap's growth while a
   * second thread asks the first one's questions, with that thread's trace.held after its last compile.
   */
  secondThread?: {
    heapMiB: number;
    questions: number;
    held?: { fact_rows: number; compiled_objects: number };
  };
}

/** What a scenario can read of the server's memory: its processes' RSS, and the isolate's heap. */
interface Probes {
  /**
   * Runs a stretch of the bench; with --cpu-profile, sampling the isolate's CPU meanwhile, to
   * `<dir>/<name>.cpuprofile`.
   */
  profiled: <T>(name: string, stretch: () => Promise<T>) => Promise<T>;
  server?: DevServer;
  /** The isolate heap after a full collection, MiB; absent when not observable. */
  heapMiB?: () => Promise<number>;
}

interface Recall {
  position: Planted["position"];
  question: string;
  expect: string;
  found: boolean;
  /** From the stored trace: `compiled`, the omission reason, or `not a candidate` (never read). */
  why: string;
  compileMs: number;
}

/** One compile's trace.compile_ms and its split (trace.timings). */
interface Split {
  ms: number;
  facts: number;
  thread: number;
  passes: number;
  read: string;
}

interface Scenario {
  kind: "facts" | "messages";
  size: number;
  thread: string;
  events: number;
  ingestSeconds: number;
  eventsPerSecond: number;
  first: { compileMs: number; roundTripMs: number; pending: number; factsRead?: string; candidates?: number };
  drainSeconds?: number;
  drained?: boolean;
  /** Messages scenarios: seconds from extraction drained to every message vector written. */
  indexSeconds?: number;
  indexed?: boolean;
  /** Messages scenarios: the compiles made while the message vectors were being written. */
  backlog?: { compiles: number; serverP50: number; serverP95: number; tripP50: number; tripP95: number };
  compiles: number;
  serverP50: number;
  serverP95: number;
  tripP50: number;
  tripP95: number;
  recall: Recall[];
  memory: Memory;
  /** Every compile's split, in order (the first right after the bulk write). */
  splits?: Split[];
  /** trace.held of the scenario's last compile. */
  held?: { fact_rows: number; compiled_objects: number };
  /** Facts scenarios: the compiles made each right after a one-fact write, after the rounds above. */
  afterWrite?: { compiles: number; serverP50: number; serverP95: number; splits: Split[] };
  cold?: { compileMs: number; roundTripMs: number };
}

const MiB = 1024 * 1024;
function workerdMiB(server: DevServer | undefined): number | undefined {
  const processes = server?.workerdMemory() ?? [];
  if (processes.length === 0) return undefined;
  return processes.reduce((sum, p) => sum + p.rssBytes, 0) / MiB;
}

async function ingest(call: Call, thread: string, events: unknown[], label: string): Promise<number> {
  const started = performance.now();
  let reported = 0;
  for (let i = 0; i < events.length; i += BATCH) {
    await call("POST", `/threads/${thread}/events`, { events: events.slice(i, i + BATCH) });
    const done = Math.min(events.length, i + BATCH);
    if (done - reported >= Math.max(BATCH, events.length / 10) || done === events.length) {
      reported = done;
      const seconds = (performance.now() - started) / 1000;
      progress(`${label}: ${done}/${events.length} events in ${seconds.toFixed(0)} s`);
    }
  }
  return (performance.now() - started) / 1000;
}

/** Compiles and their round trips, in order, with the recall of the planted events. */
class CompileLog {
  readonly server: number[] = [];
  readonly trips: number[] = [];
  /** Each compile's split of trace.compile_ms (trace.timings), in order. */
  readonly splits: Split[] = [];
  /** Every question asked, in order. */
  readonly questions: string[] = [];
  held?: Scenario["held"];
  constructor(
    private readonly call: Call,
    private readonly thread: string,
  ) {}

  async compile(query: string): Promise<{ output: Compiled; tripMs: number }> {
    const started = performance.now();
    const output = (await this.call("POST", `/threads/${this.thread}/context`, {
      query,
      budget_tokens: BUDGET,
      trace_detail: "summary",
    })) as Compiled;
    const tripMs = performance.now() - started;
    this.questions.push(query);
    this.server.push(output.trace.compile_ms);
    this.trips.push(tripMs);
    const t = output.trace.timings;
    this.splits.push({
      ms: output.trace.compile_ms,
      facts: t?.facts_ms ?? 0,
      thread: t?.thread_reads_ms ?? 0,
      passes: t?.passes_ms ?? 0,
      read: t?.facts_read ?? "?",
    });
    this.held = output.trace.held;
    return { output, tripMs };
  }

  async recall(planted: Planted[]): Promise<Recall[]> {
    const found: Recall[] = [];
    for (const p of planted) {
      const { output } = await this.compile(p.question);
      found.push({
        position: p.position,
        question: p.question,
        expect: p.expect,
        found: output.context.includes(p.expect),
        why: await this.why(output.trace_id, `planted-${p.position}`),
        compileMs: output.trace.compile_ms,
      });
    }
    return found;
  }

  /** What the stored trace (which lists every omitted object) says of one object; read after timing. */
  private async why(traceId: string, objectId: string): Promise<string> {
    type Entry = { object_id: string; reason?: string };
    const stored = (await this.call("GET", `/traces/${traceId}`)) as {
      trace?: { compiled?: Entry[]; omitted?: Entry[] };
    };
    if (stored.trace?.compiled?.some((e) => e.object_id === objectId)) return "compiled";
    const omitted = stored.trace?.omitted?.find((e) => e.object_id === objectId);
    return omitted ? `omitted: ${omitted.reason}` : "not a candidate";
  }

  /** --rounds compiles: fresh questions of the scenario's `kind` (see --queries), or `queries` in a cycle. */
  async rounds(kind: "facts" | "messages", queries: string[], asked: string[]): Promise<void> {
    const fresh = FRESH_QUERIES ? freshQuestions(kind, ROUNDS, [...asked, ...queries]) : [];
    for (let round = 0; round < ROUNDS; round++)
      await this.compile((FRESH_QUERIES ? fresh[round] : queries[round % queries.length]) as string);
  }
}

/** The first compile after a bulk write, as a scenario reports it. */
function firstCompile(first: { output: Compiled; tripMs: number }): Scenario["first"] {
  const { trace } = first.output;
  return {
    compileMs: trace.compile_ms,
    roundTripMs: first.tripMs,
    pending: trace.extraction_pending ?? 0,
    factsRead: trace.timings?.facts_read,
    ...(trace.candidates ? { candidates: trace.candidates.total } : {}),
  };
}

/** Progress line for the planted items found at each position. */
const recallLine = (label: string, recall: Recall[]) =>
  `${label}: recall ${recall.map((r) => `${r.position} ${r.found ? "yes" : "no"}`).join(", ")}`;

function summarise(log: CompileLog) {
  const server = sorted(log.server);
  const trips = sorted(log.trips);
  return {
    held: log.held,
    splits: log.splits,
    compiles: server.length,
    serverP50: percentile(server, 50),
    serverP95: percentile(server, 95),
    tripP50: percentile(trips, 50),
    tripP95: percentile(trips, 95),
  };
}

/**
 * A scenario's thread in a project of its own, the memory before it, and its events' times: one second
 * apart, ending a minute ago, so the oldest is oldest by valid and by transaction time.
 */
async function openScenario(
  call: Call,
  kind: Scenario["kind"],
  size: number,
  nonce: string,
  probes: Probes,
): Promise<{ thread: string; project: string; memory: Memory; at: (i: number) => string }> {
  const thread = `scale-${kind === "facts" ? "f" : "m"}${size}-${nonce}`;
  const project = `scale-${kind}-${size}-${nonce}`;
  const memory: Memory = { beforeMiB: workerdMiB(probes.server), heapBeforeMiB: await probes.heapMiB?.() };
  await openThread(call, thread, project);
  const start = Date.now() - (size + 60) * 1000;
  return { thread, project, memory, at: (i) => new Date(start + i * 1000).toISOString() };
}

const openThread = (call: Call, thread: string, project: string) =>
  call("PUT", `/threads/${thread}`, {
    project_id: project,
    identity: { user_id: "u1", user_name: "Ada", authority: "employee" },
  });

/**
 * What one more thread object of a project holds: the isolate heap's growth (after full collections)
 * while a new thread of the project asks `questions`. The isolate-wide memos already hold their texts,
 * and nothing is written, so the growth is that object's own.
 */
async function secondThread(
  call: Call,
  thread: string,
  project: string,
  questions: readonly string[],
  heapMiB: () => Promise<number>,
): Promise<NonNullable<Memory["secondThread"]>> {
  const before = await heapMiB();
  await openThread(call, thread, project);
  const log = new CompileLog(call, thread);
  for (const question of questions) await log.compile(question);
  return { heapMiB: (await heapMiB()) - before, questions: questions.length, held: log.held };
}

async function factsAtScale(call: Call, size: number, nonce: string, probes: Probes): Promise<Scenario> {
  const { chance, pick } = picker(size);
  const { thread, project, memory, at } = await openScenario(call, "facts", size, nonce, probes);
  const planted = new Map(PLANTED_FACTS.map((p) => [plantedIndex(p.position, size), p]));
  const events = Array.from({ length: size }, (_, i) => {
    const p = planted.get(i);
    return p
      ? { type: "fact" as const, id: `planted-${p.position}`, key: p.key, value: p.text, ts: at(i) }
      : fillerFact(i, at(i), pick, chance, POLICY_SHARE);
  });
  const ingestSeconds = await ingest(call, thread, events, `${size} facts`);

  const log = new CompileLog(call, thread);
  const first = await log.compile(FACT_QUERIES[0] as string);
  const recall = await log.recall(PLANTED_FACTS);
  progress(recallLine(`${size} facts`, recall));
  await probes.profiled(`facts-${size}`, () =>
    log.rounds(
      "facts",
      FACT_QUERIES.slice(1),
      PLANTED_FACTS.map((p) => p.question),
    ),
  );
  // Turn by turn: one new fact, then a question, so every compile follows a write it must see.
  const afterWrite = new CompileLog(call, thread);
  for (let i = 0; i < WRITE_ROUNDS; i++) {
    const event = fillerFact(size + i, at(size + i), pick, chance, POLICY_SHARE);
    await call("POST", `/threads/${thread}/events`, { events: [event] });
    await afterWrite.compile(FACT_QUERIES[(i + 1) % FACT_QUERIES.length] as string);
  }
  memory.afterMiB = workerdMiB(probes.server);
  if (probes.heapMiB) {
    memory.heapAfterMiB = await probes.heapMiB();
    progress(`${size} facts: a second thread of the project asks the same questions`);
    const questions = [...log.questions, ...afterWrite.questions];
    memory.secondThread = await secondThread(call, `${thread}-2`, project, questions, probes.heapMiB);
  }
  const written = summarise(afterWrite);
  return {
    ...(WRITE_ROUNDS > 0
      ? {
          afterWrite: {
            compiles: written.compiles,
            serverP50: written.serverP50,
            serverP95: written.serverP95,
            splits: written.splits,
          },
        }
      : {}),
    kind: "facts",
    size,
    thread,
    events: events.length,
    ingestSeconds,
    eventsPerSecond: events.length / ingestSeconds,
    first: firstCompile(first),
    ...summarise(log),
    recall,
    memory,
  };
}

async function messagesAtScale(call: Call, size: number, nonce: string, probes: Probes): Promise<Scenario> {
  const { pick } = picker(size + 7);
  const { thread, memory, at } = await openScenario(call, "messages", size, nonce, probes);
  const planted = new Map(PLANTED_MESSAGES.map((p) => [plantedIndex(p.position, size), p]));
  const events = Array.from({ length: size }, (_, i) => {
    const p = planted.get(i);
    return p
      ? {
          type: "message" as const,
          id: `planted-${p.position}`,
          role: "user" as const,
          content: p.text,
          ts: at(i),
        }
      : fillerMessage(i, at(i), pick);
  });
  const ingestSeconds = await ingest(call, thread, events, `${size} messages`);

  const log = new CompileLog(call, thread);
  const first = await log.compile(MESSAGE_QUERIES[0] as string);

  const drainStarted = performance.now();
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  let pending = Number.POSITIVE_INFINITY;
  let lastReport = 0;
  while (Date.now() < deadline) {
    const state = await call("GET", `/threads/${thread}/state`);
    pending = state.watermark.pending_messages;
    if (pending === 0) break;
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      progress(`${size} messages: ${pending} pending extraction`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const drainSeconds = (performance.now() - drainStarted) / 1000;
  progress(
    `${size} messages: ${pending === 0 ? "extraction drained" : `${pending} still pending at the deadline`} after ${drainSeconds.toFixed(1)} s`,
  );

  // Extraction drained, the thread's message vectors follow, a batch at a time between requests. The
  // compiles made meanwhile share the object with that work: they are reported apart, and the figures
  // above are the thread's once its write path has caught up.
  const backlog = new CompileLog(call, thread);
  const indexStarted = performance.now();
  let unindexed = Number.POSITIVE_INFINITY;
  const questions = freshQuestions("messages", 1_000, [...MESSAGE_QUERIES, ...log.questions]);
  const indexDeadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (Date.now() < indexDeadline) {
    const state = await call("GET", `/threads/${thread}/state`);
    // A server older than the count (--url) cannot say: its rounds start at once, as they did then.
    unindexed = typeof state.unindexed_messages === "number" ? state.unindexed_messages : 0;
    if (unindexed === 0) break;
    if (backlog.questions.length % 5 === 0)
      progress(`${size} messages: ${unindexed} messages not embedded yet`);
    await backlog.compile(questions[backlog.questions.length % questions.length] as string);
    await new Promise((resolve) => setTimeout(resolve, BACKLOG_PAUSE_MS));
  }
  const indexSeconds = (performance.now() - indexStarted) / 1000;
  progress(
    `${size} messages: ${unindexed === 0 ? "message vectors written" : `${unindexed} messages still not embedded at the deadline`} ${indexSeconds.toFixed(1)} s after extraction drained`,
  );

  const recall = await log.recall(PLANTED_MESSAGES);
  progress(recallLine(`${size} messages`, recall));
  await probes.profiled(`messages-${size}`, () =>
    log.rounds("messages", MESSAGE_QUERIES.slice(1), [
      ...PLANTED_MESSAGES.map((p) => p.question),
      ...backlog.questions,
    ]),
  );
  memory.afterMiB = workerdMiB(probes.server);
  memory.heapAfterMiB = await probes.heapMiB?.();
  return {
    kind: "messages",
    size,
    thread,
    events: events.length,
    ingestSeconds,
    eventsPerSecond: events.length / ingestSeconds,
    first: firstCompile(first),
    drainSeconds,
    drained: pending === 0,
    indexSeconds,
    indexed: unindexed === 0,
    ...(backlog.server.length ? { backlog: summarise(backlog) } : {}),
    ...summarise(log),
    recall,
    memory,
  };
}

/** Each thread's first compile after a restart of the server: a cold object (one evicted from memory). */
async function coldCompiles(call: Call, scenarios: Scenario[]): Promise<void> {
  for (const scenario of scenarios) {
    const question = (scenario.kind === "facts" ? PLANTED_FACTS : PLANTED_MESSAGES)[0]?.question as string;
    const started = performance.now();
    const output = (await call("POST", `/threads/${scenario.thread}/context`, {
      query: question,
      budget_tokens: BUDGET,
      trace_detail: "summary",
    })) as Compiled;
    scenario.cold = { compileMs: output.trace.compile_ms, roundTripMs: performance.now() - started };
  }
}

// ---------------------------------------------------------------------------------------------------
// The table

interface Target {
  text: string;
  met: boolean;
}

/** The issue's compile targets: ≤ 10 ms at 10k facts and 1k messages; ≤ 30 ms at 1M facts and 100k messages. */
function latencyTarget(s: Scenario): Target {
  const small = s.kind === "facts" ? s.size <= 10_000 : s.size <= 1_000;
  const limit = small ? 10 : 30;
  const where =
    s.kind === "facts"
      ? small
        ? "at 10k facts"
        : "at 1M facts"
      : small
        ? "at 1k messages"
        : "at 100k messages";
  return { text: `p95 ≤ ${limit} ms (target ${where})`, met: s.serverP95 <= limit };
}

const fmt = (n: number | undefined, digits = 1) =>
  n === undefined || Number.isNaN(n) ? "—" : n.toFixed(digits);
const signed = (n: number) => (Number.isNaN(n) ? "—" : `${n >= 0 ? "+" : "−"}${fmt(Math.abs(n))}`);
const yes = (met: boolean) => (met ? "met" : "MISSED");

const held = (s: Scenario) => (s.held ? `${s.held.fact_rows}/${s.held.compiled_objects}` : "—");

/** The run given with --compare, if any: its scenarios by kind and size. */
const compared: Scenario[] = options.compare
  ? (JSON.parse(readFileSync(options.compare, "utf8")) as { scenarios: Scenario[] }).scenarios
  : [];
const baseline = (s: Scenario) => compared.find((c) => c.kind === s.kind && c.size === s.size);

function printScenarios(title: string, scenarios: Scenario[]): void {
  if (scenarios.length === 0) return;
  console.log(`\n${title}`);
  console.log(
    `  ${"size".padStart(7)}  ${"ingest ev/s".padStart(11)}  ${"first ms".padStart(8)}  ${"first trip".padStart(10)}` +
      `  ${"p50 ms".padStart(6)}  ${"p95 ms".padStart(6)}  ${"trip p50".padStart(8)}  ${"trip p95".padStart(8)}` +
      `  recall old/mid/new  ${"held rows/objects".padStart(17)}  ${"workerd RSS MiB".padStart(15)}`,
  );
  for (const s of scenarios) {
    const recall = s.recall.map((r) => (r.found ? "1" : "0")).join("/");
    const rss =
      s.memory.beforeMiB === undefined
        ? "n/a"
        : `${fmt(s.memory.beforeMiB, 0)} → ${fmt(s.memory.afterMiB, 0)}`;
    console.log(
      `  ${String(s.size).padStart(7)}  ${fmt(s.eventsPerSecond, 0).padStart(11)}  ${fmt(s.first.compileMs).padStart(8)}` +
        `  ${fmt(s.first.roundTripMs, 0).padStart(10)}  ${fmt(s.serverP50).padStart(6)}  ${fmt(s.serverP95).padStart(6)}` +
        `  ${fmt(s.tripP50, 0).padStart(8)}  ${fmt(s.tripP95, 0).padStart(8)}  ${recall.padStart(18)}` +
        `  ${held(s).padStart(17)}  ${rss.padStart(15)}`,
    );
    const before = baseline(s);
    if (before) {
      console.log(
        `  ${"before".padStart(7)}  ${fmt(before.eventsPerSecond, 0).padStart(11)}  ${fmt(before.first.compileMs).padStart(8)}` +
          `  ${fmt(before.first.roundTripMs, 0).padStart(10)}  ${fmt(before.serverP50).padStart(6)}  ${fmt(before.serverP95).padStart(6)}` +
          `  ${fmt(before.tripP50, 0).padStart(8)}  ${fmt(before.tripP95, 0).padStart(8)}` +
          `  ${before.recall
            .map((r) => (r.found ? "1" : "0"))
            .join("/")
            .padStart(18)}  ${held(before).padStart(17)}`,
      );
    }
  }
  console.log("  targets (issue 15):");
  for (const s of scenarios) {
    const latency = latencyTarget(s);
    const recalled = s.recall.filter((r) => r.found).length;
    const missed = s.recall.filter((r) => !r.found).map((r) => `${r.position} ("${r.expect}", ${r.why})`);
    const lines = [
      `${latency.text}: ${fmt(s.serverP95)} ms, ${yes(latency.met)}`,
      `recall 1.00 at every position: ${(recalled / s.recall.length).toFixed(2)}, ${yes(missed.length === 0)}${missed.length ? ` — not in the context: ${missed.join(", ")}` : ""}`,
    ];
    if (s.cold) {
      lines.push(
        `first compile of a cold object ≤ 300 ms: ${fmt(s.cold.compileMs)} ms (round trip ${fmt(s.cold.roundTripMs, 0)} ms), ${yes(s.cold.compileMs <= 300)}`,
      );
    }
    console.log(`    ${String(s.size).padStart(7)} ${s.kind}: ${lines.join("; ")}`);
    if (s.kind === "messages") {
      console.log(
        `            extraction ${s.drained ? "drained" : "NOT drained by the deadline"} ${fmt(s.drainSeconds)} s after the bulk write` +
          ` (the first compile saw ${s.first.pending} messages pending and did not wait for them)`,
      );
      console.log(
        `            message vectors ${s.indexed ? "written" : "NOT all written by the deadline"} ${fmt(s.indexSeconds)} s after that` +
          (s.backlog
            ? `; the ${s.backlog.compiles} compiles meanwhile (${BACKLOG_PAUSE_MS / 1000} s apart, not in p50/p95): p50/p95 ${fmt(s.backlog.serverP50)}/${fmt(s.backlog.serverP95)} ms, round trip ${fmt(s.backlog.tripP50, 0)}/${fmt(s.backlog.tripP95, 0)} ms`
            : ""),
      );
    } else {
      console.log(
        `            fact candidates read by a compile: ${s.first.candidates ?? "?"} of the project's ${s.size}` +
          ` (first compile's facts read: ${s.first.factsRead ?? "?"})`,
      );
    }
  }
}

/** Where compile_ms went: p50/p95 of each part over the scenario's compiles, and its slowest compiles. */
function printSplits(scenarios: Scenario[]): void {
  const withSplits = scenarios.filter((s) => s.splits && s.splits.length > 0);
  if (withSplits.length === 0) return;
  console.log(
    "\nwhere compile_ms goes (trace.timings: p50/p95 ms of facts_ms, thread_reads_ms, passes_ms; slowest compiles)",
  );
  for (const s of withSplits) {
    const splits = s.splits as Split[];
    const part = (f: (x: Split) => number) => {
      const values = sorted(splits.map(f));
      return `${fmt(percentile(values, 50))}/${fmt(percentile(values, 95))}`;
    };
    const slowest = splits
      .map((x, i) => ({ ...x, i }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 3)
      .map((x) => `#${x.i} ${fmt(x.ms)} (f ${fmt(x.facts)} t ${fmt(x.thread)} p ${fmt(x.passes)} ${x.read})`);
    console.log(
      `  ${String(s.size).padStart(7)} ${s.kind.padEnd(8)} facts ${part((x) => x.facts)}  thread ${part((x) => x.thread)}  passes ${part((x) => x.passes)}  slowest: ${slowest.join("; ")}`,
    );
    const written = s.afterWrite;
    if (written && written.compiles > 0) {
      const facts = sorted(written.splits.map((x) => x.facts));
      const before = baseline(s)?.afterWrite;
      console.log(
        `          each right after a one-fact write (${written.compiles}): compile p50/p95 ${fmt(written.serverP50)}/${fmt(written.serverP95)} ms, facts ${fmt(percentile(facts, 50))}/${fmt(percentile(facts, 95))}` +
          (before ? `  (before: compile ${fmt(before.serverP50)}/${fmt(before.serverP95)})` : ""),
      );
    }
  }
}

function printMemory(scenarios: Scenario[], observable: { rss: boolean; heap: boolean }): void {
  console.log("\nmemory (target: a thread object's memory flat as facts grow)");
  if (observable.heap) {
    console.log(
      "  V8 heap of the dev server's Worker isolate after a full collection, read through its inspector. Locally\n" +
        "  the Worker and every Durable Object share that isolate; SQLite's page cache is outside it.",
    );
    for (const s of scenarios) {
      const m = s.memory;
      if (m.heapBeforeMiB === undefined || m.heapAfterMiB === undefined) continue;
      const second = m.secondThread;
      console.log(
        `    ${String(s.size).padStart(7)} ${s.kind.padEnd(8)} ${fmt(m.heapBeforeMiB, 0)} → ${fmt(m.heapAfterMiB, 0)} MiB over the scenario` +
          ` (${signed(m.heapAfterMiB - m.heapBeforeMiB)}: its thread${s.kind === "facts" ? " and project index objects" : " object"} and isolate-wide memos, less earlier objects evicted meanwhile)` +
          (second
            ? `; one more thread of the project asking the same ${second.questions} questions: ${signed(second.heapMiB)} MiB` +
              ` (it then held ${second.held ? `${second.held.fact_rows} fact rows, ${second.held.compiled_objects} compiled objects` : "?"})`
            : ""),
      );
    }
  } else {
    console.log(
      observable.rss
        ? "  the isolate's heap could not be read (no inspector); only the process RSS below"
        : "  not observable: the bench did not start this server (--url), so neither its inspector nor its processes are read",
    );
  }
  if (!observable.rss) return;
  console.log(
    "  the table's RSS column: the dev server's workerd processes, summed, before each scenario and after its\n" +
      "  compiles — the whole runtime (every object, local D1's SQLite cache, allocator slack), a coarse bound.",
  );
}

async function main(): Promise<void> {
  console.log(
    `bench:scale — facts ${FACT_SIZES.join(", ") || "none"}; messages ${MESSAGE_SIZES.join(", ") || "none"}; ` +
      `${ROUNDS} varied compiles after each recall check; filler facts ${Math.round(POLICY_SHARE * 100)}% shared policy, the rest the user's own; budget ${BUDGET} tokens; p50/p95 are over every compile after the bulk write (first included)`,
  );
  if (options.compare) console.log(`rows marked "before" are the same scenario in ${options.compare}`);
  const devServer = options.url ? undefined : new DevServer("scale");
  process.on("exit", () => devServer?.killNow());
  let url = options.url;
  if (!url) {
    progress("starting the dev server");
    try {
      url = await (devServer as DevServer).start(120_000, { inspector: true });
    } catch (error) {
      devServer?.printLogTail();
      throw error;
    }
  }
  const { call } = apiClient(url, options.tenant, options.key, 300_000);
  const nonce = Date.now().toString(36);
  const scenarios: Scenario[] = [];
  const inspector = devServer?.inspectorPort;
  const healthz = `${url}/healthz`;
  const heapNow = async () =>
    inspector ? await IsolateHeap.read(inspector, () => fetch(healthz)) : undefined;
  const heap = (await heapNow()) !== undefined;
  const profileDir = options["cpu-profile"];
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const probes: Probes = {
    server: devServer,
    ...(heap ? { heapMiB: async () => ((await heapNow()) ?? Number.NaN) / MiB } : {}),
    profiled: async <T>(name: string, stretch: () => Promise<T>): Promise<T> => {
      if (!profileDir || !inspector) return stretch();
      const profile = await IsolateProfile.start(inspector, () => fetch(healthz));
      try {
        return await stretch();
      } finally {
        const file = join(profileDir, `${name}.cpuprofile`);
        const taken = await profile?.stop(file);
        if (taken)
          progress(
            `CPU profile of the ${name} rounds: ${file} (${taken.samples} samples, ${taken.seconds.toFixed(1)} s)`,
          );
      }
    },
  };
  if (profileDir && !inspector)
    progress("--cpu-profile needs a server this bench starts (no --url): not profiled");
  try {
    for (const size of FACT_SIZES) scenarios.push(await factsAtScale(call, size, nonce, probes));
    for (const size of MESSAGE_SIZES) scenarios.push(await messagesAtScale(call, size, nonce, probes));
  } finally {
    await devServer?.stop();
  }
  if (devServer && scenarios.length > 0) {
    progress("restarting the dev server for cold compiles");
    const restarted = new DevServer("scale-restart");
    process.on("exit", () => restarted.killNow());
    try {
      const again = await restarted.start(120_000);
      await coldCompiles(apiClient(again, options.tenant, options.key, 300_000).call, scenarios);
    } finally {
      await restarted.stop();
    }
  }

  printScenarios(
    `facts at scale (HTTP via ${url}; ms are the server's trace.compile_ms, trips the client's round trip)`,
    scenarios.filter((s) => s.kind === "facts"),
  );
  printScenarios(
    "messages at scale (p50/p95 include the first compile, made before extraction drained)",
    scenarios.filter((s) => s.kind === "messages"),
  );
  printSplits(scenarios);
  printMemory(scenarios, { rss: devServer !== undefined, heap });
  if (options.json) {
    writeFileSync(
      options.json,
      `${JSON.stringify({ url, rounds: ROUNDS, budget: BUDGET, scenarios }, null, 2)}\n`,
    );
    console.log(`\nwrote ${options.json}`);
  }
}

await main();
