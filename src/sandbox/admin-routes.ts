import { type Context, Hono } from 'hono';
import { createClientCredentials } from '../auth/clients.js';
import { readJsonObject } from '../http/request-body.js';
import { LarderError } from '../shared/errors.js';
import { createValidator } from '../shared/validator.js';
import type { VirtualClock } from '../shared/virtual-clock.js';
import type { Store } from '../storage/store.js';
import {
  type ClockAdvanceRequest,
  ClockAdvanceRequestSchema,
  type ClockSetRequest,
  ClockSetRequestSchema,
  type NewClientRequest,
  NewClientRequestSchema,
} from './admin-schemas.js';
import type { Journal, JournalFilter } from './journal.js';
import { judgeClient, RULES } from './report.js';

export const ADMIN_PREFIX = '/_larder';

export interface AdminDeps {
  store: Store;
  clock: VirtualClock;
  journal: Journal;
}

const validated = <T>(schema: Parameters<typeof createValidator>[0]) => {
  const validator = createValidator<T>(schema);
  return (body: unknown): T => {
    const problems = validator.problems(body);
    const [first] = problems;
    if (first === undefined) return body as T;
    throw new LarderError('ERR_VALIDATION', {
      message: problems.map((p) => `${p.fieldName} ${p.message}`).join('; '),
      ...(problems.length === 1 ? { fieldName: first.fieldName } : {}),
      problems,
    });
  };
};

const clockSet = validated<ClockSetRequest>(ClockSetRequestSchema);
const clockAdvance = validated<ClockAdvanceRequest>(ClockAdvanceRequestSchema);
const newClient = validated<NewClientRequest>(NewClientRequestSchema);

const queryParam = (c: Context, name: string, pattern: RegExp, hint: string): string | undefined => {
  const value = c.req.query(name);
  if (value === undefined || value === '') return undefined;
  if (!pattern.test(value))
    throw new LarderError('ERR_QUERY_PARAM', { fieldName: name, message: `${name} must be ${hint}.` });
  return value;
};

/** The journal filter of `GET /_larder/requests`, validated. */
export const journalFilter = (c: Context): JournalFilter => {
  const since = queryParam(c, 'since', /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/, 'an ISO date-time');
  const limit = queryParam(c, 'limit', /^\d{1,6}$/, 'a whole number');
  const status = queryParam(c, 'status', /^[1-5](\d\d|xx)$/i, 'an HTTP status (429) or class (4xx)');
  const filter: JournalFilter = {};
  const clientId = c.req.query('clientId');
  const location = c.req.query('location');
  const operation = c.req.query('operation');
  if (clientId) filter.clientId = clientId;
  if (location) filter.location = location;
  if (operation) filter.operation = operation;
  if (status !== undefined) filter.status = status;
  if (since !== undefined) filter.sinceMs = Date.parse(since);
  if (limit !== undefined) filter.limit = Number(limit);
  return filter;
};

/** The sandbox controls under /_larder/: the caller is already the admin (admin-auth middleware). */
export const createAdminRoutes = ({ store, clock, journal }: AdminDeps): Hono => {
  const routes = new Hono();

  routes.get('/clock', (c) => c.json(clock.view()));
  routes.put('/clock', async (c) => {
    const request = clockSet(await readJsonObject(c));
    return c.json(await clock.set(Date.parse(request.now), request.frozen === true));
  });
  routes.post('/clock/advance', async (c) => {
    const request = clockAdvance(await readJsonObject(c));
    return c.json(await clock.advance(request.seconds * 1000));
  });
  routes.delete('/clock', async (c) => c.json(await clock.reset()));

  routes.get('/requests', (c) => c.json({ requests: journal.list(journalFilter(c)) }));
  routes.delete('/requests', (c) => {
    journal.clear();
    return c.json({ cleared: true });
  });

  routes.get('/report', (c) => {
    const clientId = c.req.query('clientId');
    if (clientId === undefined || clientId === '')
      throw new LarderError('ERR_QUERY_PARAM', {
        fieldName: 'clientId',
        message: 'clientId is required: the report judges one client.',
      });
    const entries = journal.list({ clientId });
    return c.json({
      clientId,
      requestsJudged: entries.length,
      findings: judgeClient(entries, clientId),
      rules: RULES,
    });
  });

  routes.post('/clients', async (c) => {
    const request = newClient(await readJsonObject(c));
    const credentials = await createClientCredentials(
      store,
      {
        name: request.name,
        ...(request.locations === undefined ? {} : { locations: request.locations }),
        ...(request.allLocations === undefined ? {} : { allLocations: request.allLocations }),
        ...(request.scopes === undefined
          ? {}
          : { scopes: request.scopes.split(' ').filter((s) => s !== '') }),
      },
      clock,
    );
    return c.json(credentials, 201, { 'Cache-Control': 'no-store' });
  });

  return routes;
};
