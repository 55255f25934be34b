import { Readable } from 'node:stream';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { createClientCredentials } from '../auth/clients.js';
import { singleQuery } from '../http/query-param.js';
import { readBodyText, readJsonObject, SEARCH_BODY_HINT } from '../http/request-body.js';
import { type ImportProblem, importFiles } from '../import/import-files.js';
import { RECORD_KINDS } from '../records/kinds.js';
import type { RecordReader } from '../retail/record-reader.js';
import { DAY_OR_DATE_TIME_HINT, dayOrDateTime } from '../shared/date-time.js';
import { meantAside } from '../shared/did-you-mean.js';
import { LarderError } from '../shared/errors.js';
import { ADMIN_PREFIX, LOCATION_ID, LOCATION_ID_RULE } from '../shared/limits.js';
import { UUID } from '../shared/schema-helpers.js';
import { createValidator, MAX_REPORTED_PROBLEMS, requireValid } from '../shared/validator.js';
import type { ClockView, VirtualClock } from '../shared/virtual-clock.js';
import type { Store } from '../storage/store.js';
import {
  type Cleared,
  type ClockAdvanceRequest,
  ClockAdvanceRequestSchema,
  type ClockSetRequest,
  ClockSetRequestSchema,
  type IntegrationReport,
  type JournalList,
  MAX_CLOCK_STEP_SECONDS,
  type NewClientRequest,
  NewClientRequestSchema,
} from './admin-schemas.js';
import { DEFAULT_CHART_DAYS, locationCharts, locationsOverview, MAX_CHART_DAYS } from './console-data.js';
import { type LiveDemo, resetDemo } from './demo.js';
import type { FaultControl } from './fault-control.js';
import { validFaultRule, validFaultRules } from './faults.js';
import { OPERATION_IDS } from './journal-entry.js';
import type { JournalCursor, JournalView, ViewFilter } from './journal-view.js';
import type { RateLimitControl } from './rate-limit-control.js';
import { judgeClient, RULES } from './report.js';

export interface AdminDeps {
  store: Store;
  clock: VirtualClock;
  journal: JournalView;
  /** Absent with --no-live. */
  live: LiveDemo | undefined;
  /** Tells the retail routes a location is gone. */
  forgetLocation: (locationId: string) => void;
  /** The retail API's search and get by id, for the console to read any location without a client token. */
  records: RecordReader;
  /** The fault rules (in the primary under --workers). */
  faults: FaultControl;
  /** Forgets failed logins (the throttle's counts), on every worker: part of a reset to the first start. */
  forgetLoginFailures: () => void;
  /** The rate limits' counts (the primary's under --workers), shown, and cleared by a reset. */
  rateLimits: RateLimitControl;
  /** The server's --token-ttl: the integration report allows a correct client to renew that often. */
  tokenTtlSeconds: number;
}

/** Fixture uploads may be large (a whole location), but not unbounded. */
export const MAX_FIXTURE_BYTES = 64 * 1024 * 1024;

const validated = <T>(schema: Parameters<typeof createValidator>[0]) => {
  const validator = createValidator<T>(schema);
  return (body: unknown): T => requireValid(validator, body);
};

const JSON_OR_NDJSON = /^application\/(?:json|x-ndjson|jsonl|json-seq)\s*(?:;|$)/i;

const SEARCH_PAGE_START = /^\s*\{\s*"(?:currentPageToken|nextPageToken|data)"\s*:/;

/** The request body as a stream for the importer: a JSON array or NDJSON, bounded by MAX_FIXTURE_BYTES. */
const fixtureBody = async (c: Context): Promise<Readable> => {
  const type = c.req.header('content-type');
  if (type === undefined || !JSON_OR_NDJSON.test(type))
    throw new LarderError('ERR_UNSUPPORTED_MEDIA_TYPE', {
      message: 'Send the records as a JSON array (application/json) or NDJSON (application/x-ndjson).',
    });
  const text = await readBodyText(c, MAX_FIXTURE_BYTES).catch((error: unknown) => {
    if (error instanceof LarderError && error.code === 'ERR_BODY_TOO_LARGE')
      throw new LarderError('ERR_BODY_TOO_LARGE', {
        message: `A fixture upload is at most ${MAX_FIXTURE_BYTES / 1024 / 1024} MiB; split larger ones.`,
      });
    throw error;
  });
  if (text.trim() === '')
    throw new LarderError('ERR_BODY_NOT_JSON', {
      message: 'The body holds no records: send [] or NDJSON lines.',
    });
  // A saved search page is the usual first try; its records are its `data`. Told so, rather than a problem per
  // envelope field. No record has these fields, so a record (an NDJSON line) never starts this way.
  if (SEARCH_PAGE_START.test(text.slice(0, 200)))
    throw new LarderError('ERR_VALIDATION', {
      fieldName: 'data',
      message: 'This is a search page, not records: send its data array (or the records as NDJSON lines).',
    });
  return Readable.from([text]);
};

/** An import's problems as one 400 whose nested errors name the record index, the field and the line. */
const fixtureProblems = (problems: readonly ImportProblem[], truncated: boolean): LarderError => {
  const shown = problems.slice(0, MAX_REPORTED_PROBLEMS);
  const more = problems.length > MAX_REPORTED_PROBLEMS || truncated;
  return new LarderError('ERR_VALIDATION', {
    message: `Nothing was imported: ${shown.length}${more ? ' or more' : ''} problem(s) in the records.`,
    problems: shown.map((problem) => ({
      fieldName:
        problem.record === undefined
          ? problem.fieldName
          : `[${problem.record}]${problem.fieldName.startsWith('(') ? '' : '.'}${problem.fieldName}`,
      // Line 0 is the whole body's (it looks like another kind's records).
      message: problem.line === 0 ? problem.message : `${problem.message} (line ${problem.line})`,
    })),
  });
};

const clockSet = validated<ClockSetRequest>(ClockSetRequestSchema);
const clockAdvance = validated<ClockAdvanceRequest>(ClockAdvanceRequestSchema);
const newClient = validated<NewClientRequest>(NewClientRequestSchema);

const queryParam = (
  c: Context,
  name: string,
  pattern: RegExp | ((value: string) => boolean),
  hint: string,
): string | undefined => {
  const value = c.req.query(name);
  if (value === undefined || value === '') return undefined;
  if (!(typeof pattern === 'function' ? pattern(value) : pattern.test(value)))
    throw new LarderError('ERR_QUERY_PARAM', { fieldName: name, message: `${name} must be ${hint}.` });
  return value;
};

/**
 * A query parameter the endpoint does not take is a 400 naming it: ignored, a misspelt filter (`?client=`,
 * `?clientid=`) would quietly answer everything. So is one given twice (`?status=4xx&status=5xx`): filters take one
 * value, and using the first would quietly drop the second.
 */
const onlyKnownParams = (c: Context, known: readonly string[]): void => {
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (!known.includes(name))
      throw new LarderError('ERR_QUERY_PARAM', {
        fieldName: name,
        message:
          known.length === 0
            ? `${name} is not a query parameter here: ${c.req.method} ${c.req.path} takes none${c.req.method === 'PUT' || c.req.method === 'POST' ? ' (what it takes goes in its body)' : ''}.`
            : `${name} is not a query parameter here${meantAside(name, known)}; the known ones are ${known.join(', ')}.`,
      });
    if (values.length > 1)
      throw new LarderError('ERR_QUERY_PARAM', {
        fieldName: name,
        message: `${name} is given ${values.length} times; it takes one value.`,
      });
  }
};

/**
 * For the endpoints that take no query parameter: one given anyway would be ignored, and the request done without
 * what it asked (`PUT /clock?frozen=true` leaving the clock running, `DELETE /requests?clientId=…` clearing all).
 */
const takesNoQuery: MiddlewareHandler = async (c, next) => {
  onlyKnownParams(c, []);
  await next();
};

const JOURNAL_PARAMS = ['clientId', 'location', 'operation', 'status', 'since', 'limit', 'after'] as const;

/** A listing's `next` as the query parameter spells it: `journal:seq`, comma-separated (one per worker). */
const cursorText = (cursor: JournalCursor): string =>
  Object.entries(cursor)
    .map(([journal, seq]) => `${journal}:${seq}`)
    .join(',');
const CURSOR = /^\d{1,6}:\d{1,15}(,\d{1,6}:\d{1,15})*$/;

/** The journal filter of `GET /_larder/requests`, validated. */
export const journalFilter = (c: Context): ViewFilter => {
  onlyKnownParams(c, JOURNAL_PARAMS);
  // Taken as absent, an empty filter (`?clientId=$CLIENT`, the variable unset) would list every entry.
  for (const name of JOURNAL_PARAMS)
    if (c.req.query(name) === '')
      throw new LarderError('ERR_QUERY_PARAM', {
        fieldName: name,
        message: `${name} is empty: give it a value, or leave it out to list every entry.`,
      });
  const after = queryParam(c, 'after', CURSOR, "a listing's next (0:1234)");
  // Read as record date-times are: a value Date.parse cannot read would be a NaN bound that filters nothing.
  const since = queryParam(c, 'since', (value) => dayOrDateTime(value) !== undefined, DAY_OR_DATE_TIME_HINT);
  // Any run of digits: a limit past what the ring holds lists all of it (1000000 is a whole number too).
  const limit = queryParam(c, 'limit', /^\d+$/, 'a whole number');
  const status = queryParam(c, 'status', /^[1-5](\d\d|xx)$/i, 'an HTTP status (429) or class (4xx)');
  const filter: ViewFilter = {};
  const clientId = c.req.query('clientId');
  const location = c.req.query('location');
  const operation = c.req.query('operation');
  if (clientId !== undefined) filter.clientId = clientId;
  if (location !== undefined) filter.location = location;
  if (operation !== undefined) {
    if (!OPERATION_IDS.includes(operation))
      throw new LarderError('ERR_QUERY_PARAM', {
        fieldName: 'operation',
        message: `operation must be an operation id${meantAside(operation, OPERATION_IDS)}: ${OPERATION_IDS.join(', ')}.`,
      });
    filter.operation = operation;
  }
  if (status !== undefined) filter.status = status;
  if (since !== undefined) filter.sinceMs = Date.parse(dayOrDateTime(since)!);
  if (limit !== undefined) filter.limit = Number(limit);
  if (after !== undefined)
    filter.after = Object.fromEntries(
      after.split(',').map((pair) => {
        const [journal, seq] = pair.split(':');
        return [journal, Number(seq)];
      }),
    );
  return filter;
};

/** The sandbox controls under /_larder/: the caller is already the admin (admin-auth middleware). */
export const createAdminRoutes = ({
  store,
  clock,
  journal,
  live,
  forgetLocation,
  records,
  faults,
  forgetLoginFailures,
  rateLimits,
  tokenTtlSeconds,
}: AdminDeps): Hono => {
  const routes = new Hono();

  /** The clock moved: the live demo locations get the days it passed before the answer goes out. */
  const moved = async (): Promise<ClockView> => {
    await live?.catchUp();
    return clock.view();
  };

  routes.get('/clock', takesNoQuery, (c) => c.json(clock.view()));
  /** One move of the clock past MAX_CLOCK_STEP_SECONDS, said in days, whichever way it was asked. */
  const tooFar = (fieldName: string, what: string) =>
    new LarderError('ERR_VALIDATION', {
      fieldName,
      message: `${what} may be at most 10 years (3,660 days) past the clock's ${new Date(clock.now()).toISOString()}: the live demo locations fill in every day the clock passes. Move further in steps.`,
    });

  routes.put('/clock', takesNoQuery, async (c) => {
    const request = clockSet(await readJsonObject(c));
    const target = Date.parse(dayOrDateTime(request.now)!);
    if (target - clock.now() > MAX_CLOCK_STEP_SECONDS * 1000) throw tooFar('now', 'now');
    await clock.set(target, request.frozen === true);
    return c.json(await moved());
  });
  routes.post('/clock/advance', takesNoQuery, async (c) => {
    const body = await readJsonObject(c);
    // Said in days before the schema's bare maximum (seconds must be <= 316224000) would say it in seconds.
    const seconds = body['seconds'];
    // Not Infinity (`1e400` in JSON): the schema says that is no integer.
    if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > MAX_CLOCK_STEP_SECONDS)
      throw tooFar(
        'seconds',
        `seconds (${seconds}, ${Math.floor(seconds / 86_400).toLocaleString('en-US')} days)`,
      );
    const request = clockAdvance(body);
    await clock.advance(request.seconds * 1000);
    return c.json(await moved());
  });
  routes.delete('/clock', takesNoQuery, async (c) => {
    await clock.reset();
    return c.json(await moved());
  });

  const locationParam = (c: Context): string => {
    const id = c.req.param('locationId') ?? '';
    if (!LOCATION_ID.test(id))
      throw new LarderError('ERR_VALIDATION', {
        fieldName: 'locationId',
        message: `locationId must be ${LOCATION_ID_RULE}.`,
      });
    return id;
  };

  for (const kind of RECORD_KINDS) {
    routes.post(`/locations/:locationId/${kind.name}`, takesNoQuery, async (c) => {
      const locationId = locationParam(c);
      const input = await fixtureBody(c);
      const result = await importFiles(store, {
        locationId,
        [kind.name]: { path: 'body', input, noun: 'body' },
        maxProblems: MAX_REPORTED_PROBLEMS + 1,
        giveAs: (other) =>
          `send it to POST ${ADMIN_PREFIX}/locations/${encodeURIComponent(locationId)}/${other.name}`,
      });
      if (!result.committed) throw fixtureProblems(result.problems, result.truncated);
      return c.json({ imported: result.counts[kind.countField] });
    });
  }

  /** The location named in the path, which must exist. */
  const knownLocation = async (c: Context): Promise<string> => {
    const locationId = locationParam(c);
    if ((await store.locations.get(locationId)) === undefined)
      throw new LarderError('ERR_LOCATION_NOT_FOUND', { message: `Location ${locationId} is unknown.` });
    return locationId;
  };

  routes.get('/locations', takesNoQuery, async (c) => c.json({ locations: await locationsOverview(store) }));

  routes.get('/locations/:locationId/charts', async (c) => {
    onlyKnownParams(c, ['days', 'itemVersionId']);
    const locationId = await knownLocation(c);
    const days = queryParam(c, 'days', /^\d{1,3}$/, `a whole number of days from 1 to ${MAX_CHART_DAYS}`);
    if (days !== undefined && (Number(days) < 1 || Number(days) > MAX_CHART_DAYS))
      throw new LarderError('ERR_QUERY_PARAM', {
        fieldName: 'days',
        message: `days must be a whole number of days from 1 to ${MAX_CHART_DAYS}.`,
      });
    const itemVersionId = queryParam(c, 'itemVersionId', UUID, 'a UUID');
    return c.json(
      await locationCharts(store, {
        locationId,
        now: clock.now(),
        days: days === undefined ? DEFAULT_CHART_DAYS : Number(days),
        ...(itemVersionId === undefined ? {} : { itemVersionId }),
      }),
    );
  });

  // The retail search and get by id, for any location, without a client token (the console reads through them).
  for (const kind of RECORD_KINDS) {
    routes.post(`/locations/:locationId/${kind.name}/search`, async (c) => {
      const locationId = await knownLocation(c);
      const page = await records.search(kind, locationId, {
        body: await readJsonObject(c, { missingHint: SEARCH_BODY_HINT }),
        pageToken: singleQuery(c, 'pageToken') ?? '',
        pageSize: singleQuery(c, 'pageSize'),
      });
      return c.body(page.body, 200, { 'content-type': 'application/json; charset=utf-8' });
    });
    routes.get(`/locations/:locationId/${kind.name}/:${kind.idParam}`, async (c) => {
      // Not a route of its own beside this one: Hono's RegExpRouter refuses the pair (see retail-routes.ts).
      if (c.req.param(kind.idParam) === 'search')
        throw new LarderError('ERR_METHOD_NOT_ALLOWED', {
          headers: { allow: 'POST' },
          message: `${c.req.path} takes POST only: a search sends its filter as a JSON body.`,
        });
      const locationId = await knownLocation(c);
      const body = await records.get(kind, locationId, c.req.param(kind.idParam) ?? '');
      // Bytes from a store are Buffers, never views of a SharedArrayBuffer.
      return c.body(body as string | Uint8Array<ArrayBuffer>, 200, {
        'content-type': 'application/json; charset=utf-8',
      });
    });
  }

  routes.delete('/locations/:locationId', takesNoQuery, async (c) => {
    const locationId = locationParam(c);
    if (!(await store.locations.delete(locationId)))
      throw new LarderError('ERR_LOCATION_NOT_FOUND', { message: `Location ${locationId} is unknown.` });
    forgetLocation(locationId);
    return c.json({ deleted: locationId });
  });

  routes.post('/reset', takesNoQuery, async (c) => {
    await resetDemo(store);
    for (const location of await store.locations.list()) forgetLocation(location.id);
    await clock.reset();
    await journal.clear();
    // A rule left from one test must not fault the next: the first start had none. Nor had it failed logins, so
    // a test of wrong secrets cannot throttle the next test's correct ones.
    await faults.replace([]);
    forgetLoginFailures();
    // Nor a spent budget: a test that ran into the rate limit must not leave the next one refused.
    await rateLimits.clear();
    await live?.catchUp();
    return c.json({ reset: true, clock: clock.view() });
  });

  routes.get('/requests', async (c) => {
    const { entries, dropped, next, missed } = await journal.list(journalFilter(c));
    return c.json({
      // The stamps only ordered the entries: not a time anyone could read.
      requests: entries.map(({ stamp: _stamp, ...entry }) => entry),
      dropped,
      next: cursorText(next),
      ...(missed === undefined ? {} : { missed }),
    } satisfies JournalList);
  });
  routes.delete('/requests', takesNoQuery, async (c) => {
    await journal.clear();
    return c.json({ cleared: true, recording: journal.recording } satisfies Cleared);
  });

  routes.get('/report', async (c) => {
    onlyKnownParams(c, ['clientId']);
    const clientId = c.req.query('clientId');
    if (clientId === undefined || clientId === '')
      throw new LarderError('ERR_QUERY_PARAM', {
        fieldName: 'clientId',
        message: 'clientId is required: the report judges one client.',
      });
    const { entries, dropped } = await journal.list({ clientId });
    return c.json({
      clientId,
      requestsJudged: entries.length,
      dropped,
      findings: judgeClient(entries, clientId, { tokenTtlSeconds }),
      rules: [...RULES],
    } satisfies IntegrationReport);
  });

  routes.get('/faults', takesNoQuery, async (c) => c.json(await faults.list()));
  routes.put('/faults', takesNoQuery, async (c) =>
    c.json(await faults.replace(validFaultRules(await readJsonObject(c)))),
  );
  routes.delete('/faults', takesNoQuery, async (c) => c.json(await faults.replace([])));
  // One rule at a time, the others keeping their counters (a PUT starts every counter again).
  routes.post('/faults', takesNoQuery, async (c) =>
    c.json(await faults.add(validFaultRule(await readJsonObject(c))), 201),
  );
  routes.delete('/faults/:ruleId', takesNoQuery, async (c) =>
    c.json(await faults.remove(c.req.param('ruleId'))),
  );

  routes.get('/rate-limits', takesNoQuery, async (c) => c.json(await rateLimits.view()));
  routes.delete('/rate-limits', takesNoQuery, async (c) => {
    await rateLimits.clear();
    return c.json(await rateLimits.view());
  });

  routes.post('/clients', takesNoQuery, async (c) => {
    const request = newClient(await readJsonObject(c));
    const credentials = await createClientCredentials(
      store,
      {
        name: request.name,
        ...(request.locations === undefined ? {} : { locations: request.locations }),
        ...(request.allLocations === undefined ? {} : { allLocations: request.allLocations }),
        ...(request.scopes === undefined
          ? {}
          : {
              scopes: (typeof request.scopes === 'string'
                ? request.scopes.split(' ')
                : request.scopes
              ).filter((s) => s !== ''),
            }),
      },
      clock,
    );
    return c.json(credentials, 201, { 'Cache-Control': 'no-store' });
  });

  return routes;
};
