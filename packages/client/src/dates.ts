/** Days and instants as the server reads them, so a value it would refuse is a TypeError before anything is sent. */

export const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** RFC 3339 as the server reads it: `T`, and a zone of `Z` or ±HH:MM. */
const INSTANT = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export const dayOf = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

/** A day that exists: Date.parse rolls 2026-02-30 over into March, and reads "2026" or "1" as a year. */
export const isDay = (text: string): boolean =>
  DAY.test(text) && dayOf(Date.parse(`${text}T00:00:00Z`) || 0) === text;

/** An instant on a day that exists, in RFC 3339: epoch ms, or NaN. */
export const instant = (text: string): number => {
  const day = INSTANT.exec(text)?.[1];
  return day !== undefined && isDay(day) ? Date.parse(text) : Number.NaN;
};
