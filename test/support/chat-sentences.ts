import { seededRandom } from "../../src/adapters/sqlite-vector-index/seeded-random";

/**
 * Varied chat-like sentences, generated deterministically from a seed, for measuring vector search on
 * realistic text (test/vector-index-ann.test.ts, scripts/bench-vectors.ts). A sentence is an optional
 * opener, one of many clause shapes filled from topic word lists, and sometimes a second clause or a
 * tail, so most sentences of a large corpus are distinct (about 70% of 100,000), and many share words, as a long conversation
 * does: the neighbours of a sentence are the ones about the same people, places and chores.
 */

const words = (text: string) => text.split("|");

const PEOPLE = words(
  "Jonas|Mira|Kofi|Hannah|Ravi|Elena|Sam|Yuki|Tariq|Ines|Priya|Tom|Aiko|Lucas|Grace|Mateo|Nora|Omar|Sofia|Daniel|Leila|Ben|my sister|my brother|my mum|my dad|the landlord|my manager|the neighbours|our accountant",
);
const PLACES = words(
  "the farmers market|the library|Lisbon|the lake house|the gym|Kyoto|the office|the airport|the dentist|the garage|the park|Berlin|the bakery|the hospital|the school|the pharmacy|the cinema|Oslo|the beach|the hardware store|the post office|Barcelona|the museum|the train station",
);
const FOODS = words(
  "ramen|a lentil curry|tacos|shakshuka|a mushroom risotto|pho|banana bread|pancakes|a Greek salad|dumplings|lasagne|fish and chips|a vegetable stir fry|sourdough|chilli con carne|sushi|paella|pad thai|tomato soup|roast chicken",
);
const DAYS = words(
  "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|tomorrow|next week|the weekend|tonight|this afternoon",
);
const TASKS = words(
  "renew my passport|book the dentist|fix the leaking tap|file the expense report|call the insurance company|update my CV|return the library books|plan the team offsite|pay the electricity bill|clean the gutters|order new glasses|back up my laptop|cancel the gym membership|buy a birthday present|service the car|repaint the bedroom|sort out the tax return|water the plants|book train tickets|replace the smoke alarm battery",
);
const TOPICS = words(
  "the budget|the trip|the move|the garden|my running plan|the kids' school|the wedding|the new job|the mortgage|the car repairs|my sleep|the holiday|the renovation|the project deadline|my knee injury|the piano lessons|the visa application|our savings|the quarterly review|the book club",
);
const THINGS = words(
  "umbrella|charger|passport|keys|headphones|jacket|notebook|water bottle|sunglasses|wallet|laptop|bike lock|camera|scarf|tent",
);
const FEELINGS = words(
  "tired|excited|stressed|relieved|nervous|happy|annoyed|calm|overwhelmed|proud|bored|hopeful",
);
const ACTIVITIES = words("ran|swam|cycled|walked|did yoga|lifted weights|hiked|played tennis|climbed|rowed");
const OPENERS = words(
  "By the way,|Quick question:|Honestly,|So,|Okay,|Hey,|Also,|Just so you know,|Thanks!|Right,|Hmm,|Actually,",
);
const TAILS = words(
  "if that makes sense.|no rush though.|what do you think?|can you note that?|remind me later.|it's been a long week.|does that sound okay?|let me know.|I keep forgetting.|fingers crossed.",
);
const CONNECTIVES = words("and|but|so|because|although|while|and then|after that");

type Pick = <T>(list: readonly T[]) => T;

const CLAUSES: ((p: Pick, n: () => number) => string)[] = [
  (p) => `can you remind me to ${p(TASKS)} on ${p(DAYS)}`,
  (p) => `I had dinner with ${p(PEOPLE)} near ${p(PLACES)} and the ${p(FOODS)} was great`,
  (p, n) => `I ${p(ACTIVITIES)} ${2 + (n() % 20)} km this morning, a bit slower than last week`,
  (p) => `what should I cook tonight, I made ${p(FOODS)} yesterday`,
  (p) => `${p(PEOPLE)} wants to meet on ${p(DAYS)}, does that clash with anything`,
  (p) => `I'm worried about ${p(TOPICS)}, can we go over it again`,
  (_p, n) => `we spent $${20 + (n() % 400)} on groceries this week`,
  (p) => `remind me what I said about ${p(TOPICS)} last time`,
  (p) => `I finally managed to ${p(TASKS)}, one thing off the list`,
  (p) => `thinking of visiting ${p(PLACES)} with ${p(PEOPLE)} next month`,
  (_p, n) => `my flight lands at ${5 + (n() % 18)}:${String(n() % 60).padStart(2, "0")}`,
  (p) => `I'm ${p(FEELINGS)} today, ${p(PEOPLE)} kept me up talking about ${p(TOPICS)}`,
  (p) => `I left my ${p(THINGS)} at ${p(PLACES)} again`,
  (p) => `${p(PEOPLE)} recommended ${p(FOODS)} at a place near ${p(PLACES)}`,
  (p, n) => `the appointment at ${p(PLACES)} moved to ${p(DAYS)} at ${1 + (n() % 12)} o'clock`,
  (p) => `I need to ${p(TASKS)} before ${p(TOPICS)} gets in the way`,
  (p) => `${p(PEOPLE)} asked whether we could help with ${p(TOPICS)}`,
  (p) => `noted, I'll remind you to ${p(TASKS)} on ${p(DAYS)} morning`,
  (p) => `that sounds lovely, shall I save the place near ${p(PLACES)} for next time`,
  (p) => `with what you have you could make ${p(FOODS)} or ${p(FOODS)}`,
  (p) => `${p(DAYS)} looks free apart from your appointment at ${p(PLACES)}`,
  (p) => `here's a short summary of ${p(TOPICS)}: nothing is decided yet`,
  (p, n) => `good progress, you ${p(ACTIVITIES)} ${n() % 6} times this week`,
  (p) => `I've added ${p(TASKS)} to your list`,
  (p) => `last time you said you'd rather not rush ${p(TOPICS)} before ${p(DAYS)}`,
  (p) => `it might help to talk to ${p(PEOPLE)} about ${p(TOPICS)}`,
  (p) => `don't forget your ${p(THINGS)} when you go to ${p(PLACES)}`,
  (p) => `I feel ${p(FEELINGS)} about ${p(TOPICS)} and I don't know why`,
  (p, n) => `the ${p(THINGS)} cost ${5 + (n() % 300)} euros at ${p(PLACES)}`,
  (p) => `${p(PEOPLE)} and ${p(PEOPLE)} are coming over on ${p(DAYS)} for ${p(FOODS)}`,
];

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `count` sentences from `seed`; the same arguments always give the same list. */
export function chatSentences(count: number, seed: number): string[] {
  const chance = seededRandom(seed);
  const pick: Pick = (list) => list[Math.floor(chance() * list.length)] as never;
  const number = () => Math.floor(chance() * 1000);
  const clause = () => (pick(CLAUSES) as (p: Pick, n: () => number) => string)(pick, number);
  return Array.from({ length: count }, () => {
    let text = clause();
    if (chance() < 0.3) text = `${text} ${pick(CONNECTIVES)} ${clause()}`;
    if (chance() < 0.3) text = `${pick(OPENERS)} ${text}`;
    text = capitalised(text);
    return chance() < 0.25 ? `${text}, ${pick(TAILS)}` : `${text}.`;
  });
}
