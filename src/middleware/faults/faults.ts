import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { oauthCodeOf, oauthError } from '../../auth/oauth-token-route.js';
import { invalidToken } from '../../auth/retail-guard.js';
import { LarderResponse } from '../../http/larder-response.js';
import { readJsonObject, SEARCH_BODY_HINT } from '../../http/request-body.js';
import {
  claimedClientId,
  clientIdFact,
  collectingFacts,
  noteFacts,
  noteSearch,
} from '../../http/request-facts.js';
import { requestHeader, sentLocation } from '../../http/request-header.js';
import type { FaultControl } from '../../sandbox/fault-control.js';
import type { FaultEffect, FaultStatus } from '../../sandbox/fault-schemas.js';
import {
  type AppliedFault,
  FAULT_HEADER,
  type FaultRequest,
  parseFaultHeader,
  requestMisfit,
} from '../../sandbox/faults.js';
import { SEARCH_OPERATIONS, TOKEN_OPERATIONS } from '../../sandbox/journal-entry.js';
import { type ErrorCode, LarderError } from '../../shared/errors.js';
import { noteToken } from '../retail-auth/retail-auth.js';

export interface FaultsDeps {
  /** The rules (admin API, --faults FILE); undefined when only the header is allowed. */
  control: FaultControl | undefined;
  /** --allow-fault-header: the Larder-Fault header applies an effect to its one request. */
  allowHeader: boolean;
  operationOf: (method: string, path: string) => string | undefined;
  /** Paths never faulted (Larder's own: the admin API, docs, console, health checks). */
  skip: (path: string) => boolean;
  /** The OAuth token endpoint answers errors in RFC 6749's shape. */
  tokenPath: string;
  /** Added latency waits in real time: it is what a client's timeouts see. Tests may pass their own. */
  delay?: (ms: number) => Promise<void>;
}

const realDelay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const HEADER_KEY = FAULT_HEADER.toLowerCase();
/** The adapter writes nothing for a response carrying this header: the middleware wrote to the socket itself. */
const ALREADY_SENT = { 'x-hono-already-sent': '1' };
/** A slow body is written in ten slices a second. */
const SLICES_PER_SECOND = 10;

const STATUS_CODES: Record<FaultStatus, ErrorCode> = {
  429: 'ERR_RATE_LIMIT_EXCEEDED',
  500: 'ERR_INTERNAL',
  502: 'ERR_BAD_GATEWAY',
  503: 'ERR_UNAVAILABLE',
  504: 'ERR_GATEWAY_TIMEOUT',
};

/** The request as rules see it; the client id is worked out only if a rule (or the cluster channel) reads it. */
const faultRequest = (c: Context, path: string, operation: string | undefined): FaultRequest => {
  const authorization = requestHeader(c, 'authorization');
  let clientId: string | undefined | null = null;
  return {
    method: c.req.method,
    path,
    operation,
    // As the journal shows it, so a rule matches the location written there (`Café` as curl or fetch sends it).
    location: sentLocation(c),
    get clientId() {
      if (clientId === null) clientId = claimedClientId(authorization);
      return clientId;
    },
    bearer: authorization !== undefined && /^Bearer +\S/i.test(authorization),
    pageToken: (c.req.query('pageToken') ?? '') !== '',
  };
};

const statusError = (c: Context, effect: FaultEffect, tokenPath: string): Response => {
  const status = effect.status ?? 500;
  const retryAfter = effect.retryAfterSeconds ?? (status === 429 ? 1 : undefined);
  const headers: Record<string, string> =
    retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) };
  if (c.req.path === tokenPath)
    return oauthError(c, status, oauthCodeOf(status), 'The service is unavailable; retry later', headers);
  throw new LarderError(STATUS_CODES[status], {
    headers,
    injected: true,
    ...(status === 503 ? { message: 'The service is temporarily unavailable; retry shortly.' } : {}),
  });
};

const socketOf = (c: Context): HttpBindings | undefined => {
  const env = c.env as Partial<HttpBindings> | undefined;
  return env?.incoming !== undefined && env.outgoing !== undefined ? (env as HttpBindings) : undefined;
};

const headersOf = (response: Response): Record<string, string> => {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
};

/**
 * The answer the handler made, written to the socket by hand: the full Content-Length, then half the body and a
 * closed connection (cutBody), or the body a slice at a time (slowBody). Hono's adapter has no way to say either.
 */
const writeByHand = async (c: Context, next: Next, effect: FaultEffect): Promise<Response> => {
  await next();
  const answer = c.res;
  const body = Buffer.from(await answer.arrayBuffer());
  const socket = socketOf(c);
  if (socket === undefined) {
    // In process (app.request) there is no socket: the cut body is the first half, the slow body the whole.
    const sent = effect.type === 'cutBody' ? body.subarray(0, Math.floor(body.length / 2)) : body;
    return new Response(sent, { status: answer.status, headers: answer.headers });
  }
  const { outgoing } = socket;
  outgoing.writeHead(answer.status, { ...headersOf(answer), 'content-length': String(body.length) });
  if (effect.type === 'cutBody') {
    outgoing.write(body.subarray(0, Math.floor(body.length / 2)), () => outgoing.destroy());
  } else {
    const slice = Math.max(1, Math.ceil((effect.bytesPerSecond ?? 1) / SLICES_PER_SECOND));
    let offset = 0;
    const step = () => {
      if (outgoing.destroyed) return;
      const end = Math.min(offset + slice, body.length);
      outgoing.write(body.subarray(offset, end));
      offset = end;
      if (offset >= body.length) outgoing.end();
      else setTimeout(step, 1000 / SLICES_PER_SECOND).unref();
    };
    step();
  }
  return new Response(null, { status: answer.status, headers: ALREADY_SENT });
};

const apply = async (
  c: Context,
  next: Next,
  fault: AppliedFault,
  deps: Pick<FaultsDeps, 'tokenPath' | 'delay'>,
): Promise<Response | undefined> => {
  const { effect } = fault;
  switch (effect.type) {
    case 'status':
      return statusError(c, effect, deps.tokenPath);
    case 'latency':
      await (deps.delay ?? realDelay)(fault.delayMs ?? 0);
      await next();
      return undefined;
    case 'invalidToken':
      throw invalidToken('The access token is not valid (injected fault)');
    case 'badPageToken':
      throw new LarderError('ERR_PAGE_TOKEN', {
        fieldName: 'pageToken',
        message: 'pageToken is not valid for this search (injected fault).',
      });
    case 'reset': {
      const socket = socketOf(c);
      if (socket === undefined)
        throw new LarderError('ERR_BAD_GATEWAY', {
          message: 'Connection reset (injected fault).',
          injected: true,
        });
      noteFacts(c, { status: 0 });
      socket.incoming.socket.resetAndDestroy();
      // No head will be written: the journal learns of the answer here.
      if (socket.outgoing instanceof LarderResponse) socket.outgoing.answeredWithoutHead(0);
      return new Response(null, { status: 500, headers: ALREADY_SENT });
    }
    case 'cutBody':
    case 'slowBody':
      return writeByHand(c, next, effect);
  }
};

/** Effects answered here, in place of the handler, which then never notes what the request was. */
const ANSWERED_HERE: ReadonlySet<FaultEffect['type']> = new Set([
  'status',
  'invalidToken',
  'badPageToken',
  'reset',
]);

/**
 * What identifies a request the handler will not see, noted as the retail routes would note it: so the report
 * knows a faulted search sent again unchanged for the same search, not a new one each time. The token only as
 * its fingerprint, for an injected invalid_token too (so the report sees the token kept after it; a new login
 * may hand that still-good token back, which the report allows), and not for a token request (its fingerprint is
 * of the token it issues). A search's body is read within the body limit, and left unrecorded when it is not a
 * JSON object; never before a reset, which cuts the connection as it stands.
 */
const noteIdentity = async (c: Context, request: FaultRequest, effect: FaultEffect): Promise<void> => {
  const { operation } = request;
  if (request.bearer && (operation === undefined || !TOKEN_OPERATIONS.includes(operation))) noteToken(c);
  if (effect.type === 'reset' || operation === undefined || !SEARCH_OPERATIONS.includes(operation)) return;
  let body: Record<string, unknown>;
  try {
    body = await readJsonObject(c, { missingHint: SEARCH_BODY_HINT });
  } catch {
    return;
  }
  noteSearch(c, body, c.req.query('pageToken') ?? '', c.req.query('pageSize'));
};

/**
 * Fault injection: the Larder-Fault header (only with --allow-fault-header) or the first rule that fires applies
 * one effect to the request, and the journal marks it. Installed only when rules or the header can exist, so a
 * production-style start pays nothing.
 */
export const injectFaults = (deps: FaultsDeps): MiddlewareHandler => {
  const { control, allowHeader, operationOf, skip } = deps;
  const injected = async (c: Context, next: Next, path: string, header: string | undefined) => {
    let fault: AppliedFault | undefined;
    const request = faultRequest(c, path, operationOf(c.req.method, path));
    if (header !== undefined) {
      fault = parseFaultHeader(header);
      // Asked for by name, an effect this request cannot have is refused, not silently left out.
      const misfit = requestMisfit(fault.effect, request);
      if (misfit !== undefined)
        throw new LarderError('ERR_VALIDATION', {
          fieldName: FAULT_HEADER,
          message: `${FAULT_HEADER}: ${misfit}.`,
        });
    } else if (control !== undefined) {
      const decided = control.decide(request);
      fault = decided instanceof Promise ? await decided : decided;
    }
    if (fault === undefined) return next();
    // The handler may never run: the journal (and the report judging a client) still learns whose it was.
    if (collectingFacts(c)) {
      const { clientId } = request;
      noteFacts(c, {
        fault: fault.label,
        ...(clientId === undefined ? {} : { clientId: clientIdFact(clientId) }),
      });
      if (ANSWERED_HERE.has(fault.effect.type)) await noteIdentity(c, request, fault.effect);
    }
    const response = await apply(c, next, fault, deps);
    if (response !== undefined) c.res = response;
    return response;
  };
  // Not async: with no rule and no header (the sandbox's usual state) a request passes straight through.
  return (c, next) => {
    // The cheapest test first: no rule and no header allowed is the sandbox's usual state.
    if (!allowHeader && control?.active !== true) return next();
    const path = c.req.path;
    if (skip(path)) return next();
    const header = allowHeader ? requestHeader(c, HEADER_KEY) : undefined;
    if (header === undefined && control?.active !== true) return next();
    return injected(c, next, path, header);
  };
};
