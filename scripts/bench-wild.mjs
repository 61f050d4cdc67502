// `npm run bench:wild -- <file.jsonl> [--url http://host:port] [--tenant dev] [--key local-dev-key]
//   [--budget 8000] [--limit N] [--track NAME[,NAME]] [--concurrency 4] [--json out.json] [--verbose]`
//
// Natural timelines in StateBench's format (../shared/data/wild/dev.jsonl: conversation turns and queries
// only, no explicit state writes; updates in everyday wording, assistant echoes of old values,
// hypotheticals, corrections, chit-chat), replayed through Tenure's public HTTP API as bench:statebench
// replays StateBench (scripts/lib/statebench-replay.mjs), with every track a dead-value track: in these
// timelines each must-not-mention phrase is a value that is no longer true. It prints, per track and
// over all of them:
//   - dead-value leak: the share of queries whose compiled context holds any must-not-mention phrase
//     (queries without one count, and cannot leak);
//   - attainable must-mention: the share of must-mention phrases found in the context, counting only the
//     phrases that are actually stated in the timeline's events before the query (said in a turn; the
//     count of the others, answer wording no context can hold, is printed too);
// beside the same two figures for the whole transcript before the query (which leaks in every query
// that has a dead value) and for a naive context (here: the last turns). Phrases match as substrings,
// except that numbers match whole ("500" is not in "1500"). Without --url the local dev server
// (scripts/dev.mjs) is started on a free port and stopped afterwards.
import { REPLAY_OPTIONS, replayMain } from "./lib/statebench-replay.mjs";

replayMain({
  name: "bench-wild",
  usage: `usage: npm run bench:wild -- <file.jsonl> [options]\n${REPLAY_OPTIONS}`,
  title: "natural timelines (StateBench format, every track a dead-value track)",
  deadTracks: "all",
  deadLabel: "dead-value tracks",
});
