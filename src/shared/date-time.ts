/**
 * RFC 3339 §5.6 date-times, read one way everywhere a timestamp comes in (record fields, query parameters, CLI
 * options). Strict on the spelling the interface serves: upper-case `T` and `Z`, an offset as ±HH:MM, no leap
 * second. Ajv's `date-time` also takes a space, lower case, `+05`, `+0500` and `23:59:60`, which Date.parse
 * rejects (NaN) or that other readers misread; stored timestamps are epoch milliseconds, so every accepted value
 * must parse to one.
 */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A real calendar day: Date.parse rolls 2025-02-30 over into March rather than refusing it. */
const isRealDay = (year: string, month: string, day: string): boolean => {
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return m >= 1 && m <= 12 && d >= 1 && d <= (m === 2 && leap ? 29 : DAYS_IN_MONTH[m]!);
};

/** `YYYY-MM-DD`, a day that exists. */
export const isCalendarDate = (text: string): boolean => {
  const match = DATE.exec(text);
  return match !== null && isRealDay(match[1]!, match[2]!, match[3]!);
};

/** An RFC 3339 date-time as above, on a day that exists, that Date.parse reads as a finite instant. */
export const isDateTime = (text: string): boolean => {
  const match = DATE_TIME.exec(text);
  return match !== null && isRealDay(match[1]!, match[2]!, match[3]!) && Number.isFinite(Date.parse(text));
};

/** What a date-time must look like, for messages. */
export const DATE_TIME_HINT = 'RFC 3339 with T and a zone of Z or ±HH:MM, e.g. 2024-05-01T12:00:00Z';

/**
 * Where an instant may also be given as a day (`larder clock set`, `--since`): a day alone is its midnight UTC, as
 * a sync window's dates are. The date-time it stands for, or undefined when it is neither.
 */
export const dayOrDateTime = (text: string): string | undefined =>
  isCalendarDate(text) ? `${text}T00:00:00Z` : isDateTime(text) ? text : undefined;

/** What such a value must look like, for messages. */
export const DAY_OR_DATE_TIME_HINT = `a day (YYYY-MM-DD) or a date-time (${DATE_TIME_HINT})`;
