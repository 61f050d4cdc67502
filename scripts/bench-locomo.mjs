// `npm run bench:locomo -- <conversation.json | folder | BEAM chat folder> [--budgets 1000,2000]
//   [--url http://host:port] [--tenant dev] [--key local-dev-key] [--concurrency 4] [--limit N] [--json]`
//
// Evidence recall on LoCoMo. Each conversation is ingested into a fresh thread through Tenure's public
// HTTP API (each session's turns as messages, timed from the session's date); once extraction has
// drained, a context is compiled for every non-adversarial question at each budget. A question's
// evidence recall is the share of its evidence turns whose text appears in the compiled context;
// figures are means over questions, per question category and overall. Two baselines are computed
// locally over the same turns at the same budgets: BM25 ranking of turns and recency (the latest turns
// that fit). Given a folder, every `*.json` in it is a conversation (a file holding a list of samples,
// as the data set's locomo10.json, counts as a folder of them): each is reported, then all are
// micro-averaged (every scored question of every conversation counts once) with one line per
// conversation. Given one sample's file, that conversation alone, as before; given a BEAM chat folder
// (holding chat.json), that chat (bench:beam reads a folder of them). --limit N asks only the first N
// questions of each conversation, for a quick slice. One server serves the whole run: without --url
// the local dev server (scripts/dev.mjs) is started on a free port and stopped afterwards. Exit code 1
// when a conversation of a folder failed (it is named and left out of the averages).
import { loadBeamChat } from "./lib/beam-chat.mjs";
import {
  evidenceBenchMain,
  evidenceUsage,
  isBeamChat,
  isDirectory,
  jsonFiles,
  loadLocomoFile,
} from "./lib/evidence-bench.mjs";

const BUDGETS = "1000,2000";
const USAGE = `usage: npm run bench:locomo -- <conversation.json | folder of them | beam chat folder> [options]
${evidenceUsage(BUDGETS)}`;

/** The conversations a path holds, each loaded when its turn comes. */
function sources(path) {
  if (isBeamChat(path))
    return { many: false, conversations: [{ name: path, load: () => loadBeamChat(path) }] };
  if (!isDirectory(path)) return readLocomo(path);
  return {
    many: true,
    conversations: jsonFiles(path).flatMap((file) => readLocomo(file).conversations),
  };
}

/** A file's conversations; a file that cannot be read is one conversation that fails when loaded. */
function readLocomo(file) {
  try {
    return loadLocomoFile(file);
  } catch (error) {
    return {
      many: false,
      conversations: [
        {
          name: file,
          load: () => {
            throw error;
          },
        },
      ],
    };
  }
}

evidenceBenchMain({
  name: "bench-locomo",
  label: "locomo",
  usage: USAGE,
  defaultBudgets: BUDGETS,
  sources,
});
