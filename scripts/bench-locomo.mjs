// `npm run bench:locomo -- <conversation.json> [--budgets 1000,2000] [--url http://host:port] [--tenant dev]
//   [--key local-dev-key] [--concurrency 4] [--json]`
//
// Ingests one LoCoMo conversation into a fresh thread through Tenure's public HTTP API (each session's
// turns as messages, timed from the session's date), compiles a context for every non-adversarial
// question at each budget, and scores evidence recall: the share of a question's evidence turns whose
// text appears in the compiled context, averaged over questions. Two baselines are computed locally
// over the same turns at the same budgets: BM25 ranking of turns and recency (latest turns that fit).
// Without --url the local dev server (scripts/dev.mjs) is started on a free port and stopped afterwards.
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { loadBeamChat } from "./lib/beam-chat.mjs";
import { DevServer } from "./lib/dev-server.mjs";

const ADVERSARIAL = 5;
const CATEGORY_NAMES = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };
const MAX_BATCH = 500;
const HEALTH_TIMEOUT_MS = 90_000;
const REQUEST_TIMEOUT_MS = 120_000;
const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

const USAGE = `usage: npm run bench:locomo -- <conversation.json | beam chat folder> [options]
  --budgets N[,N]    budget_tokens per context request (default 1000,2000)
  --url URL          use a running server (default: start scripts/dev.mjs on a free port)
  --tenant NAME      tenant (default dev)
  --key KEY          tenant key (default local-dev-key)
  --concurrency N    context requests at once (default 4)
  --json             print the figures as JSON instead of tables`;

function fail(message) {
  console.error(`bench-locomo: ${message}`);
  console.error(USAGE);
  process.exit(2);
}

function positiveInt(text, name) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a positive integer, got '${text}'`);
  return n;
}

function readOptions(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        budgets: { type: "string", default: "1000,2000" },
        url: { type: "string" },
        tenant: { type: "string", default: "dev" },
        key: { type: "string", default: "local-dev-key" },
        concurrency: { type: "string", default: "4" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    fail(error.message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (positionals.length !== 1) fail("expected exactly one conversation file");
  const budgets = values.budgets
    .split(",")
    .map((b) => b.trim())
    .filter(Boolean)
    .map((b) => positiveInt(b, "budgets"));
  if (!budgets.length) fail("--budgets needs at least one budget");
  return {
    file: positionals[0],
    budgets,
    url: values.url ? values.url.replace(/\/+$/, "") : undefined,
    tenant: values.tenant,
    key: values.key,
    concurrency: positiveInt(values.concurrency, "concurrency"),
    json: values.json,
  };
}

// ---------------------------------------------------------------------------------------------------
// The conversation

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC; the data set gives no zone). */
function parseSessionDate(text) {
  const match = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(
    text ?? "",
  );
  if (!match) return undefined;
  const [, h, min, half, day, monthName, year] = match;
  const month = MONTHS.findIndex((m) => m.startsWith(monthName.toLowerCase().slice(0, 3)));
  if (month < 0) return undefined;
  const hour = (Number(h) % 12) + (half.toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(year), month, Number(day), hour, Number(min));
}

function loadConversation(file) {
  let data;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    fail(`cannot read ${file}: ${error.message}`);
  }
  const conversation = data.conversation ?? data;
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m) => m && Array.isArray(conversation[m[0]]) && conversation[m[0]].length)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const turns = [];
  for (const n of sessions) {
    const start = parseSessionDate(conversation[`session_${n}_date_time`]);
    if (start === undefined)
      fail(`session_${n}_date_time is not a date: '${conversation[`session_${n}_date_time`]}'`);
    conversation[`session_${n}`].forEach((turn, index) => {
      if (typeof turn?.text !== "string" || !turn.dia_id) return;
      const caption = turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : "";
      // Turns of a session are seconds apart, so they keep their order and stay one session.
      const ts = new Date(start + index * 1000).toISOString();
      const content = `${turn.text}${caption}`.trim() || "(no text)";
      turns.push({
        dia: String(turn.dia_id),
        speaker: String(turn.speaker ?? "unknown"),
        text: turn.text,
        content,
        ts,
      });
    });
  }
  const questions = (data.qa ?? [])
    .filter((q) => q.category !== ADVERSARIAL && typeof q.question === "string")
    .map((q) => ({
      question: q.question,
      category: q.category,
      // Some evidence lists run two ids together ("D8:6; D9:17").
      evidence: [...new Set((q.evidence ?? []).flatMap((e) => String(e).split(/[\s;,]+/)).filter(Boolean))],
    }));
  return { sample: data.sample_id ?? file, turns, questions };
}

const normalise = (text) => text.replace(/\s+/g, " ").trim();

/** Share of the question's evidence turns whose text appears in the context; null when none is known. */
function evidenceRecall(question, byDia, context) {
  const known = question.evidence.map((id) => byDia.get(id)).filter(Boolean);
  if (!known.length) return null;
  const haystack = normalise(context);
  return known.filter((turn) => haystack.includes(normalise(turn.text))).length / known.length;
}

// ---------------------------------------------------------------------------------------------------
// Baselines, over the turns rendered the way the service renders a message line

const lineOf = (turn) =>
  `[${turn.ts}] ${turn.role === undefined ? `${turn.speaker} (user)` : turn.role}: ${turn.content}`;

/** Batches of at most MAX_BATCH events and about 4 MiB, under the service's body limit. */
function* batches(events) {
  let batch = [];
  let bytes = 0;
  for (const event of events) {
    const size = event.content.length * 3 + 200;
    if (batch.length && (batch.length === MAX_BATCH || bytes + size > 4 * 1024 * 1024)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(event);
    bytes += size;
  }
  if (batch.length) yield batch;
}
const words = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

function bm25Index(turns) {
  const docs = turns.map((t) => words(t.content));
  const df = new Map();
  for (const doc of docs) for (const w of new Set(doc)) df.set(w, (df.get(w) ?? 0) + 1);
  const avg = docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, docs.length);
  return (query) => {
    const terms = [...new Set(words(query))];
    return docs.map((doc) => {
      const tf = new Map();
      for (const w of doc) tf.set(w, (tf.get(w) ?? 0) + 1);
      let score = 0;
      for (const term of terms) {
        const f = tf.get(term) ?? 0;
        if (!f) continue;
        const n = df.get(term) ?? 0;
        const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
        score += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * doc.length) / avg));
      }
      return score;
    });
  };
}

/** Greedy fill in the given order: a line costs its tokens plus its newline. */
function fill(order, lines, budget) {
  const kept = [];
  let spent = 0;
  for (const i of order) {
    const cost = lines[i].tokens + 1;
    if (spent + cost > budget) continue;
    spent += cost;
    kept.push(lines[i].text);
  }
  return kept.join("\n");
}

// ---------------------------------------------------------------------------------------------------
// HTTP

function makeClient(baseUrl, tenant, key) {
  const prefix = `${baseUrl}/v1/tenants/${encodeURIComponent(tenant)}`;
  return async (method, path, body) => {
    const response = await fetch(`${prefix}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : {};
  };
}

const server = new DevServer("locomo");

async function mapLimit(items, limit, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

// ---------------------------------------------------------------------------------------------------
// Run

async function run(options, url) {
  const beam = statSync(options.file, { throwIfNoEntry: false })?.isDirectory() ?? false;
  const { sample, turns, questions } = beam ? loadBeamChat(options.file) : loadConversation(options.file);
  if (!turns.length) fail("the conversation has no turns");
  const call = makeClient(url, options.tenant, options.key);
  const thread = `locomo-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
  await call("PUT", `/threads/${thread}`, {
    project_id: `p-${thread}`,
    identity: { user_id: "locomo-reader" },
  });
  const events = turns.map((t) => ({
    type: "message",
    id: t.dia.replace(/[^A-Za-z0-9._:-]/g, "_").slice(0, 128),
    role: t.role ?? "user",
    ...(t.role === undefined ? { speaker: t.speaker } : {}),
    content: t.content,
    ts: t.ts,
  }));
  const ingestStarted = Date.now();
  for (const batch of batches(events)) await call("POST", `/threads/${thread}/events`, { events: batch });
  const ingestMs = Date.now() - ingestStarted;
  // Evidence recall is a property of the settled thread: questions wait until extraction has drained
  // (in the background; a compile never waits for a backlog, it would see the raw turns only).
  const drainDeadline = Date.now() + 600_000;
  while ((await call("GET", `/threads/${thread}/state`)).watermark.pending_messages > 0) {
    if (Date.now() > drainDeadline) fail("extraction did not drain within 10 minutes");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Questions are asked the day after the last session.
  const now = new Date(Date.parse(turns.at(-1).ts) + 86_400_000).toISOString();

  const byDia = new Map(turns.map((t) => [t.dia, t]));
  const lines = turns.map((t) => {
    const text = lineOf(t);
    // Counted as plain text, as the service counts (src/tokens/count-tokens.ts).
    return { text, tokens: countTokens(text, { allowedSpecial: new Set(), disallowedSpecial: new Set() }) };
  });
  const bm25 = bm25Index(turns);
  const newestFirst = turns.map((_, i) => turns.length - 1 - i);

  const rows = [];
  const roundTrips = [];
  const compileMs = [];
  for (const budget of options.budgets) {
    const perQuestion = await mapLimit(questions, options.concurrency, async (q, index) => {
      const started = Date.now();
      const compiled = await call("POST", `/threads/${thread}/context`, {
        query: q.question,
        budget_tokens: budget,
        now,
        trace_detail: "summary",
      });
      roundTrips.push(Date.now() - started);
      compileMs.push(compiled.trace.compile_ms);
      const scores = bm25(q.question);
      const bm25Order = scores
        .map((score, i) => ({ score, i }))
        .sort((a, b) => b.score - a.score || b.i - a.i)
        .map((o) => o.i);
      return {
        index,
        category: q.category,
        tenure: evidenceRecall(q, byDia, compiled.context),
        bm25: evidenceRecall(q, byDia, fill(bm25Order, lines, budget)),
        recency: evidenceRecall(q, byDia, fill(newestFirst, lines, budget)),
        tokens: compiled.tokens,
      };
    });
    rows.push({ budget, questions: perQuestion.filter((r) => r.tenure !== null) });
  }
  return {
    sample,
    thread,
    turns: turns.length,
    conversation_tokens: lines.reduce((sum, l) => sum + l.tokens, 0),
    questions: questions.length,
    ingest_ms: ingestMs,
    compile_ms_median: median(compileMs),
    round_trip_ms_median: median(roundTrips),
    budgets: rows.map(({ budget, questions: scored }) => ({
      budget,
      scored_questions: scored.length,
      overall: summary(scored),
      by_category: Object.fromEntries(
        [...new Set(scored.map((r) => r.category))]
          .sort((a, b) => String(a).localeCompare(String(b)))
          .map((c) => [c, summary(scored.filter((r) => r.category === c))]),
      ),
    })),
  };
}

function summary(rows) {
  const mean = (key) => (rows.length ? rows.reduce((sum, r) => sum + r[key], 0) / rows.length : null);
  return {
    n: rows.length,
    tenure: mean("tenure"),
    bm25: mean("bm25"),
    recency: mean("recency"),
    mean_context_tokens: mean("tokens"),
  };
}

const fmt = (x) => (x === null ? "-" : x.toFixed(3));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : null;
}

function print(result) {
  console.log(
    `${result.sample}: ${result.turns} turns (${result.conversation_tokens} tokens), ${result.questions} questions (LoCoMo: non-adversarial)`,
  );
  console.log(
    `thread ${result.thread}: ingest ${result.ingest_ms} ms, median compile ${result.compile_ms_median} ms ` +
      `(server trace.compile_ms; client round trip ${result.round_trip_ms_median} ms)`,
  );
  console.log("evidence recall (share of evidence turns whose text is in the context, mean over questions)");
  for (const b of result.budgets) {
    console.log(`\nbudget ${b.budget} tokens (${b.scored_questions} questions with known evidence)`);
    console.log("category                   n   tenure    bm25  recency  ctx tokens");
    const line = (name, s) =>
      console.log(
        `${name.padEnd(24)} ${String(s.n).padStart(3)}  ${fmt(s.tenure).padStart(7)} ${fmt(s.bm25).padStart(7)} ${fmt(s.recency).padStart(8)}  ${String(Math.round(s.mean_context_tokens ?? 0)).padStart(10)}`,
      );
    for (const [c, s] of Object.entries(b.by_category)) line(`${c} ${CATEGORY_NAMES[c] ?? ""}`.trim(), s);
    line("overall", b.overall);
  }
}

async function main() {
  const options = readOptions(process.argv.slice(2));
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      server.stop().finally(() => process.exit(130));
    });
  }
  process.on("exit", () => server.killNow());
  let url = options.url;
  if (!url) {
    process.stderr.write("starting the local dev server (scripts/dev.mjs) ...\n");
    try {
      url = await server.start(HEALTH_TIMEOUT_MS);
    } catch (error) {
      console.error(`bench-locomo: ${error.message}; server log: ${server.logPath}`);
      await server.stop();
      process.exit(1);
    }
    process.stderr.write(`dev server ready at ${url}\n`);
  }
  let result;
  try {
    result = await run(options, url);
  } finally {
    await server.stop();
  }
  if (options.json) console.log(JSON.stringify(result, null, 2));
  else print(result);
  if (server.logPath) rmSync(server.logPath, { force: true });
}

main().catch(async (error) => {
  console.error(`bench-locomo: ${error?.stack ?? error}`);
  await server.stop();
  if (server.logPath) console.error(`server log: ${server.logPath}`);
  process.exit(1);
});
