// `npm run bench:statebench -- <file.jsonl> [--url http://host:port] [--tenant dev] [--key local-dev-key]
//   [--budget 8000] [--limit N] [--track NAME[,NAME]] [--concurrency 4] [--json out.json] [--verbose]`
//
// Replays StateBench timelines through Tenure's public HTTP API (one project and one thread per timeline)
// and scores the compiled context of every query without an LLM, per track, over the dead-fact tracks
// (supersession, supersession_detection, repair_propagation, environmental_freshness, scope_leak,
// scope_permission, enterprise_privacy: there a must-not-mention phrase is a dead or forbidden fact) and
// over all tracks: recall of the attainable must-mention phrases (those the timeline told the system
// before the query), the share of queries whose context holds a must-not-mention phrase, and the
// context size. A naive context (every fact value ever written plus the last turns) and the transcript
// (every turn before the query) are scored alongside for scale (scripts/lib/statebench-replay.mjs).
// Without --url the local dev server (scripts/dev.mjs) is started on a free port and stopped afterwards.
import { REPLAY_OPTIONS, replayMain, STATEBENCH_DEAD_TRACKS } from "./lib/statebench-replay.mjs";

replayMain({
  name: "bench-statebench",
  usage: `usage: npm run bench:statebench -- <file.jsonl> [options]\n${REPLAY_OPTIONS}`,
  title: "StateBench replay",
  deadTracks: STATEBENCH_DEAD_TRACKS,
  deadLabel: "dead-fact tracks",
});
