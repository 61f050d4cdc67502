/**
 * Reads the time a question is about. "When did…" questions need each retrieved message's date in the
 * context, since the answer is often only the date the thing was said (the compiler renders retrieved
 * messages under the day they were said, src/compiler/transcript.ts); a named period ("yesterday",
 * "last week", "in May", "last year", "in 2022") narrows which messages are preferred. Periods are
 * resolved against the compile's `now`, in UTC, as half-open [from, to) instants.
 */
export interface Period {
  from: string;
  to: string;
}

export interface TimeQuery {
  asksWhen: boolean;
  period: Period | null;
}

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
const MONTH_PATTERN = MONTHS.map((m) => `${m}|${m.slice(0, 3)}`).join("|");
const DAY = 86_400_000;

const ASKS_WHEN =
  /\b(when|what (?:day|date|time|year|month|week)|which (?:day|date|year|month|week)|how long ago|since when)\b/i;

export function readTimeQuery(query: string, now: string): TimeQuery {
  const at = Date.parse(now);
  return { asksWhen: ASKS_WHEN.test(query), period: Number.isFinite(at) ? namedPeriod(query, at) : null };
}

function namedPeriod(query: string, at: number): Period | null {
  const text = query.toLowerCase();
  const today = startOfDay(at);
  if (/\byesterday\b/.test(text)) return span(today - DAY, today);
  if (/\btoday\b/.test(text)) return span(today, today + DAY);
  const weekStart = today - ((new Date(today).getUTCDay() + 6) % 7) * DAY;
  if (/\blast week\b/.test(text)) return span(weekStart - 7 * DAY, weekStart);
  if (/\bthis week\b/.test(text)) return span(weekStart, weekStart + 7 * DAY);
  const date = new Date(at);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (/\blast month\b/.test(text)) return span(Date.UTC(year, month - 1, 1), Date.UTC(year, month, 1));
  if (/\bthis month\b/.test(text)) return span(Date.UTC(year, month, 1), Date.UTC(year, month + 1, 1));
  if (/\blast year\b/.test(text)) return span(Date.UTC(year - 1, 0, 1), Date.UTC(year, 0, 1));
  if (/\bthis year\b/.test(text)) return span(Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1));
  const named = new RegExp(
    `\\b(?:in|during|since|of|early|late|mid)\\s+(${MONTH_PATTERN})\\b\\.?(?:,?\\s+(\\d{4}))?`,
  ).exec(text);
  if (named?.[1]) {
    const index = MONTHS.findIndex((m) => named[1] === m || named[1] === m.slice(0, 3));
    // Without a year, "in May" is the latest May that has begun by now.
    const namedYear = named[2] ? Number(named[2]) : index <= month ? year : year - 1;
    return span(Date.UTC(namedYear, index, 1), Date.UTC(namedYear, index + 1, 1));
  }
  const yearOnly = /\b(?:in|during|of)\s+((?:19|20)\d{2})\b/.exec(text);
  if (yearOnly?.[1]) {
    const y = Number(yearOnly[1]);
    return span(Date.UTC(y, 0, 1), Date.UTC(y + 1, 0, 1));
  }
  return null;
}

export function inPeriod(ts: string, period: Period): boolean {
  return ts >= period.from && ts < period.to;
}

/** "8 May 2023": the form people ask and answer dates in. */
export function humanDate(ts: string): string {
  const date = new Date(ts);
  if (Number.isNaN(date.getTime())) return ts;
  const month = MONTHS[date.getUTCMonth()] ?? "";
  return `${date.getUTCDate()} ${month.charAt(0).toUpperCase()}${month.slice(1)} ${date.getUTCFullYear()}`;
}

function startOfDay(at: number): number {
  return at - (((at % DAY) + DAY) % DAY);
}

function span(from: number, to: number): Period {
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}
