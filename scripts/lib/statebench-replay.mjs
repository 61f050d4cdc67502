// StateBench-format timelines replayed through Tenure's public HTTP API, as bench:statebench and
// bench:wild measure them (one project and one thread per timeline). The compiled context of every
// query is scored without an LLM:
//   - must-mention recall over the *attainable* phrases only: a query's must-mention phrases that appear
//     somewhere in what the timeline told the system before the query (its conversation turns, state
//     writes, initial facts and environment); the rest are answer wording no context can hold;
//   - leak rate: the share of queries whose context holds any must-not-mention phrase; over the dead
//     tracks (those where such a phrase is a superseded, out-of-scope or forbidden value) it is the
//     dead-value leak;
//   - the context size.
// Two contexts built here are scored alongside for scale: naive (every fact value ever written plus
// the last turns) and transcript (every conversation turn told before the query).
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { commaList, SERVER_OPTIONS, SERVER_USAGE, usageErrors, withServer } from "./bench-cli.mjs";

/** StateBench's tracks where a must-not-mention phrase is a dead or forbidden fact. */
export const STATEBENCH_DEAD_TRACKS = [
  "supersession",
  "supersession_detection",
  "repair_propagation",
  "environmental_freshness",
  "scope_leak",
  "scope_permission",
  "enterprise_privacy",
];
const SOURCE_TYPES = new Set(["user", "system", "tool", "external", "policy", "conversation"]);
const SCOPES = new Set(["global", "task", "hypothetical", "draft", "session"]);
const LAYERS = { persistent_facts: "persistent", environment: "environment", working_set: "working" };
const SPEAKER_ROLES = new Set(["user", "assistant", "system"]);
const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const MAX_BATCH = 500;
const NAIVE_TURNS = 10;
const REQUEST_TIMEOUT_MS = 120_000;
const ERROR_SAMPLES = 5;

/** Set on SIGINT/SIGTERM: no new requests start, and requests cut short are not counted as errors. */
let interrupted = false;

/** The options both commands take, after their own usage line. */
export const REPLAY_OPTIONS = `${SERVER_USAGE}
  --budget N         budget_tokens per context request (default 8000)
  --limit N          replay only the first N timelines (after --track)
  --track NAME       only these tracks (comma-separated)
  --concurrency N    timelines replayed at once (default 4)
  --distractors N    before each timeline's first query, write N unrelated facts (bench:scale's filler)
                     into its project from another thread of the same user, so what it was told
                     before sits behind N newer versions
                     (more than 500 puts it outside the newest ones a compile holds: the search must
                     find it); phrases that occur in a distractor are left out of the scores
  --json FILE        write all figures as JSON
  --verbose          print every query that leaks or misses a phrase, with its context`;

// ---------------------------------------------------------------------------------------------------
// Options

function readOptions(argv, { parse, positiveInt }) {
  const { values, operand } = parse(
    argv,
    {
      ...SERVER_OPTIONS,
      budget: { type: "string", default: "8000" },
      limit: { type: "string" },
      track: { type: "string" },
      concurrency: { type: "string", default: "4" },
      distractors: { type: "string", default: "0" },
      json: { type: "string" },
      verbose: { type: "boolean", default: false },
    },
    "timeline file",
  );
  return {
    file: operand,
    url: values.url ? values.url.replace(/\/+$/, "") : undefined,
    tenant: values.tenant,
    key: values.key,
    budget: positiveInt(values.budget, "budget"),
    limit: values.limit === undefined ? undefined : positiveInt(values.limit, "limit"),
    tracks: values.track ? new Set(commaList(values.track)) : undefined,
    concurrency: positiveInt(values.concurrency, "concurrency"),
    distractors: values.distractors === "0" ? 0 : positiveInt(values.distractors, "distractors"),
    json: values.json,
    verbose: values.verbose,
  };
}

function loadTimelines(file, fail) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    fail(`cannot read ${file}: ${error.message}`);
  }
  const timelines = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    try {
      timelines.push(JSON.parse(line));
    } catch (error) {
      fail(`${file}:${index + 1}: not JSON (${error.message})`);
    }
  }
  return timelines;
}

// ---------------------------------------------------------------------------------------------------
// Mapping a timeline onto API requests

const isMissing = (v) => v === null || v === undefined || (typeof v === "string" && v.trim() === "");

/** An optional short text field: trimmed, non-empty, within the API's length limit; otherwise absent. */
function optionalText(value, max) {
  if (isMissing(value)) return undefined;
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") return undefined;
  return String(value).trim().slice(0, max);
}

/** What a value looks like as text: used for attainability and for the naive context. */
function valueText(value) {
  if (value === null || value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The API takes a string, number, boolean or object; anything else is sent as its JSON text. */
function factValue(value) {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (Array.isArray(value)) return JSON.stringify(value);
  if (typeof value === "object") return value;
  return String(value);
}

function shortHash(text) {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}

/** A thread or project id: the characters the API allows, at most 128 of them. */
function safeId(text, max = 128) {
  const cleaned = String(text).replace(/[^A-Za-z0-9._:-]/g, "_");
  return cleaned.slice(0, max) || "x";
}

/**
 * Fact ids of one timeline. An id the API would refuse is rewritten (with a hash of the original, so
 * distinct ids stay distinct), and the same rewriting applies wherever the id is referenced.
 * A reference that is no known id is a fact key and passes unchanged.
 */
function idBook() {
  const known = new Map();
  return {
    id(original) {
      if (isMissing(original)) return undefined;
      const text = String(original).trim();
      if (known.has(text)) return known.get(text);
      const id = ID_PATTERN.test(text) ? text : `${safeId(text, 119)}-${shortHash(text)}`;
      known.set(text, id);
      return id;
    },
    ref(original) {
      if (isMissing(original)) return undefined;
      const text = String(original).trim();
      return known.get(text) ?? text.slice(0, 200);
    },
  };
}

function sourceOf(source) {
  if (!source || typeof source !== "object") return undefined;
  const out = { type: SOURCE_TYPES.has(source.type) ? source.type : "system" };
  const authority = optionalText(source.authority, 200);
  const identity = optionalText(source.identity, 200);
  if (authority) out.authority = authority;
  if (identity) out.identity = identity;
  return out;
}

/** A fact event from a persistent fact or a write; undefined when it has no value to send. */
function factEvent(fact, layer, ts, ids, fallbackKey) {
  const value = factValue(fact.value);
  if (value === undefined) return undefined;
  const event = {
    type: "fact",
    key: optionalText(fact.key, 200) ?? fallbackKey,
    value,
    layer,
  };
  const id = fact.id === "W-AUTO" ? undefined : ids.id(fact.id);
  if (id) event.id = id;
  const when = optionalText(fact.ts ?? ts, 64);
  if (when) event.ts = when;
  const source = sourceOf(fact.source);
  if (source) event.source = source;
  if (SCOPES.has(fact.scope)) event.scope = fact.scope;
  const supersedes = ids.ref(fact.supersedes);
  if (supersedes) event.supersedes = supersedes;
  if (Array.isArray(fact.depends_on)) {
    const dependsOn = fact.depends_on
      .map((d) => ids.ref(d))
      .filter(Boolean)
      .slice(0, 100);
    if (dependsOn.length) event.depends_on = dependsOn;
  }
  if (typeof fact.is_constraint === "boolean") event.is_constraint = fact.is_constraint;
  const constraintType = optionalText(fact.constraint_type, 100);
  if (constraintType) event.constraint_type = constraintType;
  return event;
}

function identityOf(timeline) {
  const role = timeline.initial_state?.identity_role ?? {};
  const identity = { user_id: optionalText(timeline.actors?.user?.id, 200) ?? "u1" };
  for (const field of ["user_name", "authority", "department", "organization"]) {
    const value = optionalText(role[field], 200);
    if (value) identity[field] = value;
  }
  return identity;
}

// ---------------------------------------------------------------------------------------------------
// Scoring

// Numbers match whole: "500" is not in "1500" or "1,500", nor "$150" in "$1500" (a timeline may ask
// for "1500" and forbid "500", which plain substring matching makes impossible to satisfy). Words
// still match inside longer words ("approve" in "approved"), as the answer wording varies.
const matchers = new Map();

function matcherOf(phrase) {
  let re = matchers.get(phrase);
  if (!re) {
    const lower = phrase.toLowerCase();
    const body = lower.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const head = /^\p{N}/u.test(lower) ? "(?<!\\p{N})(?<!\\p{N}[.,])" : "";
    const tail = /\p{N}$/u.test(lower) ? "(?!\\p{N})(?![.,]\\p{N})" : "";
    re = new RegExp(`${head}${body}${tail}`, "u");
    matchers.set(phrase, re);
  }
  return re;
}

const contains = (haystackLower, phrase) => matcherOf(phrase).test(haystackLower);
/** The plain substring test, reported beside the figures for comparison. */
const containsSubstring = (haystackLower, phrase) => haystackLower.includes(phrase.toLowerCase());

function phrases(list) {
  return Array.isArray(list) ? list.filter((p) => typeof p === "string" && p.trim() !== "") : [];
}

function emptyTotals() {
  return {
    timelines: 0,
    queries: 0,
    failed_queries: 0,
    attainable: 0,
    found: 0,
    unattainable: 0,
    excluded: 0,
    leaks: 0,
    substring_leaks: 0,
    tokens: 0,
    naive_found: 0,
    naive_leaks: 0,
    transcript_found: 0,
    transcript_leaks: 0,
  };
}

function addQuery(totals, q) {
  totals.queries++;
  totals.attainable += q.attainable.length;
  totals.found += q.found.length;
  totals.unattainable += q.unattainable.length;
  totals.excluded += q.excluded.length;
  if (q.leaked.length) totals.leaks++;
  if (q.leaked_substring.length) totals.substring_leaks++;
  totals.tokens += q.tokens;
  totals.naive_found += q.naive_found;
  if (q.naive_leaked.length) totals.naive_leaks++;
  totals.transcript_found += q.transcript_found;
  if (q.transcript_leaked.length) totals.transcript_leaks++;
}

function finish(totals) {
  const ratio = (a, b) => (b > 0 ? a / b : null);
  return {
    ...totals,
    recall: ratio(totals.found, totals.attainable),
    leak_rate: ratio(totals.leaks, totals.queries),
    substring_leak_rate: ratio(totals.substring_leaks, totals.queries),
    avg_tokens: ratio(totals.tokens, totals.queries),
    naive_recall: ratio(totals.naive_found, totals.attainable),
    naive_leak_rate: ratio(totals.naive_leaks, totals.queries),
    transcript_recall: ratio(totals.transcript_found, totals.attainable),
    transcript_leak_rate: ratio(totals.transcript_leaks, totals.queries),
  };
}

/**
 * `count` facts unrelated to any timeline: bench:scale's filler (scripts/lib/scale-fixture.ts, loaded
 * through tsx), the same for every timeline, with the text they render as (lower-cased) to leave the
 * phrases they hold out of the scores.
 */
async function distractorFacts(count) {
  const { tsImport } = await import("tsx/esm/api");
  const { fillerFact, picker } = await tsImport("./scale-fixture.ts", import.meta.url);
  const { chance, pick } = picker(count);
  const facts = Array.from({ length: count }, (_, i) => {
    const { type, key, value } = fillerFact(i, "", pick, chance);
    return { type, id: `distractor-${i}`, key, value, layer: "persistent" };
  });
  return { facts, text: facts.map((f) => `${f.key}: ${f.value}`.toLowerCase()).join("\n") };
}

// ---------------------------------------------------------------------------------------------------
// HTTP

function makeClient(baseUrl, tenant, key, errors) {
  const prefix = `${baseUrl}/v1/tenants/${encodeURIComponent(tenant)}`;
  return async function call(method, path, body, label) {
    if (interrupted) return undefined;
    let response;
    let text;
    try {
      response = await fetch(`${prefix}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      if (interrupted) return undefined;
      errors.push({
        request: `${method} ${path}`,
        label,
        status: null,
        body: String(error?.message ?? error),
      });
      return undefined;
    }
    if (!response.ok) {
      errors.push({ request: `${method} ${path}`, label, status: response.status, body: text });
      return undefined;
    }
    try {
      return text ? JSON.parse(text) : {};
    } catch {
      errors.push({
        request: `${method} ${path}`,
        label,
        status: response.status,
        body: `not JSON: ${text}`,
      });
      return undefined;
    }
  };
}

// ---------------------------------------------------------------------------------------------------
// Replaying one timeline

async function replay(timeline, ctx) {
  const { call, nonce, budget, tally, distractors } = ctx;
  const label = String(timeline.id ?? "?");
  const thread = `sb-${safeId(label, 100)}-${nonce}`;
  const threadPath = `/threads/${thread}`;
  const initial = timeline.initial_state ?? {};
  const environment =
    initial.environment && typeof initial.environment === "object" ? initial.environment : {};
  const events = Array.isArray(timeline.events) ? timeline.events : [];
  const envNow = optionalText(environment.now, 64);
  const startTs = envNow ?? optionalText(events.find((e) => e?.ts)?.ts, 64);
  const ids = idBook();
  const result = {
    id: label,
    track: timeline.track ?? "unknown",
    queries: [],
    failed_queries: 0,
    skipped: 0,
  };

  // What the timeline has told the system so far (lower-cased), and the naive context's material.
  const told = [];
  const naiveFacts = [];
  const turns = [];
  let pending = [];
  let distracted = false;
  let lastTs = startTs;

  const created = await call(
    "PUT",
    threadPath,
    {
      project_id: thread,
      identity: identityOf(timeline),
      ...(envNow ? { environment: { now: envNow } } : {}),
    },
    label,
  );
  if (!created) {
    result.failed_queries = events.filter((e) => e?.type === "query").length;
    return result;
  }

  const learnFact = (key, value, withKey) => {
    const text = valueText(value);
    told.push(text.toLowerCase());
    if (withKey && !isMissing(key)) told.push(String(key).toLowerCase());
    naiveFacts.push(text);
  };
  const queue = (event) => {
    if (event) pending.push(event);
    else result.skipped++;
  };
  const flush = async () => {
    while (pending.length) {
      const batch = pending.slice(0, MAX_BATCH);
      pending = pending.slice(MAX_BATCH);
      const ingested = await call("POST", `${threadPath}/events`, { events: batch }, label);
      if (ingested) {
        for (const f of ingested.facts ?? []) tally[f.outcome] = (tally[f.outcome] ?? 0) + 1;
        tally.duplicates += ingested.duplicates ?? 0;
      }
    }
  };

  for (const [key, value] of Object.entries(environment)) {
    told.push(valueText(value).toLowerCase());
    if (key === "now") continue;
    naiveFacts.push(valueText(value));
    queue(factEvent({ key, value }, "environment", startTs, ids, key));
  }
  for (const [index, fact] of (Array.isArray(initial.persistent_facts)
    ? initial.persistent_facts
    : []
  ).entries()) {
    if (!fact || typeof fact !== "object") continue;
    learnFact(fact.key, fact.value, true);
    queue(factEvent(fact, "persistent", startTs, ids, `fact_${index}`));
  }
  for (const [index, item] of (Array.isArray(initial.working_set) ? initial.working_set : []).entries()) {
    if (!item || typeof item !== "object") continue;
    const key = `${optionalText(item.item_type, 150) ?? "item"}_${index}`;
    learnFact(undefined, item.content, false);
    queue(factEvent({ key, value: item.content, ts: item.ts }, "working", startTs, ids, key));
  }

  for (const [index, event] of events.entries()) {
    if (!event || typeof event !== "object") continue;
    lastTs = optionalText(event.ts, 64) ?? lastTs;
    if (event.type === "conversation_turn") {
      const text = typeof event.text === "string" ? event.text : valueText(event.text);
      told.push(text.toLowerCase());
      turns.push(text);
      if (!text.trim()) {
        result.skipped++;
        continue;
      }
      const speaker = optionalText(event.speaker, 200);
      const message = {
        type: "message",
        id: `m-${index}`,
        role: SPEAKER_ROLES.has(speaker) ? speaker : "user",
        content: text,
      };
      if (speaker && !SPEAKER_ROLES.has(speaker)) message.speaker = speaker;
      const ts = optionalText(event.ts, 64);
      if (ts) message.ts = ts;
      queue(message);
    } else if (event.type === "state_write" || event.type === "supersession") {
      for (const [w, write] of (Array.isArray(event.writes) ? event.writes : []).entries()) {
        if (!write || typeof write !== "object") continue;
        const layer = LAYERS[write.layer] ?? "persistent";
        learnFact(write.key, write.value, false);
        queue(
          factEvent(
            { ...write, ts: undefined },
            layer,
            optionalText(event.ts, 64),
            ids,
            `write_${index}_${w}`,
          ),
        );
      }
    } else if (event.type === "query") {
      await flush();
      if (distractors && !distracted) {
        // The same user's other work in the project (another thread), newer than everything the
        // timeline told so far and valid by the query's time.
        distracted = true;
        const other = `${threadPath}-other`;
        const opened = await call(
          "PUT",
          other,
          { project_id: thread, identity: identityOf(timeline) },
          label,
        );
        const facts = distractors.facts.map((fact) => (lastTs ? { ...fact, ts: lastTs } : fact));
        for (let i = 0; opened && i < facts.length; i += MAX_BATCH) {
          await call("POST", `${other}/events`, { events: facts.slice(i, i + MAX_BATCH) }, label);
        }
      }
      const prompt = typeof event.prompt === "string" && event.prompt.trim() ? event.prompt : "(empty query)";
      const body = { query: prompt, budget_tokens: budget };
      const now = optionalText(event.ts, 64);
      if (now) body.now = now;
      const compiled = await call("POST", `${threadPath}/context`, body, label);
      if (!compiled || typeof compiled.context !== "string") {
        if (compiled)
          ctx.errors.push({ request: "POST context", label, status: 200, body: "no context string" });
        result.failed_queries++;
        continue;
      }
      const truth = event.ground_truth ?? {};
      const toldText = told.join("\n");
      const contextLower = compiled.context.toLowerCase();
      const naiveLower = [...naiveFacts, ...turns.slice(-NAIVE_TURNS)].join("\n").toLowerCase();
      const transcriptLower = turns.join("\n").toLowerCase();
      // A phrase a distractor holds could be found or leaked by the distractor alone: not scored.
      const scored = (p) => !distractors || !contains(distractors.text, p);
      const excluded = [...phrases(truth.must_mention), ...phrases(truth.must_not_mention)].filter(
        (p) => !scored(p),
      );
      const mustMention = phrases(truth.must_mention).filter(scored);
      const mustNot = phrases(truth.must_not_mention).filter(scored);
      const attainable = mustMention.filter((p) => contains(toldText, p));
      result.queries.push({
        timeline: label,
        track: result.track,
        prompt,
        attainable,
        unattainable: mustMention.filter((p) => !contains(toldText, p)),
        found: attainable.filter((p) => contains(contextLower, p)),
        missing: attainable.filter((p) => !contains(contextLower, p)),
        leaked: mustNot.filter((p) => contains(contextLower, p)),
        leaked_substring: mustNot.filter((p) => containsSubstring(contextLower, p)),
        excluded,
        tokens: Number(compiled.tokens) || 0,
        naive_found: attainable.filter((p) => contains(naiveLower, p)).length,
        naive_leaked: mustNot.filter((p) => contains(naiveLower, p)),
        transcript_found: attainable.filter((p) => contains(transcriptLower, p)).length,
        transcript_leaked: mustNot.filter((p) => contains(transcriptLower, p)),
        context: compiled.context,
      });
    } else {
      result.skipped++;
    }
  }
  await flush();
  return result;
}

async function replayAll(timelines, ctx, concurrency) {
  const results = new Array(timelines.length);
  let next = 0;
  let done = 0;
  const progressEvery = Math.max(1, Math.ceil(timelines.length / 10));
  async function worker() {
    while (next < timelines.length && !interrupted) {
      const index = next++;
      results[index] = await replay(timelines[index], ctx);
      done++;
      if (!interrupted && (done % progressEvery === 0 || done === timelines.length)) {
        process.stderr.write(`  ${done}/${timelines.length} timelines, ${ctx.errors.length} errors\n`);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, timelines.length) }, worker));
  return results;
}

// ---------------------------------------------------------------------------------------------------
// Report

const fmtRatio = (x) => (x === null ? "-" : x.toFixed(3));
const fmtPercent = (x) => (x === null ? "-" : `${(x * 100).toFixed(1)}%`);
const fmtTokens = (x) => (x === null ? "-" : Math.round(x).toString());

function printTable(rows) {
  const header = [
    "track",
    "timelines",
    "queries",
    "recall",
    "leak rate",
    "substr leak",
    "avg tokens",
    "naive recall",
    "naive leak",
    "transcript recall",
    "transcript leak",
  ];
  const cells = rows.map((r) =>
    r === null
      ? null
      : [
          r.name,
          String(r.timelines),
          String(r.queries),
          fmtRatio(r.recall),
          fmtPercent(r.leak_rate),
          fmtPercent(r.substring_leak_rate),
          fmtTokens(r.avg_tokens),
          fmtRatio(r.naive_recall),
          fmtPercent(r.naive_leak_rate),
          fmtRatio(r.transcript_recall),
          fmtPercent(r.transcript_leak_rate),
        ],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...cells.filter(Boolean).map((c) => c[i].length)));
  const line = (c) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  console.log(line(header));
  console.log(rule);
  for (const c of cells) console.log(c === null ? rule : line(c));
}

function report(results, errors, tally, options, meta) {
  const { profile } = meta;
  const deadTracks =
    profile.deadTracks === "all"
      ? [...new Set(results.map((r) => r.track))].sort((a, b) => a.localeCompare(b))
      : profile.deadTracks;
  const byTrack = new Map();
  const dead = emptyTotals();
  const all = emptyTotals();
  for (const r of results) {
    if (!byTrack.has(r.track)) byTrack.set(r.track, emptyTotals());
    const groups = [byTrack.get(r.track), all, ...(deadTracks.includes(r.track) ? [dead] : [])];
    for (const g of groups) {
      g.timelines++;
      g.failed_queries += r.failed_queries;
      for (const q of r.queries) addQuery(g, q);
    }
  }
  const order = (name) => {
    const i = deadTracks.indexOf(name);
    return i === -1 ? deadTracks.length : i;
  };
  const trackNames = [...byTrack.keys()].sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  const tracks = Object.fromEntries(trackNames.map((name) => [name, finish(byTrack.get(name))]));
  const deadCount = trackNames.filter((t) => deadTracks.includes(t)).length;
  const summary = {
    dead_fact_tracks: { tracks: deadTracks, ...finish(dead) },
    all_tracks: finish(all),
  };

  if (options.verbose) {
    for (const q of results.flatMap((r) => r.queries)) {
      if (!q.leaked.length && !q.missing.length) continue;
      console.log(`\n=== ${q.leaked.length ? "leak" : "miss"}: ${q.timeline} [${q.track}]`);
      console.log(`query:  ${q.prompt}`);
      if (q.leaked.length) console.log(`leaked: ${q.leaked.map((p) => JSON.stringify(p)).join(", ")}`);
      if (q.missing.length) console.log(`missing: ${q.missing.map((p) => JSON.stringify(p)).join(", ")}`);
      console.log("context:");
      console.log(q.context);
    }
    console.log("");
  }

  console.log(
    `${profile.title}: ${meta.file}, budget ${options.budget} tokens, tenant ${options.tenant}, run ${meta.nonce}`,
  );
  printTable([
    ...trackNames.map((name) => ({ name, ...tracks[name] })),
    null,
    { name: `${profile.deadLabel} (${deadCount})`, ...summary.dead_fact_tracks },
    { name: "all tracks", ...summary.all_tracks },
  ]);
  const failed = summary.all_tracks.failed_queries;
  console.log(
    `recall counts attainable must-mention phrases only (${summary.all_tracks.unattainable} of ` +
      `${summary.all_tracks.unattainable + summary.all_tracks.attainable} were never told to the system); ` +
      `naive = every fact value ever written + last ${NAIVE_TURNS} turns; ` +
      "transcript = every conversation turn before the query; " +
      `phrases match as substrings except that numbers match whole ("500" is not in "1500"); ` +
      `substr leak counts plain substrings` +
      (options.distractors
        ? `; ${options.distractors} distractor facts written before each timeline's first query, ` +
          `${summary.all_tracks.excluded} phrases a distractor holds not scored`
        : "") +
      (failed ? `; ${failed} queries not scored (request failed)` : ""),
  );
  console.log(`time: ${meta.seconds.toFixed(1)} s`);
  console.log(`errors: ${errors.length}`);
  for (const e of errors.slice(0, ERROR_SAMPLES)) {
    console.log(`  [${e.label}] ${e.request} -> ${e.status ?? "network error"}: ${e.body.slice(0, 1000)}`);
  }

  if (options.json) {
    const out = {
      file: meta.file,
      url: meta.url,
      tenant: options.tenant,
      budget_tokens: options.budget,
      distractors: options.distractors,
      run: meta.nonce,
      seconds: meta.seconds,
      naive_turns: NAIVE_TURNS,
      tracks,
      ...summary,
      fact_outcomes: tally,
      errors: errors.length,
      error_samples: errors.slice(0, 50),
      queries: results.flatMap((r) =>
        r.queries.map(({ context: _context, ...q }) => ({ ...q, leaks: q.leaked.length > 0 })),
      ),
    };
    writeFileSync(options.json, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${options.json}`);
  }
}

// ---------------------------------------------------------------------------------------------------

/**
 * The command: `profile` names it (`name`, `usage`), titles its report (`title`) and says which tracks
 * are dead tracks (`deadTracks`: a list, or "all"; `deadLabel` names their row).
 */
export function replayMain(profile) {
  replayTimelines(profile, process.argv.slice(2)).catch((error) => {
    console.error(`${profile.name}: ${error?.stack ?? error}`);
    process.exit(1);
  });
}

async function replayTimelines(profile, argv) {
  const errorsOfUsage = usageErrors(profile.name, profile.usage);
  const { fail } = errorsOfUsage;
  const options = readOptions(argv, errorsOfUsage);
  let timelines = loadTimelines(options.file, fail);
  if (options.tracks) timelines = timelines.filter((t) => options.tracks.has(t.track));
  if (options.limit) timelines = timelines.slice(0, options.limit);
  if (!timelines.length) fail("no timelines to replay");

  const distractors = options.distractors ? await distractorFacts(options.distractors) : undefined;
  const errors = [];
  const tally = { duplicates: 0 };
  const nonce = safeId(`${Date.now().toString(36)}${randomBytes(2).toString("hex")}`);
  const started = process.hrtime.bigint();
  let served;
  const results = await withServer(
    profile.name,
    options.url,
    async (url) => {
      served = url;
      process.stderr.write(`replaying ${timelines.length} timelines against ${url}\n`);
      const call = makeClient(url, options.tenant, options.key, errors);
      return replayAll(
        timelines,
        { call, nonce, budget: options.budget, tally, errors, distractors },
        options.concurrency,
      );
    },
    {
      onSignal: (signal) => {
        interrupted = true;
        console.error(`\n${profile.name}: ${signal}, stopping`);
      },
      keepLog: () => errors.length > 0,
    },
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  report(results, errors, tally, options, { file: options.file, url: served, nonce, seconds, profile });
  process.exit(errors.length ? 1 : 0);
}
