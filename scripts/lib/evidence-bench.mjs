// Evidence recall over long conversations, as bench:locomo and bench:beam measure it.
//
// A conversation (turns with an id, speaker or role, time and text; questions with the ids of their
// evidence turns) is ingested into a fresh thread through the public HTTP API; once extraction has
// drained, a context is compiled for every question at each budget. A question's evidence recall is
// the share of its evidence turns whose whole text appears in the context. The same is scored for two
// contexts built here from the same turns, each line rendered as the service renders a message and
// filled greedily up to the same budget: BM25 ranking of the turns against the question, and recency
// (the newest turns). A question that marks an update (`update: {original, updated}` turn ids) is also
// scored for "updated turn present" (every updated turn in the context) and "only the stale turn
// present" (an original turn in the context without the update), for Tenure and both baselines.
// Figures are per conversation and micro-averaged: every scored question of every conversation
// counts once.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { SERVER_OPTIONS, SERVER_USAGE, usageErrors, withServer } from "./bench-cli.mjs";

const ADVERSARIAL = 5;
const LOCOMO_CATEGORIES = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };
const MAX_BATCH = 500;
const REQUEST_TIMEOUT_MS = 120_000;
const DRAIN_TIMEOUT_MS = 600_000;
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

// ---------------------------------------------------------------------------------------------------
// LoCoMo conversations

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC; the data set gives no zone). */
function parseSessionDate(text) {
  const match = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(
    text ?? "",
  );
  if (!match) return undefined;
  const [, h, min, half, day, monthName, year] = match;
  const month = MONTHS.indexOf(monthName.toLowerCase().slice(0, 3));
  if (month < 0) return undefined;
  const hour = (Number(h) % 12) + (half.toLowerCase() === "pm" ? 12 : 0);
  return Date.UTC(Number(year), month, Number(day), hour, Number(min));
}

/** One LoCoMo sample (`conversation` with `session_N` turn lists, and `qa`). Throws on a bad date. */
function locomoConversation(data, fallbackName) {
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
      throw new Error(`session_${n}_date_time is not a date: '${conversation[`session_${n}_date_time`]}'`);
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
  return {
    sample: data.sample_id ?? fallbackName,
    turns,
    questions,
    note: "LoCoMo: non-adversarial",
    categoryNames: LOCOMO_CATEGORIES,
  };
}

/**
 * The conversations of a LoCoMo file: one sample, or a list of them (as the data set's locomo10.json).
 * `many` says which, so that a single sample keeps its single-conversation report.
 */
export function loadLocomoFile(file) {
  const data = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(data))
    return { many: false, conversations: [{ name: file, load: () => locomoConversation(data, file) }] };
  const name = `${basename(file, ".json")}`;
  return {
    many: true,
    conversations: data.map((sample, i) => ({
      name: `${name}[${i}]`,
      load: () => locomoConversation(sample, `${name}[${i}]`),
    })),
  };
}

const naturalOrder = (a, b) => a.localeCompare(b, "en", { numeric: true });

/** The `*.json` files of a folder, in natural order (conv-2 before conv-10). */
export function jsonFiles(dir) {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort(naturalOrder)
    .map((name) => join(dir, name));
}

/** A BEAM chat folder itself, or the chat folders (each holding chat.json) right under a folder. */
export function beamChatFolders(dir) {
  if (isBeamChat(dir)) return [dir];
  return readdirSync(dir)
    .sort(naturalOrder)
    .map((name) => join(dir, name))
    .filter((path) => isFile(join(path, "chat.json")));
}

export const isDirectory = (path) => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
const isFile = (path) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
/** A BEAM chat folder holds chat.json. */
export const isBeamChat = (dir) => isFile(join(dir, "chat.json"));

// ---------------------------------------------------------------------------------------------------
// Scoring

const normalise = (text) => text.replace(/\s+/g, " ").trim();

/** Which of the turns with these ids have their whole text in the context (ids of unknown turns drop). */
function present(ids, byDia, haystack) {
  const known = ids.map((id) => byDia.get(id)).filter(Boolean);
  return {
    known: known.length,
    found: known.filter((turn) => haystack.includes(normalise(turn.text))).length,
  };
}

/** Share of the question's evidence turns whose text appears in the context; null when none is known. */
function evidenceRecall(question, byDia, haystack) {
  const { known, found } = present(question.evidence, byDia, haystack);
  return known ? found / known : null;
}

/** Updated turn present, or only the stale one; null when the question marks no update it can score. */
function updateOutcome(question, byDia, haystack) {
  if (!question.update) return null;
  const updated = present(question.update.updated, byDia, haystack);
  const original = present(question.update.original, byDia, haystack);
  if (!updated.known || !original.known) return null;
  const updatedPresent = updated.found === updated.known;
  return { updated: updatedPresent, stale_only: !updatedPresent && original.found > 0 };
}

function score(question, byDia, context) {
  const haystack = normalise(context);
  return {
    recall: evidenceRecall(question, byDia, haystack),
    update: updateOutcome(question, byDia, haystack),
  };
}

// ---------------------------------------------------------------------------------------------------
// Baselines, over the turns rendered the way the service renders a message line

const lineOf = (turn) =>
  `[${turn.ts}] ${turn.role === undefined ? `${turn.speaker} (user)` : turn.role}: ${turn.content}`;

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
      let total = 0;
      for (const term of terms) {
        const f = tf.get(term) ?? 0;
        if (!f) continue;
        const n = df.get(term) ?? 0;
        const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
        total += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * doc.length) / avg));
      }
      return total;
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

// ---------------------------------------------------------------------------------------------------
// HTTP

export function makeClient(baseUrl, tenant, key) {
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

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : null;
}

// ---------------------------------------------------------------------------------------------------
// One conversation

/**
 * Ingests the conversation, waits for extraction to drain, and scores every question (the first
 * `limit` when given) at each budget. Returns the conversation's report and, per budget, the scored
 * questions (for micro-averages over several conversations).
 */
export async function benchConversation(conversation, { call, budgets, concurrency, limit, label }) {
  const { sample, turns } = conversation;
  const questions = limit ? conversation.questions.slice(0, limit) : conversation.questions;
  if (!turns.length) throw new Error("the conversation has no turns");
  const thread = `${label}-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
  await call("PUT", `/threads/${thread}`, {
    project_id: `p-${thread}`,
    identity: { user_id: `${label}-reader` },
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
  const drainDeadline = Date.now() + DRAIN_TIMEOUT_MS;
  while ((await call("GET", `/threads/${thread}/state`)).watermark.pending_messages > 0) {
    if (Date.now() > drainDeadline) throw new Error("extraction did not drain within 10 minutes");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Questions are asked the day after the last turn.
  const now = new Date(Date.parse(turns.at(-1).ts) + 86_400_000).toISOString();

  const byDia = new Map(turns.map((t) => [t.dia, t]));
  const lines = turns.map((t) => {
    const text = lineOf(t);
    // Counted as plain text, as the service counts (src/tokens/count-tokens.ts).
    return { text, tokens: countTokens(text, { allowedSpecial: new Set(), disallowedSpecial: new Set() }) };
  });
  const bm25 = bm25Index(turns);
  const newestFirst = turns.map((_, i) => turns.length - 1 - i);

  const scoredByBudget = [];
  const roundTrips = [];
  const compileMs = [];
  for (const budget of budgets) {
    const perQuestion = await mapLimit(questions, concurrency, async (q, index) => {
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
        .map((s, i) => ({ s, i }))
        .sort((a, b) => b.s - a.s || b.i - a.i)
        .map((o) => o.i);
      const tenure = score(q, byDia, compiled.context);
      const lexical = score(q, byDia, fill(bm25Order, lines, budget));
      const recent = score(q, byDia, fill(newestFirst, lines, budget));
      return {
        index,
        category: q.category,
        tenure: tenure.recall,
        bm25: lexical.recall,
        recency: recent.recall,
        update: tenure.update && { tenure: tenure.update, bm25: lexical.update, recency: recent.update },
        tokens: compiled.tokens,
      };
    });
    scoredByBudget.push({ budget, questions: perQuestion.filter((r) => r.tenure !== null) });
  }
  const result = {
    sample,
    thread,
    turns: turns.length,
    conversation_tokens: lines.reduce((sum, l) => sum + l.tokens, 0),
    questions: questions.length,
    ingest_ms: ingestMs,
    compile_ms_median: median(compileMs),
    round_trip_ms_median: median(roundTrips),
    budgets: scoredByBudget.map(({ budget, questions: scored }) => budgetSummary(budget, scored)),
  };
  return { result, scoredByBudget };
}

// ---------------------------------------------------------------------------------------------------
// Summaries

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

/** Share of update questions with the updated turn present / with only the stale turn, per context. */
function updateSummary(rows) {
  const scored = rows.filter((r) => r.update);
  if (!scored.length) return undefined;
  const share = (source, key) => scored.filter((r) => r.update[source][key]).length / scored.length;
  const of = (source) => ({ updated: share(source, "updated"), stale_only: share(source, "stale_only") });
  return { n: scored.length, tenure: of("tenure"), bm25: of("bm25"), recency: of("recency") };
}

function budgetSummary(budget, scored) {
  const updates = updateSummary(scored);
  return {
    budget,
    scored_questions: scored.length,
    overall: summary(scored),
    by_category: Object.fromEntries(
      [...new Set(scored.map((r) => r.category))]
        .sort((a, b) => String(a).localeCompare(String(b)))
        .map((c) => [c, summary(scored.filter((r) => r.category === c))]),
    ),
    ...(updates ? { knowledge_updates: updates } : {}),
  };
}

/** Every scored question of every conversation counted once, per budget. */
export function microAverage(runs, budgets) {
  return {
    conversations: runs.length,
    questions: runs.reduce((sum, r) => sum + r.result.questions, 0),
    budgets: budgets.map((budget, i) =>
      budgetSummary(
        budget,
        runs.flatMap((r) => r.scoredByBudget[i].questions),
      ),
    ),
  };
}

// ---------------------------------------------------------------------------------------------------
// Printing

const fmt = (x) => (x === null || x === undefined ? "-" : x.toFixed(3));
const signed = (x) => (x === null || x === undefined ? "-" : `${x >= 0 ? "+" : ""}${x.toFixed(3)}`);

function printBudget(b, categoryNames) {
  console.log("category                   n   tenure    bm25  recency  ctx tokens");
  const line = (name, s) =>
    console.log(
      `${name.padEnd(24)} ${String(s.n).padStart(3)}  ${fmt(s.tenure).padStart(7)} ${fmt(s.bm25).padStart(7)} ${fmt(s.recency).padStart(8)}  ${String(Math.round(s.mean_context_tokens ?? 0)).padStart(10)}`,
    );
  for (const [c, s] of Object.entries(b.by_category)) line(`${c} ${categoryNames?.[c] ?? ""}`.trim(), s);
  line("overall", b.overall);
  const u = b.knowledge_updates;
  if (!u) return;
  console.log(`knowledge updates (${u.n}): updated turn present / only the stale turn present`);
  for (const source of ["tenure", "bm25", "recency"])
    console.log(`  ${source.padEnd(8)} ${fmt(u[source].updated)} / ${fmt(u[source].stale_only)}`);
}

/** One conversation's report (the single-conversation output of bench:locomo). */
export function printConversation(result, { note, categoryNames }) {
  console.log(
    `${result.sample}: ${result.turns} turns (${result.conversation_tokens} tokens), ${result.questions} questions (${note})`,
  );
  console.log(
    `thread ${result.thread}: ingest ${result.ingest_ms} ms, median compile ${result.compile_ms_median} ms ` +
      `(server trace.compile_ms; client round trip ${result.round_trip_ms_median} ms)`,
  );
  console.log("evidence recall (share of evidence turns whose text is in the context, mean over questions)");
  for (const b of result.budgets) {
    console.log(`\nbudget ${b.budget} tokens (${b.scored_questions} questions with known evidence)`);
    printBudget(b, categoryNames);
  }
}

/** The micro-averaged tables and one line per conversation at each budget. */
export function printMicro(report, categoryNames) {
  const { micro, conversations, failed } = report;
  console.log(
    `\n=== all ${micro.conversations} conversations, micro-averaged (every scored question counts once)` +
      (failed.length ? `; ${failed.length} conversation(s) FAILED, not counted` : ""),
  );
  for (const [i, b] of micro.budgets.entries()) {
    console.log(`\nbudget ${b.budget} tokens (${b.scored_questions} questions with known evidence)`);
    printBudget(b, categoryNames);
    console.log("\nconversation               n   tenure    bm25  recency  tenure-bm25");
    const row = (name, s) =>
      console.log(
        `${name.padEnd(24)} ${String(s.n).padStart(3)}  ${fmt(s.tenure).padStart(7)} ${fmt(s.bm25).padStart(7)} ${fmt(s.recency).padStart(8)}  ${signed(s.tenure === null ? null : s.tenure - s.bm25).padStart(11)}`,
      );
    for (const c of conversations) row(basename(String(c.sample)).slice(0, 24), c.budgets[i].overall);
    row("micro-average", b.overall);
  }
  for (const f of failed) console.log(`FAILED ${f.sample}: ${f.error}`);
}

// ---------------------------------------------------------------------------------------------------
// The command line both benches share

/** The options both commands take, after their own usage line. */
export const evidenceUsage = (
  defaultBudgets,
) => `  --budgets N[,N]    budget_tokens per context request (default ${defaultBudgets})
${SERVER_USAGE}
  --concurrency N    context requests at once (default 4)
  --limit N          ask only the first N questions of each conversation
  --json             print the figures as JSON instead of tables`;

/**
 * The command, on process.argv: parses the options, runs every conversation the path names against
 * one server (`--url`, or a dev server started for the whole run) and prints the report, or with
 * --json writes it to stdout as JSON. `sources(path)` says which conversations a path holds:
 * `{ many, conversations: [{ name, load }] }`; a single conversation (`many: false`) keeps the
 * one-conversation report.
 */
export function evidenceBenchMain(profile) {
  measureEvidence(profile, process.argv.slice(2)).catch((error) => {
    console.error(`${profile.name}: ${error?.stack ?? error}`);
    process.exit(1);
  });
}

async function measureEvidence({ name, label, usage, defaultBudgets, sources }, argv) {
  const { fail, positiveInt, positiveInts, parse } = usageErrors(name, usage);
  const { values, operand: path } = parse(
    argv,
    {
      budgets: { type: "string", default: defaultBudgets },
      ...SERVER_OPTIONS,
      concurrency: { type: "string", default: "4" },
      limit: { type: "string" },
      json: { type: "boolean", default: false },
    },
    "file or folder",
  );
  const budgets = positiveInts(values.budgets, "budgets");
  const concurrency = positiveInt(values.concurrency, "concurrency");
  const limit = values.limit === undefined ? undefined : positiveInt(values.limit, "limit");
  if (!statSync(path, { throwIfNoEntry: false })) fail(`no such file or folder: ${path}`);
  const { many, conversations } = sources(path);
  if (!conversations.length) fail(`no conversations in ${path}`);

  const runs = [];
  const failed = [];
  let shown;
  await withServer(name, values.url?.replace(/\/+$/, ""), async (url) => {
    const call = makeClient(url, values.tenant, values.key);
    for (const source of conversations) {
      let conversation;
      try {
        conversation = source.load();
      } catch (error) {
        if (!many) fail(`cannot read ${source.name}: ${error.message}`);
        failed.push({ sample: source.name, error: `cannot read: ${error.message}` });
        continue;
      }
      shown ??= conversation;
      if (many) process.stderr.write(`${conversation.sample}: ${conversation.turns.length} turns ...\n`);
      try {
        runs.push({
          ...(await benchConversation(conversation, { call, budgets, concurrency, limit, label })),
          conversation,
        });
      } catch (error) {
        if (!many) throw error;
        failed.push({ sample: conversation.sample, error: error.message });
      }
    }
  });

  if (!many) {
    const { result, conversation } = runs[0];
    if (values.json) console.log(JSON.stringify(result, null, 2));
    else printConversation(result, conversation);
    return;
  }
  const report = {
    path,
    budgets,
    ...(limit ? { limit } : {}),
    conversations: runs.map((r) => r.result),
    failed,
    micro: microAverage(runs, budgets),
  };
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else {
    for (const r of runs) {
      printConversation(r.result, r.conversation);
      console.log("");
    }
    printMicro(report, shown?.categoryNames);
  }
  if (failed.length) process.exitCode = 1;
}
