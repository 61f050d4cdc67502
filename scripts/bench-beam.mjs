// `npm run bench:beam -- <folder of chat-N/ | chat folder> [--budgets 2000,8000] [--url http://host:port]
//   [--tenant dev] [--key local-dev-key] [--concurrency 4] [--limit N] [--json]`
//
// Evidence recall on BEAM chats (each chat-N/ holds chat.json and probing_questions.json; read by
// scripts/lib/beam-chat.mjs: user and assistant turns dated from their time anchors, contents over the
// schema's 100,000 characters cut to it and scored as cut). Each chat is ingested into a fresh thread
// through Tenure's public HTTP API; once extraction has drained, a context is compiled for every probing
// question that names source turns (`source_chat_ids`; abstention questions name none and are not
// scored) at each budget. Per chat and micro-averaged over every scored question of every chat:
//   - evidence recall: the share of a question's source turns whose whole text appears in the context,
//     mean over questions, per probing category and overall, beside BM25 ranking of the same turns and
//     recency (the newest turns), both filled to the same budget;
//   - knowledge updates (category knowledge_update; `source_chat_ids` = {original_info, updated_info}):
//     "updated turn present", the share of those questions whose updated turn is in the context, and
//     "only the stale turn present", the share whose original turn is there without the update; for
//     Tenure and the same baselines.
// Given a chat folder (holding chat.json), that chat alone. --limit N asks only the first N questions
// of each chat (in probing_questions.json's order), for a quick slice. One server serves the whole
// run: without --url the local dev server (scripts/dev.mjs) is started on a free port and stopped
// afterwards. A chat the service refuses (say, a message over its size bound) is named as FAILED, left
// out of the averages, and makes the exit code 1.
import { loadBeamChat } from "./lib/beam-chat.mjs";
import { beamChatFolders, evidenceBenchMain, evidenceUsage, isDirectory } from "./lib/evidence-bench.mjs";

const BUDGETS = "2000,8000";
const USAGE = `usage: npm run bench:beam -- <folder of BEAM chats | one chat folder> [options]
${evidenceUsage(BUDGETS)}`;

function sources(path) {
  const folders = isDirectory(path) ? beamChatFolders(path) : [];
  return { many: true, conversations: folders.map((dir) => ({ name: dir, load: () => loadBeamChat(dir) })) };
}

evidenceBenchMain({
  name: "bench-beam",
  label: "beam",
  usage: USAGE,
  defaultBudgets: BUDGETS,
  sources,
});
