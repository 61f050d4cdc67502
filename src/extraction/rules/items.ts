import type { Confidence, StateItemType } from "../../items/types";
import { keyHead } from "./slots/subject-keys";
import { capitalize, contentWords } from "./text";
import { DATE } from "./values";

/**
 * Typed state items (seed 002) from one sentence: decision, constraint, action, question or risk, or
 * nothing. A sentence that only states a slot value ("The project budget is $50,000") is a fact, not
 * an item; items are what the conversation decided, requires, will do, asks or worries about.
 *
 * Order of tests: explicit labels ("TODO:", "Risk:", "Decision:"), requests ("Can you …?" → action),
 * questions, risks, decisions, constraints, actions. Text is the sentence without fillers and
 * "Let's", so "Let's use Redis for caching" becomes "Use Redis for caching".
 */
export interface ItemReading {
  type_tag: StateItemType;
  text: string;
  status: string;
  confidence: Confidence;
  topic_tags: string[];
}

export interface ItemContext {
  question: boolean;
  request: boolean;
  tentative: boolean;
  hypothetical: boolean;
  /** Slot keys read from the same sentence; the first is the strongest topic tag. */
  slotKeys: string[];
}

const LABELS: [RegExp, StateItemType, string][] = [
  [
    /^(?:todo|to-do|to do|action item|action|ai|next step|next steps|follow[- ]up)\s*[:-]\s*(.+)$/i,
    "action",
    "open",
  ],
  [/^(?:done|completed)\s*[:-]\s*(.+)$/i, "action", "done"],
  [/^(?:risk|risks|concern|warning|blocker|danger)\s*[:-]\s*(.+)$/i, "risk", "active"],
  [/^(?:decision|decided|resolution|agreed)\s*[:-]\s*(.+)$/i, "decision", "active"],
  [/^(?:constraint|requirement|rule|policy|limit|must)\s*[:-]\s*(.+)$/i, "constraint", "active"],
  [/^(?:question|open question|q)\s*[:-]\s*(.+)$/i, "question", "open"],
];

const RISK =
  /\b(?:risk|risks|risky|at risk|concern|concerned|concerning|worried|worry|vulnerab\w*|exposure|exposed|threat|dangerous|danger|blocker|blocking issue|liabilit\w*|litigation|lawsuit|breach\w*|outage|downtime|single point of failure|data loss|might (?:fail|break|slip|not make)|could (?:fail|break|slip|delay)|may (?:fail|break|slip)|no (?:rate limit\w*|backups?|monitoring|tests?|redundancy|encryption|failover|rollback plan))\b/i;
/** "As the auditor, I need to see …": a request that mentions a risk is not a risk. */
const ASKING =
  /^(?:[^,]{0,40},\s*)?(?:i|we)\s+(?:need|want|would like|'d like)\s+to\s+(?:see|know|get|access|review|look at|check)\b/i;
const DECISION =
  /\b(?:let'?s (?:use|go with|adopt|switch|choose|pick|proceed|stick|keep|go back|move forward|do|try|hold off|cancel|drop|pause|skip|postpone|approve|make)|we(?:'ll| will| are going to|'re going to)? (?:use|adopt|go with|switch to|choose|pick|proceed with|stick with|standardi[sz]e on)|we(?:'ve| have)? decided|decided (?:to|on)|we agreed|agreed (?:to|on)|we(?:'re| are) going with|we(?:'re| are) proceeding|approved|finali[sz]ed|signed off|the (?:official )?plan is|going forward|we(?:'ll| will) be doing|the decision is|opted (?:for|to)|overrid\w*|rescind\w*|we(?:'re| are) (?:switching|moving) to|we(?:'ve| have)? (?:switched|moved|migrated) to|(?:we|i) no longer (?:use|need|want|support|offer))\b/i;
const CONSTRAINT =
  /\b(?:must|must not|mustn'?t|cannot|can'?t|can not|shall not|may not|not allowed|not permitted|prohibited|no more than|no less than|at most|at least|maximum|minimum|capped|cap(?:ped)? at|limit(?:ed)? to|under \$|below \$|within (?:the )?budget|stay (?:under|below|within)|requires?|required|mandatory|non-negotiable|needs? (?:\w+ )?approval|only if|no later than|hard deadline|deadline|due (?:by|on)|compliance|policy)\b/i;
const ACTION_LEAD =
  /^(?:i'?ll|i will|i'?m going to|i am going to|we'?ll|we will|we need to|i need to|need to|we have to|i have to|we should|please|remember to|don'?t forget to|make sure(?: to| that)?|remind me to|let me (?:send|schedule|book|draft|prepare|check|follow|email|call|set up)|action item)\b/i;
/** Verbs that open a command ("Send the invoice", "Book the room"); instruction-mood.ts reads them too. */
export const COMMAND_VERBS =
  "send|schedule|book|call|email|ship|create|fix|add|remove|renew|order|set up|migrate|write|file|submit|notify|ask|contact|follow up|review|check|prepare|update|deploy|run|draft|reset|export|import|reach out|confirm|escalate|assign|investigate|document|verify|test|install|configure|upgrade|delete|archive|merge|release|publish|share|invite|arrange|organize|organise|finalize|finalise|sign|pay|invoice|buy|purchase|hire|onboard|train|resolve|close|look into|find|get|ensure|coordinate|negotiate|resume|start|begin|move|push|cancel|hold off|pause|stop|drop|prioritize|prioritise|allocate|approve|give|offer|prepare|plan|build|ship|implement|respond|reply|tell|inform|loop in|cc|block|unblock|freeze|reschedule";
// "Build #1234 passed": a word before a number sign names a thing, it does not command.
const IMPERATIVE = new RegExp(`^(?!\\w+(?:\\s+\\w+)?\\s*:)(?!\\w+\\s+#\\s?\\d)(?:${COMMAND_VERBS})\\b`, "i");
const DECISION_IMPERATIVE =
  /^(?:cancel|hold off|pause|stop|drop|prioritize|prioritise|approve|freeze|allocate)\b/i;
const DONE =
  /^(?:i|we)(?:'ve| have)?\s+(?:already\s+|just\s+)?(?:sent|finished|completed|deployed|merged|shipped|ran|run|fixed|scheduled|booked|submitted|filed|resolved|closed|paid|signed|done|migrated|updated)\b/i;
const BLOCKED = /\bblocked (?:on|by)\b|\bwaiting (?:on|for)\b/i;
const STRONG_DECISION = /\b(?:decided|agreed|finali[sz]ed|approved|signed off|official|overrid\w*)\b/i;
const ACK_ONLY =
  /^(?:ok(?:ay)?|thanks?(?: you)?|great|perfect|sounds good|got it|noted|cool|sure|yes|no|yep|nope|understood|fine|agreed|right|correct|will do|done)[.!]*$/i;

const LEAD_STRIP =
  /^(?:let'?s|let us|please|can you|could you|would you|will you|todo|to-do|action item|action)\s*[:,-]?\s+/i;

const TOPICS: [string, RegExp][] = [
  ["caching", /\b(?:cach\w*|redis|memcached|cdn)\b/i],
  ["database", /\b(?:database|db|postgres\w*|mysql|sqlite|mongo\w*|schema|migrations?)\b/i],
  ["budget", /\b(?:budget\w*|spend\w*|funding|allocation)\b|[$€£]\s?\d/i],
  ["pricing", /\b(?:pric\w*|discount\w*|quotes?|per unit|rates?)\b/i],
  ["schedule", /\b(?:deadline|due|launch\w*|timeline|schedul\w*|dates?)\b/i],
  ["meeting", /\b(?:meeting|sync|standup|stand-up|invites?)\b/i],
  [
    "security",
    /\b(?:security|secure|mfa|2fa|breach\w*|vulnerab\w*|encrypt\w*|password\w*|credential\w*|api keys?|tokens?)\b/i,
  ],
  ["auth", /\b(?:auth\w*|oauth|sso|login|sign[- ]in)\b/i],
  ["vendor", /\b(?:vendor\w*|supplier\w*|contracts?|procure\w*|rfp|renew\w*)\b/i],
  ["hiring", /\b(?:hir\w*|recruit\w*|headcount|candidates?|offer letters?|onboard\w*|engineers?)\b/i],
  ["hr", /\b(?:pto|vacation|salar\w*|compensation|benefits|in office|remote work|performance reviews?)\b/i],
  ["deployment", /\b(?:deploy\w*|releases?|rollout|roll out|rollback|staging|production)\b/i],
  ["testing", /\b(?:tests?|testing|qa|beta)\b/i],
  ["api", /\b(?:api|endpoints?|rate limit\w*)\b/i],
  ["design", /\b(?:design|ui|ux|theme|layout)\b/i],
  ["shipping", /\b(?:ship\w*|deliver\w*|packages?|warehouse|freight)\b/i],
  ["legal", /\b(?:legal|litigation|lawsuit|gdpr|soc ?2)\b/i],
  ["priority", /\b(?:priorit\w*)\b/i],
  ["orders", /\b(?:orders?|purchase orders?|po)\b/i],
  ["customer", /\b(?:customers?|clients?)\b/i],
];

/** Keys that name no topic of their own. */
const UNTOPICAL_KEYS = new Set(["decision", "choice", "plan", "preference", "status"]);
const MAX_TAGS = 3;

export function topicTags(text: string, slotKeys: string[]): string[] {
  const tags: string[] = [];
  const add = (tag: string) => {
    const t = tag.toLowerCase().slice(0, 40);
    if (t && !tags.includes(t) && tags.length < MAX_TAGS) tags.push(t);
  };
  for (const key of slotKeys) {
    if (UNTOPICAL_KEYS.has(key)) continue;
    add(keyHead(key));
  }
  for (const [tag, pattern] of TOPICS) if (pattern.test(text)) add(tag);
  if (tags.length === 0) {
    const proper = /(?:^|\s)(?:[a-z]+\s+)+([A-Z][A-Za-z0-9]+)/.exec(text)?.[1];
    if (proper) add(proper);
    else {
      const words = contentWords(text).filter((w) => w.length > 3 && !/\d/.test(w) && !DATE.test(w));
      const longest = words.reduce((a, b) => (b.length > a.length ? b : a), "");
      if (longest) add(longest);
    }
  }
  return tags;
}

function itemText(sentence: string, keepQuestionMark: boolean): string {
  let text = sentence.trim();
  for (let i = 0; i < 2; i++) text = text.replace(LEAD_STRIP, "");
  text = keepQuestionMark ? text.replace(/[.!]+$/, "") : text.replace(/[.!?]+$/, "");
  return capitalize(text.trim()).slice(0, 300);
}

/** Concrete enough to keep: two content words at least ("I'm overriding that" is not). */
function worthKeeping(text: string): boolean {
  return text.length >= 8 && contentWords(text).length >= 2 && !ACK_ONLY.test(text);
}

/** Reads at most one item from a sentence (already stripped of fillers and speaker tags). */
export function readItem(sentence: string, ctx: ItemContext): ItemReading | null {
  const s = sentence.trim();
  if (!s || ACK_ONLY.test(s)) return null;
  const lowConfidence: Confidence = ctx.tentative || ctx.hypothetical ? "low" : "medium";
  const make = (
    type: StateItemType,
    text: string,
    status: string,
    confidence: Confidence,
  ): ItemReading | null => {
    if (!worthKeeping(text)) return null;
    return { type_tag: type, text, status, confidence, topic_tags: topicTags(text, ctx.slotKeys) };
  };

  for (const [pattern, type, status] of LABELS) {
    const m = pattern.exec(s);
    if (m) {
      const keepQ = type === "question";
      return make(type, itemText(m[1] ?? "", keepQ), status, ctx.hypothetical ? "low" : "high");
    }
  }
  if (ctx.question) {
    if (ctx.request) return make("action", itemText(s, false), "open", lowConfidence);
    return make("question", itemText(s, true), "open", ctx.hypothetical ? "low" : "medium");
  }
  if (RISK.test(s) && !ASKING.test(s)) return make("risk", itemText(s, false), "active", lowConfidence);
  if (DECISION.test(s) || DECISION_IMPERATIVE.test(s)) {
    const confidence: Confidence =
      ctx.tentative || ctx.hypothetical ? "low" : STRONG_DECISION.test(s) ? "high" : "medium";
    return make("decision", itemText(s, false), "active", confidence);
  }
  if (CONSTRAINT.test(s)) {
    return make("constraint", itemText(s, false), "active", ctx.hypothetical ? "low" : "high");
  }
  if (DONE.test(s)) return make("action", itemText(s, false), "done", "medium");
  if (ACTION_LEAD.test(s) || IMPERATIVE.test(s)) {
    return make("action", itemText(s, false), BLOCKED.test(s) ? "blocked" : "open", lowConfidence);
  }
  return null;
}
