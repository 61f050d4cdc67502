// Deterministic, varied filler for scripts/bench-scale.ts: the facts an organisation accumulates
// (customers' preferences, policies, contracts, owners, infrastructure, decisions) and the turns of a
// long everyday conversation, with the planted facts and messages whose recall the bench checks.
// No filler text contains a planted fact's distinctive word.
import { random } from "./compile-fixture";

export { random };

type Pick = <T>(list: readonly T[]) => T;

export function picker(seed: number): { chance: () => number; pick: Pick } {
  const chance = random(seed);
  return { chance, pick: (list) => list[Math.floor(chance() * list.length)] as never };
}

const COMPANIES = [
  "Northwind",
  "Globex",
  "Initech",
  "Umbrella Foods",
  "Stark Logistics",
  "Wayne Health",
  "Acme Tools",
  "Hooli",
  "Vandelay Imports",
  "Soylent Labs",
  "Cyberdyne",
  "Tyrell Media",
  "Wonka Retail",
  "Oceanic Air",
  "Gringotts Credit",
  "Monarch Dental",
  "Blue Sun",
  "Pied Piper",
];
const PEOPLE = [
  "Priya Raman",
  "Tom Becker",
  "Aiko Tanaka",
  "Lucas Moreau",
  "Grace Obi",
  "Mateo Silva",
  "Nora Lindqvist",
  "Omar Haddad",
  "Sofia Rossi",
  "Daniel Kim",
  "Leila Farouk",
  "Ben Adeyemi",
];
const TEAMS = ["billing", "search", "payments", "mobile", "data platform", "support", "security", "growth"];
const CHANNELS = [
  "email, weekly digest only",
  "phone calls before 10am Pacific",
  "Slack Connect channel",
  "their account manager, never the generic inbox",
  "SMS for outages, email for everything else",
  "a monthly review call",
];
const REGIONS = ["us-east-1", "eu-central-1", "ap-southeast-2", "eu-west-2", "us-west-2", "ca-central-1"];
const SYSTEMS = ["Postgres 16", "Redis 7", "Kafka", "BigQuery", "ClickHouse", "Snowflake", "DynamoDB"];
const POLICIES = [
  (n: number) => `Expense reports over $${n},000 need a director's approval`,
  (n: number) => `Production database access expires after ${n} days unless renewed`,
  (n: number) => `Customer data exports must be encrypted and deleted after ${n} days`,
  (n: number) => `Refunds on annual plans are allowed within ${n} days of renewal`,
  (n: number) => `On-call engineers get ${n} hours of rest after a night page`,
  (n: number) => `Laptops must lock after ${n} minutes idle`,
  (n: number) => `Vendor invoices are paid net ${n * 5}`,
  (n: number) => `Discounts above ${n * 5}% need sign-off from finance`,
];
const DECISIONS = [
  "moved the nightly batch to a streaming pipeline",
  "dropped support for Internet Explorer",
  "standardised on OpenTelemetry for tracing",
  "keep feature flags for at most one quarter",
  "route enterprise tickets to the priority queue",
  "use semantic versioning for the public SDKs",
  "freeze deploys during the last week of the quarter",
  "publish the status page from the secondary region",
];

export interface FactEventBody {
  type: "fact";
  id: string;
  key: string;
  value: string;
  ts: string;
  source?: { type: "policy" };
}

/**
 * The i-th filler fact: the thread's user's own, or with probability `policyShare` shared policy
 * (`source: {type: "policy"}`); about one in ten restates an earlier key with a new value (an update).
 */
export function fillerFact(
  i: number,
  ts: string,
  pick: Pick,
  chance: () => number,
  policyShare = 0,
): FactEventBody {
  const n = 2 + Math.floor(chance() * 28);
  const account = 10_000 + (chance() < 0.1 && i > 20 ? Math.floor(chance() * i) : i);
  let key: string;
  let value: string;
  switch (i % 6) {
    case 0:
      key = `customer_${account}_preferred_contact`;
      value = `${pick(COMPANIES)} (account ${account}) prefers ${pick(CHANNELS)}`;
      break;
    case 1:
      key = `policy_${pick(TEAMS).replace(" ", "_")}_${account}`;
      value = pick(POLICIES)(n);
      break;
    case 2:
      key = `contract_${account}_renewal`;
      value = `Contract ${account} with ${pick(COMPANIES)} renews on 2027-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")} at $${n * 4},000 a year`;
      break;
    case 3:
      key = `owner_${pick(TEAMS).replace(" ", "_")}_job_${account}`;
      value = `${pick(PEOPLE)} owns the ${pick(TEAMS)} job ${account}; backup is ${pick(PEOPLE)}`;
      break;
    case 4:
      key = `infra_service_${account}`;
      value = `Service ${account} (${pick(TEAMS)}) runs in ${pick(REGIONS)} on ${pick(SYSTEMS)}`;
      break;
    default:
      key = `decision_${account}`;
      value = `On review ${account} the ${pick(TEAMS)} team decided to ${pick(DECISIONS)}`;
  }
  const event: FactEventBody = { type: "fact", id: `f${i}`, key, value, ts };
  if (policyShare > 0 && chance() < policyShare) event.source = { type: "policy" };
  return event;
}

export interface Planted {
  position: "oldest" | "middle" | "newest";
  /** The event's content: a fact's value or a message's text. */
  text: string;
  key: string;
  question: string;
  /** Found when the compiled context contains this. */
  expect: string;
}

/** Facts planted at the oldest, middle and newest positions, as the thread's user's own facts. */
export const PLANTED_FACTS: Planted[] = [
  {
    position: "oldest",
    key: "warehouse_location",
    text: "Our warehouse is in Tacoma",
    question: "Where is our warehouse?",
    expect: "Tacoma",
  },
  {
    position: "middle",
    key: "escrow_agent",
    text: "Our escrow agent is Larkspur Title of Boise",
    question: "Who is our escrow agent?",
    expect: "Larkspur",
  },
  {
    position: "newest",
    key: "office_wifi_network",
    text: "The office wifi network is called Heron-Guest-7",
    question: "What is the office wifi network called?",
    expect: "Heron-Guest-7",
  },
];

/** Queries about the filler facts, for the latency rounds. */
export const FACT_QUERIES = [
  "How does Northwind prefer to be contacted?",
  "Which expense reports need a director's approval?",
  "When does the Globex contract renew?",
  "Who owns the billing jobs?",
  "Which region does the payments service run in?",
  "What did the security team decide about tracing?",
  "What is our refund policy on annual plans?",
  "Who is the backup owner for the data platform jobs?",
  "Which services run on ClickHouse?",
  "How long can production database access last?",
];

// ---------------------------------------------------------------------------------------------------
// Messages

const FRIENDS = ["Jonas", "Mira", "Kofi", "Hannah", "Ravi", "Elena", "Sam", "Yuki", "Tariq", "Ines"];
const PLACES = [
  "the farmers market",
  "the library",
  "Lisbon",
  "the lake house",
  "the gym",
  "Kyoto",
  "the office",
];
const FOODS = ["ramen", "a lentil curry", "tacos", "shakshuka", "a mushroom risotto", "pho", "banana bread"];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const TASKS = [
  "renew my passport",
  "book the dentist",
  "fix the leaking tap",
  "file the expense report",
  "call the insurance company",
  "update my CV",
  "return the library books",
  "plan the team offsite",
];
const TOPICS = ["the budget", "the trip", "the move", "the garden", "my running plan", "the kids' school"];

const USER_TURNS: ((p: Pick, n: number) => string)[] = [
  (p) => `Can you remind me to ${p(TASKS)} on ${p(DAYS)}?`,
  (p) => `I had dinner with ${p(FRIENDS)} at a new place near ${p(PLACES)}, the ${p(FOODS)} was great.`,
  (_p, n) => `I ran ${3 + (n % 9)} km this morning, a bit slower than last week.`,
  (p) => `What should I cook tonight? I have rice, eggs and spinach, and I made ${p(FOODS)} yesterday.`,
  (p) => `${p(FRIENDS)} wants to meet on ${p(DAYS)}, does that clash with anything?`,
  (p) => `I'm worried about ${p(TOPICS)}, can we go over it again?`,
  (_p, n) => `We spent $${40 + (n % 160)} on groceries this week.`,
  (p) => `Remind me what I said about ${p(TOPICS)} last time.`,
  (p) => `I finally managed to ${p(TASKS)}, one thing off the list.`,
  (p) => `Thinking of visiting ${p(PLACES)} with ${p(FRIENDS)} next month.`,
  (_p, n) => `My flight lands at ${6 + (n % 14)}:${n % 2 ? "30" : "15"}, can you note that?`,
  (p) => `Honestly I'm tired today, ${p(FRIENDS)} kept me up talking about ${p(TOPICS)}.`,
];
const ASSISTANT_TURNS: ((p: Pick, n: number) => string)[] = [
  (p) => `Noted. I'll remind you to ${p(TASKS)} on ${p(DAYS)} morning.`,
  (p) => `That sounds lovely. Would you like me to save the place near ${p(PLACES)} for next time?`,
  (p) => `With rice, eggs and spinach you could make a quick fried rice, or ${p(FOODS)} if you have time.`,
  (p) => `${p(DAYS)} looks free apart from your morning run.`,
  (p) => `Here's a short summary of ${p(TOPICS)} so far: nothing is decided yet, two options are open.`,
  (_p, n) => `Good progress: that's ${n % 5} sessions this week. Keep the easy days easy.`,
  (p) => `I've added ${p(TASKS)} to your list.`,
  (p) => `Sure. Last time you said you'd rather not rush ${p(TOPICS)} before ${p(DAYS)}.`,
];

/** The i-th filler turn of a conversation: the user speaks on even turns, the assistant on odd ones. */
export function fillerMessage(i: number, ts: string, pick: Pick) {
  const user = i % 2 === 0;
  const turns = user ? USER_TURNS : ASSISTANT_TURNS;
  const content = (turns[Math.floor(i / 2) % turns.length] as (p: Pick, n: number) => string)(pick, i);
  return {
    type: "message" as const,
    id: `m${i}`,
    role: user ? ("user" as const) : ("assistant" as const),
    ...(user ? { speaker: "Ada" } : {}),
    content,
    ts,
  };
}

/** Messages planted at the oldest, middle and newest positions, each stating one distinctive fact. */
export const PLANTED_MESSAGES: Planted[] = [
  {
    position: "oldest",
    key: "storage_gate_code",
    text: "By the way, the gate code for the storage unit is 4471-Juniper.",
    question: "What is the gate code for the storage unit?",
    expect: "Juniper",
  },
  {
    position: "middle",
    key: "physiotherapist",
    text: "My physiotherapist is Dr. Okonkwo, she sees me at the Pinecrest clinic on Tuesdays.",
    question: "Who is my physiotherapist?",
    expect: "Okonkwo",
  },
  {
    position: "newest",
    key: "landlord",
    text: "Our landlord is Mr. Castellanos and he wants the rent by the 3rd.",
    question: "What is our landlord's name?",
    expect: "Castellanos",
  },
];

/** Queries about the conversation, for the latency rounds. */
export const MESSAGE_QUERIES = [
  "What did I cook recently?",
  "When does my flight land?",
  "What's on my to-do list?",
  "How much did we spend on groceries?",
  "Who did I have dinner with?",
  "What did I say about the budget?",
  "How far did I run this week?",
  "Am I free on Thursday?",
  "Where am I thinking of travelling next month?",
  "What should I be reminded about?",
];

/** Where the planted events go among `count`: first, middle, last. */
export function plantedIndex(position: Planted["position"], count: number): number {
  return position === "oldest" ? 0 : position === "middle" ? Math.floor(count / 2) : count - 1;
}

// ---------------------------------------------------------------------------------------------------
// Fresh questions

const QUESTION_FORMS: ((topic: string) => string)[] = [
  (t) => `What did I say about ${t}?`,
  (t) => `Remind me what we settled on for ${t}.`,
  (t) => `Is there anything new about ${t}?`,
  (t) => `When did ${t} last come up?`,
  (t) => `Summarise where things stand with ${t}.`,
  (t) => `Did anyone mention ${t} recently?`,
];
/** The named things of the fact filler (companies, teams, people), as an entity registry would hold them. */
export const FILLER_ENTITIES = { companies: COMPANIES, teams: TEAMS.map((t) => `${t} team`), people: PEOPLE };

/** Topics of the fresh questions, by scenario: the filler's own vocabulary, so they can match something. */
const QUESTION_TOPICS = {
  facts: [...COMPANIES, ...TEAMS.map((t) => `the ${t} team`), ...SYSTEMS, ...REGIONS, ...PEOPLE],
  messages: [...FRIENDS, ...PLACES, ...FOODS, ...TASKS.map((t) => `my plan to ${t}`), ...TOPICS, ...DAYS],
};

/**
 * `count` questions none of which repeats another or any of `asked`: an agent's questions are new more
 * often than not, and a bench that cycles through ten of them times warm per-query caches instead.
 * Topic by topic, each in a rotating form; past every (form, topic) pair, a day is named too.
 */
export function freshQuestions(kind: keyof typeof QUESTION_TOPICS, count: number, asked: string[]): string[] {
  const topics = QUESTION_TOPICS[kind];
  const seen = new Set(asked);
  const questions: string[] = [];
  for (let i = 0; questions.length < count; i++) {
    const form = QUESTION_FORMS[(i + Math.floor(i / topics.length)) % QUESTION_FORMS.length] as (
      t: string,
    ) => string;
    const pass = Math.floor(i / (topics.length * QUESTION_FORMS.length));
    const topic = topics[i % topics.length] as string;
    const question = form(pass === 0 ? topic : `${topic} around ${DAYS[pass % DAYS.length]} week ${pass}`);
    if (!seen.has(question)) {
      seen.add(question);
      questions.push(question);
    }
  }
  return questions;
}
