// `npm run bench:compile [-- --sizes 100,1000,10000] [--rounds N] [--cpu-only] [--url http://host:port]`
//
// Compile latency and budget utilisation for threads of 100, 1,000 and 10,000 objects, measured twice:
//  - "compiler passes (CPU)": the pure compileContext in Node on the inputs the Durable Object would
//    hand it, so the figure is CPU time only and uses a clock that always advances;
//  - "server (HTTP)": a real thread on `wrangler dev` (started here unless --url is given), filled through
//    the events API, then compiled over HTTP. p50/p95 are the server's trace.compile_ms: wall time inside
//    the Durable Object from the first storage read to the end of the passes (trace persistence and the
//    HTTP hops excluded). Under wrangler dev that clock runs through CPU work but ticks in whole
//    milliseconds and counts time spent waiting for a core, so on a busy machine it overstates CPU; on a
//    deployed Worker it would stand still during CPU work and show only the I/O waits. Each row also
//    prints trace.timings' split (p50 of: the D1 facts wait, none while the object's copy is current;
//    the thread's own SQLite reads; the passes), how the facts were read, the client's round trip (which adds trace persistence and HTTP), and ingest
//    events/s while filling. When the bench started the server itself, it then restarts it and prints
//    each thread's first compile: the cost of a cold object (one evicted from memory).
// With `--scale-facts N [--questions 100] [--baseline main] [--print-times] [--writes]` it measures only the pure
// compiler at a large project's scale instead (scripts/lib/scale-compile.ts): N fact versions, a new question every
// compile, each handed its own candidates through one shared CompileCache, as a thread object does (with
// `--writes`, each question right after a write of one fact, whose version joins the held newest ones); CPU
// time per compile, p50/p95, beside the same compiles by the compiler of `--baseline` (a git ref) in the same
// run, alternated compile by compile, and whether every envelope of the two was the same.
// Targets (issue 4): p95 ≤ 10 ms at 1,000 objects, and p95 at 10,000 ≤ 3× that (30 ms). Figures only; no assertions.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { CompileCache } from "../src/compiler/cache/compile-cache";
import { TextMemos } from "../src/compiler/cache/memos";
import { compileContext } from "../src/compiler/compile";
import type { CompileInput } from "../src/compiler/compile-input";
import type { Envelope } from "../src/compiler/passes/emit";
import { apiClient, percentile } from "./lib/bench-http";
import {
  BUDGET,
  compilerInput,
  factEvents,
  layerEvents,
  messageText,
  mixFor,
  OWNERS,
  QUERIES,
  random,
} from "./lib/compile-fixture";
import { DevServer } from "./lib/dev-server.mjs";
import { compilerAt, scaleCompile } from "./lib/scale-compile";

const { values: options } = parseArgs({
  options: {
    sizes: { type: "string", default: "100,1000,10000" },
    rounds: { type: "string", default: "60" },
    "cpu-only": { type: "boolean", default: false },
    url: { type: "string" },
    "scale-facts": { type: "string" },
    questions: { type: "string", default: "100" },
    baseline: { type: "string", default: "main" },
    "print-times": { type: "boolean", default: false },
    writes: { type: "boolean", default: false },
    tenant: { type: "string", default: "dev" },
    key: { type: "string", default: "local-dev-key" },
  },
});
const SIZES = options.sizes.split(",").map(Number).filter(Boolean);
const ROUNDS = Math.max(5, Number(options.rounds) || 60);

interface Row {
  size: number;
  p50: number;
  p95: number;
  utilisation: number;
  extra?: string;
}

/** What an object that just started loads from storage: equal records, new objects. */
function reloaded(input: CompileInput): CompileInput {
  return {
    ...input,
    facts: structuredClone(input.facts),
    working: structuredClone(input.working),
    environmentFacts: structuredClone(input.environmentFacts),
    items: structuredClone(input.items),
    messages: structuredClone(input.messages),
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/**
 * What a warm object hands the compiler: copies of its held lists, whose records are frozen and stay
 * the same objects until a write replaces them (src/facts/fact-cache.ts, src/thread/layer-store.ts,
 * extraction-store.ts, episode-index.ts).
 */
function held(input: CompileInput): CompileInput {
  return {
    ...input,
    facts: input.facts.slice(),
    working: input.working.slice(),
    environmentFacts: input.environmentFacts.slice(),
    items: input.items.slice(),
    messages: input.messages.slice(),
  };
}

/** CPU time, not wall time: the bench machine may be shared, and waiting for a core is not compiling. */
function timed(compile: () => Envelope): { ms: number; output: Envelope } {
  const started = process.cpuUsage();
  const output = compile();
  const used = process.cpuUsage(started);
  return { ms: (used.user + used.system) / 1000, output };
}

const COLD_ROUNDS = 5;
/** Server rounds of "a new user turn, then compile" after the warm rounds. */
const TURN_ROUNDS = 20;

/**
 * A thread's Durable Object stays warm between queries and keeps its CompileCache, so the p50/p95 are
 * warm compiles: each on the object's held records, with the query changing. The first compile after the
 * object starts (an empty cache, records just loaded from storage) is reported separately as "cold".
 */
async function benchCompiler(): Promise<Row[]> {
  const rows: Row[] = [];
  // Text-keyed memos, shared by every cache as the thread objects of one isolate share theirs
  // (src/thread/compilation.ts): a cold object starts with an empty cache, not an empty isolate.
  const textMemos = new TextMemos();
  for (const size of SIZES) {
    const { input, forQuery } = await compilerInput(size);
    // Each query retrieves its own episodes, with their stated claims, as the object's retrieval does.
    const queryAt = (round: number) => forQuery(QUERIES[round % QUERIES.length] as string);
    // Warm-up: JIT and the tokenizer's caches.
    for (const list of [input.facts, input.working, input.environmentFacts, input.items, input.messages]) {
      list.forEach(deepFreeze);
    }
    for (let round = 0; round < 5; round++) {
      compileContext({ ...reloaded(input), ...queryAt(round), cache: new CompileCache(textMemos) });
    }
    const cold: number[] = [];
    for (let round = 0; round < COLD_ROUNDS; round++) {
      const fresh = { ...reloaded(input), ...queryAt(round) };
      cold.push(timed(() => compileContext({ ...fresh, cache: new CompileCache(textMemos) })).ms);
    }
    const cache = new CompileCache(textMemos);
    compileContext({ ...held(input), ...queryAt(ROUNDS), cache });
    const times: number[] = [];
    const utilisation: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const fresh = { ...held(input), ...queryAt(round) };
      const { ms, output } = timed(() => compileContext({ ...fresh, cache }));
      times.push(ms);
      utilisation.push(output.tokens / output.budget_tokens);
    }
    times.sort((a, b) => a - b);
    cold.sort((a, b) => a - b);
    rows.push({
      size,
      p50: percentile(times, 50),
      p95: percentile(times, 95),
      utilisation: utilisation.reduce((s, u) => s + u, 0) / utilisation.length,
      extra: `cold (first compile, empty cache): p50 ${percentile(cold, 50).toFixed(2)} ms, max ${(cold.at(-1) ?? 0).toFixed(2)} ms`,
    });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------
// Server, over HTTP

interface Timings {
  facts_ms?: number;
  thread_reads_ms?: number;
  passes_ms?: number;
  facts_read?: string;
  waited_ms?: number;
}

/** trace.timings over a series of compiles: each phase's p50, and how often facts were read each way. */
class PhaseLog {
  private readonly facts: number[] = [];
  private readonly threadReads: number[] = [];
  private readonly passes: number[] = [];
  private readonly reads = new Map<string, number>();

  record(timings: Timings | undefined): void {
    this.facts.push(timings?.facts_ms ?? Number.NaN);
    this.threadReads.push(timings?.thread_reads_ms ?? Number.NaN);
    this.passes.push(timings?.passes_ms ?? Number.NaN);
    const read = timings?.facts_read ?? "unknown";
    this.reads.set(read, (this.reads.get(read) ?? 0) + 1);
  }

  summary(): string {
    const p50 = (list: number[]) =>
      percentile(
        [...list].sort((a, b) => a - b),
        50,
      ).toFixed(1);
    const reads = [...this.reads].map(([read, n]) => `${read} ×${n}`).join(", ");
    return `D1 facts ${p50(this.facts)} ms (facts read: ${reads}), thread SQLite ${p50(this.threadReads)} ms, passes ${p50(this.passes)} ms`;
  }
}

type ServerRow = Row & { eventsPerSecond: number; thread: string };

/** Compiles timed right after the bulk ingest, while extraction's backlog is still draining. */
const BACKLOG_ROUNDS = 20;

/**
 * The first compile right after a bulk ingest and the next BACKLOG_ROUNDS, as an agent that imports a
 * history and asks at once sees them (server trace.compile_ms). Works against older servers too, whose
 * trace has only `extraction.pending_messages`.
 */
async function compilesDuringBacklog(
  call: (method: string, path: string, body?: unknown) => Promise<unknown>,
  thread: string,
): Promise<{
  first: number;
  next: number[];
  firstTrip: number;
  nextTrips: number[];
  pendingFirst: number;
  pendingLast: number;
}> {
  type Compiled = {
    trace: { compile_ms: number; extraction_pending?: number; extraction?: { pending_messages: number } };
  };
  const pendingOf = (output: Compiled) =>
    output.trace.extraction_pending ?? output.trace.extraction?.pending_messages ?? 0;
  const trips: number[] = [];
  const compile = async (round: number) => {
    const started = performance.now();
    const output = (await call("POST", `/threads/${thread}/context`, {
      query: QUERIES[round % QUERIES.length],
      budget_tokens: BUDGET,
      trace_detail: "summary",
    })) as Compiled;
    trips.push(performance.now() - started);
    return output;
  };
  const first = await compile(0);
  const next: number[] = [];
  let last = first;
  for (let round = 1; round <= BACKLOG_ROUNDS; round++) {
    last = await compile(round);
    next.push(last.trace.compile_ms);
  }
  next.sort((a, b) => a - b);
  const [firstTrip = 0, ...nextTrips] = trips;
  nextTrips.sort((a, b) => a - b);
  return {
    first: first.trace.compile_ms,
    next,
    firstTrip,
    nextTrips,
    pendingFirst: pendingOf(first),
    pendingLast: pendingOf(last),
  };
}

async function benchServer(url: string): Promise<ServerRow[]> {
  const { base, headers, call } = apiClient(url, options.tenant, options.key);

  const rows: ServerRow[] = [];
  const nonce = Date.now().toString(36);
  for (const size of SIZES) {
    const chance = random(size);
    const pick = <T>(list: T[]) => list[Math.floor(chance() * list.length)] as T;
    // Over HTTP, items are whatever extraction finds in the messages, so messages take the items' share.
    const mix = mixFor(size);
    const thread = `bench-${size}-${nonce}`;
    await call("PUT", `/threads/${thread}`, {
      project_id: `bench-${size}-${nonce}`,
      identity: { user_id: "u1", user_name: "Ada", authority: "employee" },
      environment: { region: "eu-west-1", tier: "enterprise" },
    });
    const start = Date.parse("2026-01-01T00:00:00Z");
    const messageCount = mix.messages + mix.items;
    const events = [
      ...factEvents(mix.facts, pick, chance),
      ...layerEvents(mix.working, "working", pick),
      ...layerEvents(mix.environment, "environment", pick),
      ...Array.from({ length: messageCount }, (_, i) => ({
        type: "message",
        id: `m${i}`,
        role: "user",
        speaker: pick(OWNERS),
        content: messageText(i, pick),
      })),
    ]
      // Interleaved as a conversation would be, each with its own time.
      .sort(() => chance() - 0.5)
      .map((event, i) => ({ ...event, ts: new Date(start + i * 1000).toISOString() }));

    console.error(`  … ${size} objects: ingesting ${events.length} events`);
    const ingestStarted = performance.now();
    for (let i = 0; i < events.length; i += 500) {
      await call("POST", `/threads/${thread}/events`, { events: events.slice(i, i + 500) });
    }
    const eventsPerSecond = events.length / ((performance.now() - ingestStarted) / 1000);

    // Right after the bulk ingest: the first compile and the next few, which never wait for the
    // backlog the ingest left (trace.extraction_pending says how much of it there still was).
    const backlog = await compilesDuringBacklog(call, thread);

    // Extraction drains in the background; the compiles below are timed once nothing is pending, so
    // they measure compiling rather than extracting.
    const extractDeadline = Date.now() + 600_000;
    let state = await call("GET", `/threads/${thread}/state`);
    while (state.watermark.pending_messages > 0 && Date.now() < extractDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = await call("GET", `/threads/${thread}/state`);
    }

    console.error(
      `  … ${size} objects: ${state.watermark.pending_messages} messages pending extraction; compiling`,
    );
    const server: number[] = [];
    const phases = new PhaseLog();
    const roundTrip: number[] = [];
    const utilisation: number[] = [];
    let lastTraceId = "";
    for (let round = -3; round < ROUNDS; round++) {
      const query = QUERIES[(round + 3) % QUERIES.length] as string;
      const started = performance.now();
      const output = await call("POST", `/threads/${thread}/context`, { query, budget_tokens: BUDGET });
      const elapsed = performance.now() - started;
      if (round < 0) continue;
      lastTraceId = output.trace_id;
      server.push(output.trace.compile_ms);
      phases.record(output.trace.timings);
      roundTrip.push(elapsed);
      utilisation.push(output.tokens / output.budget_tokens);
    }
    // An agent's real loop: a new turn arrives, then the next compile. The object's held copies that the
    // turn touches (transcript tail, episode index, vectors, items) are refreshed by it, so this shows
    // what a compile costs right after a write; catch-up extraction of the turn is not in compile_ms.
    const afterTurn: number[] = [];
    const turnPhases = new PhaseLog();
    for (let round = 0; round < TURN_ROUNDS; round++) {
      await call("POST", `/threads/${thread}/events`, {
        events: [
          {
            type: "message",
            id: `turn-${round}`,
            role: "user",
            speaker: pick(OWNERS),
            content: messageText(round, pick),
            ts: new Date(start + (events.length + round) * 1000).toISOString(),
          },
        ],
      });
      const query = QUERIES[round % QUERIES.length] as string;
      const output = await call("POST", `/threads/${thread}/context`, { query, budget_tokens: BUDGET });
      afterTurn.push(output.trace.compile_ms);
      turnPhases.record(output.trace.timings);
    }
    afterTurn.sort((a, b) => a - b);
    // The trace of the last compile must have been stored, however large the thread.
    const stored = await fetch(`${base}/traces/${lastTraceId}`, { headers });
    const storedBytes = stored.ok ? (await stored.text()).length : 0;
    for (const list of [server, roundTrip]) list.sort((a, b) => a - b);
    rows.push({
      size,
      thread,
      p50: percentile(server, 50),
      p95: percentile(server, 95),
      utilisation: utilisation.reduce((s, u) => s + u, 0) / utilisation.length,
      eventsPerSecond,
      extra:
        `split p50: ${phases.summary()}; ` +
        `round trip p50 ${percentile(roundTrip, 50).toFixed(1)} ms, p95 ${percentile(roundTrip, 95).toFixed(1)} ms; ` +
        `${state.facts.length} current facts, ${state.items.length} active items, ` +
        `${state.watermark.pending_messages} messages still pending extraction; ` +
        `right after the bulk ingest (backlog of ${backlog.pendingFirst} messages pending): first compile ${backlog.first.toFixed(1)} ms (round trip ${backlog.firstTrip.toFixed(0)} ms), the next ${BACKLOG_ROUNDS} p50 ${percentile(backlog.next, 50).toFixed(1)} ms, p95 ${percentile(backlog.next, 95).toFixed(1)} ms (round trip p95 ${percentile(backlog.nextTrips, 95).toFixed(0)} ms; ${backlog.pendingLast} still pending at the last); ` +
        `right after a new turn (${TURN_ROUNDS} turns): p50 ${percentile(afterTurn, 50).toFixed(1)} ms, p95 ${percentile(afterTurn, 95).toFixed(1)} ms ` +
        `(split p50: ${turnPhases.summary()}); ` +
        `last trace ${stored.ok ? `stored, served as ${(storedBytes / 1024).toFixed(0)} KiB of JSON` : `NOT stored (${stored.status})`}`,
    });
  }
  return rows;
}

/**
 * The first compile of each thread after the dev server restarts: nothing of the thread is in memory,
 * so its object reads its SQLite copies, the project's facts come from D1 in full, and every compiler
 * memo starts empty; what a thread pays after its object was evicted. Threads go smallest first, so the
 * first one also pays the isolate's own start (code not yet compiled by V8); later ones find it warm,
 * as an evicted object usually would.
 */
async function benchRestart(url: string, rows: ServerRow[]): Promise<string[]> {
  const lines: string[] = [];
  for (const [i, row] of rows.entries()) {
    const response = await fetch(`${url}/v1/tenants/${options.tenant}/threads/${row.thread}/context`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${options.key}` },
      body: JSON.stringify({ query: QUERIES[2], budget_tokens: BUDGET, trace_detail: "summary" }),
      signal: AbortSignal.timeout(120_000),
    });
    const output = await response.json();
    if (!response.ok)
      throw new Error(`cold compile of ${row.thread}: ${response.status} ${JSON.stringify(output)}`);
    const t: Timings = output.trace.timings ?? {};
    lines.push(
      `${String(row.size).padStart(7)}  ${String(output.trace.compile_ms).padStart(7)} ms  ` +
        `(thread SQLite ${t.thread_reads_ms} ms, D1 facts ${t.facts_ms} ms read ${t.facts_read}, passes ${t.passes_ms} ms; ` +
        `before it, ${t.waited_ms ?? 0} ms waiting for the write path's pass, which read the facts and primed the fact index)` +
        (i === 0 ? "  — also the isolate's start" : ""),
    );
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------------

function print(title: string, rows: (Row & { eventsPerSecond?: number })[]): void {
  console.log(`\n${title}`);
  console.log("  objects   p50 ms   p95 ms   budget used   ingest ev/s");
  for (const row of rows) {
    console.log(
      `  ${String(row.size).padStart(7)}  ${row.p50.toFixed(2).padStart(7)}  ${row.p95.toFixed(2).padStart(7)}` +
        `   ${`${(row.utilisation * 100).toFixed(1)}%`.padStart(11)}   ${
          row.eventsPerSecond === undefined ? "" : row.eventsPerSecond.toFixed(0).padStart(11)
        }`,
    );
    if (row.extra) console.log(`           ${row.extra}`);
  }
  const at1k = rows.find((r) => r.size === 1000);
  const at10k = rows.find((r) => r.size === 10000);
  if (at1k) console.log(`  target p95 ≤ 10 ms at 1,000: ${at1k.p95 <= 10 ? "met" : "NOT met"}`);
  if (at10k) {
    console.log(`  target p95 ≤ 30 ms (3 × 10 ms) at 10,000: ${at10k.p95 <= 30 ? "met" : "NOT met"}`);
  }
  if (at1k && at10k) {
    console.log(`  p95(10,000) / p95(1,000): ${(at10k.p95 / Math.max(at1k.p95, 1e-9)).toFixed(2)}×`);
  }
}

/** Untimed compiles before the timed ones: the JIT and the tokenizer's caches. */
const SCALE_WARMUP = 10;

/**
 * CPU per compile at a large project's scale, this tree's compiler beside the baseline's: each question
 * compiled by both, in alternating order, each with its own CompileCache kept across questions.
 */
async function benchScale(size: number): Promise<void> {
  const count = Math.max(5, Number(options.questions) || 100);
  const { input, forQuestion, questions } = await scaleCompile(size, count + SCALE_WARMUP, options.writes);
  const baseline = await compilerAt(options.baseline);
  const mine = {
    compileContext: (i: CompileInput) => compileContext(i),
    cache: new CompileCache(new TextMemos()),
  };
  const theirs = { compileContext: baseline.compileContext, cache: baseline.newCache() };
  const times = { mine: [] as number[], theirs: [] as number[] };
  let candidates = 0;
  let differing = 0;
  // Each question's input is made just before its compiles, as a thread object reads it: holding every
  // question's rows at once would make each garbage collection mark tens of megabytes no server holds.
  for (const [round, question] of questions.entries()) {
    const asked = forQuestion(question, round);
    candidates += asked.facts.length;
    const run = (side: typeof mine | typeof theirs) => {
      const started = process.cpuUsage();
      const output = side.compileContext({ ...input, ...asked, cache: side.cache as CompileCache });
      const used = process.cpuUsage(started);
      return { ms: (used.user + used.system) / 1000, output };
    };
    const first = round % 2 === 0 ? run(mine) : run(theirs);
    const second = round % 2 === 0 ? run(theirs) : run(mine);
    const [a, b] = round % 2 === 0 ? [first, second] : [second, first];
    if (JSON.stringify(a.output) !== JSON.stringify(b.output)) differing++;
    if (round < SCALE_WARMUP) continue;
    times.mine.push(a.ms);
    times.theirs.push(b.ms);
  }
  const line = (name: string, list: number[]) => {
    const s = [...list].sort((x, y) => x - y);
    return `  ${name.padEnd(24)} p50 ${percentile(s, 50).toFixed(2).padStart(6)} ms   p95 ${percentile(s, 95).toFixed(2).padStart(6)} ms   mean ${(s.reduce((t, x) => t + x, 0) / s.length).toFixed(2).padStart(6)} ms`;
  };
  console.log(
    `\ncompiler passes at ${size} fact versions (CPU time of compileContext, ${count} new questions after ${SCALE_WARMUP} untimed${options.writes ? ", each right after a write of one fact" : ""}, one CompileCache each; ${Math.round(candidates / questions.length)} fact candidates a compile)`,
  );
  console.log(line("this tree", times.mine));
  console.log(line(`baseline ${baseline.commit} (${options.baseline})`, times.theirs));
  if (options["print-times"])
    console.log(
      `  ${times.mine.map((t) => t.toFixed(1)).join(" ")}\n  ${times.theirs.map((t) => t.toFixed(1)).join(" ")}`,
    );
  console.log(`  envelopes differing from the baseline's: ${differing} of ${questions.length}`);
}

async function main(): Promise<void> {
  if (options["scale-facts"]) {
    for (const size of options["scale-facts"].split(",").map(Number).filter(Boolean)) await benchScale(size);
    return;
  }
  console.log(`bench:compile — sizes ${SIZES.join(", ")}, ${ROUNDS} compiles each, budget ${BUDGET} tokens`);
  print(
    "compiler passes (CPU time of compileContext in Node, process.cpuUsage; warm CompileCache)",
    await benchCompiler(),
  );
  if (options["cpu-only"]) return;
  const devServer = options.url ? undefined : new DevServer("compile");
  const url = options.url ?? (await devServer?.start(120_000)) ?? "";
  let rows: ServerRow[] = [];
  try {
    rows = await benchServer(url);
    print(
      `server (HTTP via ${url}; p50/p95 are the server's trace.compile_ms: storage reads + passes, wall time in whole ms)`,
      rows,
    );
  } finally {
    await devServer?.stop();
  }
  // Only a server this bench started can be restarted; its local state persists across the restart.
  if (!devServer) return;
  const restarted = new DevServer("compile-restart");
  const again = await restarted.start(120_000);
  try {
    console.log("\nserver, first compile of each thread after a restart (cold object; trace.compile_ms)");
    for (const line of await benchRestart(again, rows)) console.log(`  ${line}`);
  } finally {
    await restarted.stop();
  }
}

await main();
