/**
 * Incremental sync. `updatedDateRange` matches whole UTC days, so a sync asks again from the start of the day of
 * the newest change it saw (the overlap), and deduplicates by id and `modifiedDate`: it remembers, for every record
 * changed on that day, the newest version it yielded, and yields a record only when it is newer than that.
 */

import { dayOf, instant, isDay } from './dates.js';

/** Where the next sync starts: store it as JSON between runs. */
export interface Watermark {
  /** The UTC day (YYYY-MM-DD) the next sync asks from; null before any record was seen (a full walk). */
  day: string | null;
  /** For each record changed on `day` that was yielded: its id (lower case) and the `modifiedDate` yielded. */
  seen: Record<string, string>;
  /**
   * A sync started from an instant (RFC 3339) on `day`: changes before it stay left out when the next sync asks
   * from the start of that day again. Absent once the watermark has moved past that day.
   */
  from?: string;
}

/** Reads `since`: a watermark, a day (YYYY-MM-DD), or an instant (RFC 3339; older changes are left out). */
export const startingPoint = (
  since: Watermark | string | undefined,
): { day: string | null; seen: Map<string, number>; from: number | undefined } => {
  if (since === undefined) return { day: null, seen: new Map(), from: undefined };
  const from = typeof since === 'string' && !isDay(since) ? instant(since) : undefined;
  if ((typeof since !== 'string' && !isRecord(since)) || Number.isNaN(from))
    throw new TypeError(
      `since must be a watermark ({ day, seen }), a day (YYYY-MM-DD) or an RFC 3339 date-time (2026-02-01T09:00:00Z), not ${JSON.stringify(since)}`,
    );
  if (typeof since === 'string')
    return { day: from === undefined ? since : dayOf(from), seen: new Map(), from };
  // Read back from storage, it may be damaged or hand-edited: said as that, never an error from deep inside.
  const damaged = (what: string, value: unknown) =>
    new TypeError(`since is not a watermark: ${what}, not ${JSON.stringify(value)}`);
  if (since.day !== null && !(typeof since.day === 'string' && isDay(since.day)))
    throw damaged('day must be null or a day (YYYY-MM-DD)', since.day);
  if (!isRecord(since.seen))
    throw damaged('seen must be an object of record ids and their modifiedDate', since.seen);
  const seen = new Map<string, number>();
  for (const [id, modified] of Object.entries(since.seen)) {
    // As the record's modifiedDate was read when the watermark was made: any date-time Date.parse reads.
    const at = typeof modified === 'string' ? Date.parse(modified) : Number.NaN;
    if (Number.isNaN(at)) throw damaged(`seen.${id} must be a modifiedDate (a date-time)`, modified);
    seen.set(id, at);
  }
  const start = since.from === undefined ? undefined : instant(String(since.from));
  if (Number.isNaN(start)) throw damaged('from must be an RFC 3339 date-time', since.from);
  return { day: since.day, seen, from: start };
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The dedup state of one sync run, from its starting point to the watermark it ends with. */
export const createSyncState = (since: Watermark | string | undefined) => {
  const start = startingPoint(since);
  const seen = start.seen;
  const dates = new Map<string, string>();
  for (const [id, modified] of seen) dates.set(id, new Date(modified).toISOString());
  let newest = start.day === null ? undefined : Date.parse(`${start.day}T00:00:00Z`);
  return {
    day: start.day,
    /** True when this version is new: not older than `since`, and newer than any version of it handled. */
    fresh: (id: string, modifiedDate: string): boolean => {
      const modified = Date.parse(modifiedDate);
      if (start.from !== undefined && modified < start.from) return false;
      const previous = seen.get(id.toLowerCase());
      return previous === undefined || previous < modified;
    },
    /** The caller is done with this version: the watermark covers it from now on. */
    handled: (id: string, modifiedDate: string): void => {
      const modified = Date.parse(modifiedDate);
      const key = id.toLowerCase();
      seen.set(key, modified);
      dates.set(key, modifiedDate);
      if (newest === undefined || modified > newest) newest = modified;
    },
    watermark: (): Watermark => {
      if (newest === undefined) return { day: null, seen: {} };
      const day = dayOf(newest);
      const from = Date.parse(`${day}T00:00:00Z`);
      const kept: Record<string, string> = {};
      for (const [id, modified] of seen) if (modified >= from) kept[id] = dates.get(id)!;
      // The starting instant still cuts into the day the next sync asks from: it goes along.
      return start.from !== undefined && start.from > from
        ? { day, seen: kept, from: new Date(start.from).toISOString() }
        : { day, seen: kept };
    },
  };
};
