// `npm run bench:paired -- --a URL --b URL [--facts 10000 | --messages 1000] [--rounds 60] [--write-rounds 10]`
//
// Two servers compared question by question, for a change too small for whole runs of bench:scale to
// show: this machine's speed drifts within an hour by more than such a change (the same code's p50 at
// 10,000 facts 11–19 ms), and two runs one after the other meet different hours. Here both servers run
// at once (start the other from a worktree of the code to compare, on other ports: `npm run dev --
// --port 8798 --inspector-port 9331`), each is given the same project (bench:scale's filler:
// `--facts` versions, or one thread of `--messages` turns, extraction drained), and every new question
// goes to both, the order alternating, so both meet the same moment of the machine. With `--facts`,
// `--write-rounds` more questions each come right after a one-fact write to both. It prints each
// side's server-side `trace.compile_ms` (mean, p50, p95, max) and the paired difference: its median
// and in how many questions each side was the faster. Both sides are slower than a server alone, as
// they share the machine; the comparison is what counts.
import { parseArgs } from "node:util";
import { apiClient, percentile } from "./lib/bench-http";
import {
  FACT_QUERIES,
  fillerFact,
  fillerMessage,
  freshQuestions,
  MESSAGE_QUERIES,
  picker,
} from "./lib/scale-fixture";

const { values: options } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    facts: { type: "string" },
    messages: { type: "string" },
    rounds: { type: "string", default: "60" },
    "write-rounds": { type: "string", default: "10" },
    tenant: { type: "string", default: "dev" },
    key: { type: "string", default: "local-dev-key" },
  },
});
if (!options.a || !options.b) {
  console.error(
    "usage: npm run bench:paired -- --a URL --b URL [--facts 10000 | --messages 1000] [--rounds 60] [--write-rounds 10]",
  );
  process.exit(2);
}
const MESSAGES = Number(options.messages ?? 0);
const FACTS = MESSAGES > 0 ? 0 : Number(options.facts ?? 10_000);
const ROUNDS = Math.max(1, Number(options.rounds) || 60);
const WRITE_ROUNDS = FACTS > 0 ? Math.max(0, Number(options["write-rounds"]) || 0) : 0;
const BATCH = 500;
const BUDGET = 8000;

interface Side {
  url: string;
  call: ReturnType<typeof apiClient>["call"];
  compileMs: number[];
}

const sides: Side[] = [options.a, options.b].map((url) => ({
  url,
  call: apiClient(url, options.tenant, options.key).call,
  compileMs: [],
}));
const nonce = Math.random().toString(36).slice(2, 8);
const thread = `paired-${nonce}`;
const size = FACTS || MESSAGES;
const start = Date.now() - (size + WRITE_ROUNDS + 60) * 1000;
const at = (i: number) => new Date(start + i * 1000).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same project on one side: the filler written in batches, one compile, extraction drained. */
async function fill(side: Side): Promise<void> {
  await side.call("PUT", `/threads/${thread}`, {
    project_id: `paired-${nonce}`,
    identity: { user_id: "u1", user_name: "Ada", authority: "employee" },
  });
  const events = FACTS
    ? (() => {
        const { chance, pick } = picker(size);
        return Array.from({ length: size }, (_, i) => fillerFact(i, at(i), pick, chance));
      })()
    : (() => {
        const { pick } = picker(size + 7);
        return Array.from({ length: size }, (_, i) => fillerMessage(i, at(i), pick));
      })();
  for (let i = 0; i < events.length; i += BATCH) {
    await side.call("POST", `/threads/${thread}/events`, { events: events.slice(i, i + BATCH) });
  }
  await side.call("POST", `/threads/${thread}/context`, {
    query: (FACTS ? FACT_QUERIES : MESSAGE_QUERIES)[0],
    budget_tokens: BUDGET,
  });
  for (;;) {
    const state = (await side.call("GET", `/threads/${thread}/state`)) as {
      watermark: { pending_messages: number };
    };
    if (state.watermark.pending_messages === 0) return;
    await sleep(500);
  }
}

async function ask(side: Side, query: string): Promise<void> {
  const output = (await side.call("POST", `/threads/${thread}/context`, {
    query,
    budget_tokens: BUDGET,
  })) as {
    trace: { compile_ms: number };
  };
  side.compileMs.push(output.trace.compile_ms);
}

/** Both sides, the order alternating with `round`. */
const bothSides = (round: number) => (round % 2 === 0 ? sides : [...sides].reverse());

async function main(): Promise<void> {
  for (const side of sides) await fill(side);
  // The background work after a bulk write (vectors, the replica's catch-up) settles on both.
  await sleep(2_000);
  const questions = freshQuestions(FACTS ? "facts" : "messages", ROUNDS + WRITE_ROUNDS, []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of bothSides(round)) await ask(side, questions[round] as string);
  }
  const draws = new Map(sides.map((side) => [side, picker(size + 1)]));
  for (let w = 0; w < WRITE_ROUNDS; w++) {
    for (const side of bothSides(w)) {
      const draw = draws.get(side) as ReturnType<typeof picker>;
      const event = fillerFact(size + w, at(size + w), draw.pick, draw.chance);
      await side.call("POST", `/threads/${thread}/events`, { events: [event] });
      await ask(side, questions[ROUNDS + w] as string);
    }
  }
  const what = FACTS ? `${FACTS} facts` : `a thread of ${MESSAGES} messages`;
  console.log(
    `bench:paired — ${what}; ${ROUNDS} new questions${WRITE_ROUNDS ? ` and ${WRITE_ROUNDS} more each right after a one-fact write` : ""}, each asked of both servers in alternating order; server-side trace.compile_ms`,
  );
  for (const [name, side] of [
    ["a", sides[0]],
    ["b", sides[1]],
  ] as const) {
    const sorted = [...(side as Side).compileMs].sort((x, y) => x - y);
    const mean = sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length;
    console.log(
      `  ${name} ${(side as Side).url.padEnd(24)} mean ${mean.toFixed(2).padStart(6)}   p50 ${percentile(sorted, 50)}   p95 ${percentile(sorted, 95)}   max ${sorted.at(-1)}`,
    );
  }
  const [a, b] = sides as [Side, Side];
  const differences = a.compileMs.map((ms, i) => ms - (b.compileMs[i] as number));
  const sorted = [...differences].sort((x, y) => x - y);
  console.log(
    `  a − b per question: median ${percentile(sorted, 50)} ms; a faster in ${differences.filter((d) => d < 0).length}, b faster in ${differences.filter((d) => d > 0).length}, equal in ${differences.filter((d) => d === 0).length} of ${differences.length}`,
  );
}

await main();
