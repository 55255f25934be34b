import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { LOGIN_PATH } from '../auth/auth-service.js';
import { RECORD_KINDS } from '../records/kinds.js';
import { Random } from '../seed/random.js';
import { type FieldProblem, LarderError } from '../shared/errors.js';
import { ADMIN_PREFIX } from '../shared/limits.js';
import {
  CONSOLE_PATH,
  DOCS_PATH,
  HEALTH_PATH,
  isLarderOwnPath,
  OPENAPI_PATH,
  READY_PATH,
} from '../shared/own-paths.js';
import { createValidator, invalidFields, requireValid } from '../shared/validator.js';
import {
  FAULT_EFFECT_TYPES,
  type FaultEffect,
  FaultEffectSchema,
  type FaultEffectType,
  type FaultRule,
  FaultRuleSchema,
  type FaultRules,
  FaultRulesSchema,
  type FaultRulesState,
  MAX_FAULT_LATENCY_MS,
  MAX_FAULT_RULES,
} from './fault-schemas.js';
import { OPERATIONS, SEARCH_OPERATIONS, TOKEN_OPERATIONS } from './journal-entry.js';

/** What a rule can be matched on. `clientId` may be a getter: it is worked out only when a rule asks. */
export interface FaultRequest {
  method: string;
  path: string;
  operation: string | undefined;
  location: string | undefined;
  readonly clientId: string | undefined;
  /** The request carries a bearer token (invalidToken applies only then) … */
  bearer: boolean;
  /** … and a pageToken (badPageToken applies only then). */
  pageToken: boolean;
}

/** The fault a request gets: its effect, the latency drawn for it, and how the journal names it. */
export interface AppliedFault {
  effect: FaultEffect;
  /** type latency: the delay drawn for this request. */
  delayMs?: number;
  /** `rule-2 status=503`, or `header latency=800ms`. */
  label: string;
}

/** The rules in force and their counters, in the primary under `--workers N` so counts are exact. */
export interface FaultEngine {
  /** Any rules at all: without, the request path does nothing. */
  readonly active: boolean;
  list(): FaultRulesState;
  replace(rules: readonly FaultRule[]): FaultRulesState;
  /** Appends one rule; the others keep their counters. A 409 for an id in use, a 400 past MAX_FAULT_RULES. */
  add(rule: FaultRule): FaultRulesState;
  /** Removes one rule by id; the others keep their counters. A 404 for an unknown id. */
  remove(id: string): FaultRulesState;
  decide(request: FaultRequest): AppliedFault | undefined;
}

interface RuleState {
  rule: FaultRule;
  id: string;
  matched: number;
  applied: number;
  random: Random;
}

/** `status=503`, `latency=800ms`, … as the journal and the header spell an effect. */
export const describeEffect = (effect: FaultEffect, delayMs?: number): string => {
  switch (effect.type) {
    case 'status':
      return `status=${effect.status}${effect.retryAfterSeconds === undefined ? '' : `;retry-after=${effect.retryAfterSeconds}`}`;
    case 'latency':
      return `latency=${delayMs ?? effect.ms ?? 0}ms`;
    case 'slowBody':
      return `slow-body=${effect.bytesPerSecond}`;
    case 'cutBody':
      return 'cut-body';
    case 'invalidToken':
      return 'invalid-token';
    case 'badPageToken':
      return 'bad-page-token';
    case 'reset':
      return 'reset';
  }
};

/** The drawn delay: log-normal by Box-Muller over the rule's own stream, so a seed fixes the sequence. */
export const drawLatency = (effect: FaultEffect, random: Random): number => {
  let ms: number;
  if (effect.distribution === 'uniform') ms = random.between(effect.minMs ?? 0, (effect.maxMs ?? 0) + 1);
  else if (effect.distribution === 'logNormal') {
    const z = Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
    ms = (effect.medianMs ?? 0) * Math.exp((effect.sigma ?? 0) * z);
  } else ms = effect.ms ?? 0;
  return Math.min(Math.floor(ms), MAX_FAULT_LATENCY_MS);
};

/** The retail API, whose requests carry the access token an injected invalidToken refuses. */
const RETAIL_PREFIX = '/v1/';

/**
 * Why `effect` does not apply to this request, or undefined when it does: an invalid token only on the retail API,
 * a bad page token only on a search (a get by id, a login or the token endpoint never answer either).
 */
export const effectMisfit = (effect: FaultEffect, request: Pick<FaultRequest, 'path' | 'operation'>) => {
  if (effect.type === 'invalidToken' && !request.path.startsWith(RETAIL_PREFIX))
    return `invalidToken applies only to the retail API (${RETAIL_PREFIX}…)`;
  if (
    effect.type === 'badPageToken' &&
    (request.operation === undefined || !SEARCH_OPERATIONS.includes(request.operation))
  )
    return `badPageToken applies only to a search (${SEARCH_OPERATIONS.join(', ')})`;
  return undefined;
};

/**
 * Why `effect` does not apply to this very request, or undefined when it does: beyond effectMisfit, an invalid token
 * needs a token sent, and a bad page token a pageToken sent (a first page has none, and no server answers it 40005).
 */
export const requestMisfit = (effect: FaultEffect, request: FaultRequest) => {
  const misfit = effectMisfit(effect, request);
  if (misfit !== undefined) return misfit;
  if (effect.type === 'invalidToken' && !request.bearer)
    return 'invalidToken applies only to a request with a bearer token';
  if (effect.type === 'badPageToken' && !request.pageToken)
    return 'badPageToken applies only to a search that sends a pageToken (a first page has none)';
  return undefined;
};

const matches = (rule: FaultRule, request: FaultRequest): boolean => {
  const { match, effect } = rule;
  if (requestMisfit(effect, request) !== undefined) return false;
  if (match === undefined) return true;
  if (match.method !== undefined && match.method.toUpperCase() !== request.method) return false;
  if (match.pathPrefix !== undefined && !request.path.startsWith(match.pathPrefix)) return false;
  if (match.operation !== undefined && match.operation !== request.operation) return false;
  if (match.location !== undefined && match.location !== request.location) return false;
  if (match.clientId !== undefined && match.clientId !== request.clientId) return false;
  return true;
};

const fires = (state: RuleState): boolean => {
  const { when } = state.rule;
  if (when === undefined) return true;
  if (when.probability !== undefined) return state.random.chance(when.probability);
  if (when.next !== undefined) return state.matched <= when.next;
  if (when.every !== undefined) return state.matched % when.every === 0;
  return true;
};

/** The methods the API answers (HEAD as GET): a rule on any other would never fire. */
export const FAULT_METHODS = ['GET', 'HEAD', 'POST'] as const;

/** The effect fields each type takes (latency's by distribution): any other would be silently ignored. */
const EFFECT_FIELDS: Readonly<Record<FaultEffectType, readonly string[]>> = {
  status: ['status', 'retryAfterSeconds'],
  latency: ['distribution', 'ms', 'minMs', 'maxMs', 'medianMs', 'sigma'],
  reset: [],
  cutBody: [],
  slowBody: ['bytesPerSecond'],
  invalidToken: [],
  badPageToken: [],
};
const LATENCY_FIELDS = {
  fixed: ['ms'],
  uniform: ['minMs', 'maxMs'],
  logNormal: ['medianMs', 'sigma'],
} as const;

/** An effect's fields that its type (or, for latency, its distribution) does not take, and whose they are. */
const foreignFields = (effect: FaultEffect, prefix: string): FieldProblem[] => {
  const distribution = effect.distribution ?? 'fixed';
  const problems: FieldProblem[] = [];
  for (const field of Object.keys(effect)) {
    if (field === 'type') continue;
    const owner = FAULT_EFFECT_TYPES.find((type) => EFFECT_FIELDS[type].includes(field));
    if (owner !== effect.type)
      problems.push({ fieldName: `${prefix}effect.${field}`, message: `applies only to type ${owner}` });
    else if (owner === 'latency' && field !== 'distribution') {
      const wanted = (Object.keys(LATENCY_FIELDS) as (keyof typeof LATENCY_FIELDS)[]).find((each) =>
        (LATENCY_FIELDS[each] as readonly string[]).includes(field),
      );
      if (wanted !== distribution)
        problems.push({
          fieldName: `${prefix}effect.${field}`,
          message: `applies only to distribution ${wanted} (this one is ${distribution})`,
        });
    }
  }
  return problems;
};

/** The search paths, which a badPageToken rule's pathPrefix must lead to. */
const SEARCH_PATHS = RECORD_KINDS.map((kind) => `/v1/${kind.name}/search`);

/** A match that no request its effect applies to can meet (effectMisfit): the rule would never fire. */
const misfitProblems = (effect: FaultEffect, match: FaultRule['match'], prefix: string): FieldProblem[] => {
  if (match === undefined) return [];
  const problems: FieldProblem[] = [];
  const never = (field: string, wanted: string) =>
    problems.push({
      fieldName: `${prefix}match.${field}`,
      message: `must be ${wanted}: ${effect.type} applies to no other request, so the rule would never fire`,
    });
  const { operation, method, pathPrefix } = match;
  if (effect.type === 'badPageToken') {
    if (operation !== undefined && !SEARCH_OPERATIONS.includes(operation))
      never('operation', `a search (${SEARCH_OPERATIONS.join(', ')})`);
    if (method !== undefined && method.toUpperCase() !== 'POST') never('method', 'POST (a search)');
    if (pathPrefix !== undefined && !SEARCH_PATHS.some((path) => path.startsWith(pathPrefix)))
      never('pathPrefix', `the start of a search path (${SEARCH_PATHS.join(', ')})`);
  }
  if (effect.type === 'invalidToken') {
    if (operation !== undefined && TOKEN_OPERATIONS.includes(operation))
      never('operation', `a retail operation (${RETAIL_PREFIX}…)`);
    if (
      pathPrefix !== undefined &&
      !pathPrefix.startsWith(RETAIL_PREFIX) &&
      !RETAIL_PREFIX.startsWith(pathPrefix)
    )
      never('pathPrefix', `on the retail API (${RETAIL_PREFIX}…)`);
  }
  return problems;
};

/**
 * What the schema cannot say of one rule: a uniform range the right way round, Retry-After where it applies, no
 * field of another effect, and a match that some request can meet (a rule that never fires looks like a pass).
 */
const effectProblems = ({ effect, match }: FaultRule, prefix: string): FieldProblem[] => {
  const problems = foreignFields(effect, prefix);
  if (effect.distribution === 'uniform' && (effect.minMs ?? 0) > (effect.maxMs ?? 0))
    problems.push({ fieldName: `${prefix}effect.maxMs`, message: 'must not be less than minMs' });
  if (effect.retryAfterSeconds !== undefined && effect.status !== 429 && effect.status !== 503)
    problems.push({
      fieldName: `${prefix}effect.retryAfterSeconds`,
      message: 'applies only to status 429 or 503',
    });
  if (
    match?.method !== undefined &&
    !(FAULT_METHODS as readonly string[]).includes(match.method.toUpperCase())
  )
    problems.push({
      fieldName: `${prefix}match.method`,
      message: `must be one of ${FAULT_METHODS.join(', ')} (any case): the API answers no other, so the rule would never fire`,
    });
  if (match?.pathPrefix !== undefined && isLarderOwnPath(match.pathPrefix))
    problems.push({
      fieldName: `${prefix}match.pathPrefix`,
      message: `is Larder's own (the admin API ${ADMIN_PREFIX}/, ${DOCS_PATH}, ${CONSOLE_PATH}, ${OPENAPI_PATH}, ${HEALTH_PATH} or ${READY_PATH}), which is never faulted: the rule would never fire`,
    });
  // A login names its client in its JSON body, read only by its handler, after the rules.
  if (
    match?.clientId !== undefined &&
    (match.operation === OPERATIONS.login || match.pathPrefix?.startsWith(LOGIN_PATH) === true)
  )
    problems.push({
      fieldName: `${prefix}match.clientId`,
      message:
        'never matches a login, whose client id is in its JSON body, which the rules do not read: aim at logins with operation or pathPrefix alone (a token request, oauthToken, names its client in its Basic credentials, which clientId matches)',
    });
  problems.push(...misfitProblems(effect, match, prefix));
  return problems;
};

/** …and of a set: ids unique. */
const ruleProblems = (rules: readonly FaultRule[]): FieldProblem[] => {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    problems.push(...effectProblems(rule, `rules[${index}].`));
    if (rule.id !== undefined) {
      if (seen.has(rule.id)) problems.push({ fieldName: `rules[${index}].id`, message: 'is used twice' });
      seen.add(rule.id);
    }
  });
  return problems;
};

const rulesValidator = createValidator<FaultRules>(FaultRulesSchema);
const ruleValidator = createValidator<FaultRule>(FaultRuleSchema);

/** Whether `body` is an object with `field` and without `missing`: the other shape, sent in this one's place. */
const otherShape = (body: unknown, field: string, missing: string): boolean =>
  typeof body === 'object' && body !== null && field in body && !(missing in body);

/** A `{ "rules": [...] }` document, valid, or the 400 that names its bad fields. */
export const validFaultRules = (body: unknown): FaultRule[] => {
  if (otherShape(body, 'effect', 'rules'))
    throw invalidFields([
      {
        fieldName: 'rules',
        message:
          'is required: this is one rule ({"effect": …}), not a {"rules": […]} document; wrap it in one, or add it alone (POST /_larder/faults, larder faults add)',
      },
    ]);
  const { rules } = requireValid(rulesValidator, body);
  const problems = ruleProblems(rules);
  if (problems.length > 0) throw invalidFields(problems);
  return rules;
};

/** One rule (a `POST /_larder/faults` body), valid, or the 400 that names its bad fields. */
export const validFaultRule = (body: unknown): FaultRule => {
  if (otherShape(body, 'rules', 'effect'))
    throw invalidFields([
      {
        fieldName: 'effect',
        message:
          'is required: this is a {"rules": […]} document, not one rule; send its rules one at a time, or replace every rule with it (PUT /_larder/faults, larder faults set)',
      },
    ]);
  const rule = requireValid(ruleValidator, body);
  const problems = effectProblems(rule, '');
  if (problems.length > 0) throw invalidFields(problems);
  return rule;
};

/** `--faults FILE` (or `larder faults set FILE`): the rules, or an Error naming the file and the field. */
export const loadFaultsFile = (path: string, label = '--faults'): FaultRule[] => {
  const fail = (problem: string) => new Error(`${label} ${path}: ${problem}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw fail(`cannot read it (${(error as NodeJS.ErrnoException).code ?? error}).`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw fail(`not JSON (${(error as Error).message}).`);
  }
  try {
    return validFaultRules(body);
  } catch (error) {
    throw fail(`${(error as Error).message}.`);
  }
};

export const createFaultEngine = (initial: readonly FaultRule[] = []): FaultEngine => {
  let states: RuleState[] = [];
  const list = (): FaultRulesState => ({
    rules: states.map(({ rule, id, matched, applied }) => ({ ...rule, id, matched, applied })),
  });
  const stateOf = (rule: FaultRule, id: string): RuleState => ({
    rule,
    id,
    matched: 0,
    applied: 0,
    random: new Random('fault', rule.seed ?? randomInt(2 ** 32)),
  });
  /** `rule-N` by position, or the next number no rule's id holds: ids stay unique, so one can be removed. */
  const freeId = (position: number, taken: ReadonlySet<string>): string => {
    let n = position;
    while (taken.has(`rule-${n}`)) n++;
    return `rule-${n}`;
  };
  const replace = (rules: readonly FaultRule[]): FaultRulesState => {
    const taken = new Set(rules.flatMap((rule) => (rule.id === undefined ? [] : [rule.id])));
    states = rules.map((rule, index) => {
      const id = rule.id ?? freeId(index + 1, taken);
      taken.add(id);
      return stateOf(rule, id);
    });
    return list();
  };
  const inUse = (id: string) => states.some((state) => state.id === id);
  replace(initial);
  return {
    get active() {
      return states.length > 0;
    },
    list,
    replace,
    add: (rule) => {
      if (rule.id !== undefined && inUse(rule.id))
        throw new LarderError('ERR_CONFLICT', {
          message: `A fault rule ${rule.id} exists already: remove it first, or give another id.`,
          fieldName: 'id',
        });
      if (states.length >= MAX_FAULT_RULES)
        throw new LarderError('ERR_VALIDATION', {
          message: `There are ${MAX_FAULT_RULES} fault rules already, the most there can be: remove one first.`,
          fieldName: 'rules',
        });
      states = [
        ...states,
        stateOf(rule, rule.id ?? freeId(states.length + 1, new Set(states.map((state) => state.id)))),
      ];
      return list();
    },
    remove: (id) => {
      if (!inUse(id)) throw new LarderError('ERR_NOT_FOUND', { message: `No fault rule ${id}.` });
      states = states.filter((state) => state.id !== id);
      return list();
    },
    decide: (request) => {
      let chosen: RuleState | undefined;
      // Every rule counts every request it matches, so each one's "every Nth" holds whatever the others do.
      for (const state of states) {
        if (!matches(state.rule, request)) continue;
        state.matched++;
        if (fires(state) && chosen === undefined) chosen = state;
      }
      if (chosen === undefined) return undefined;
      chosen.applied++;
      const { effect } = chosen.rule;
      const delayMs = effect.type === 'latency' ? drawLatency(effect, chosen.random) : undefined;
      return {
        effect,
        ...(delayMs === undefined ? {} : { delayMs }),
        label: `${chosen.id} ${describeEffect(effect, delayMs)}`,
      };
    },
  };
};

const effectValidator = createValidator<FaultEffect>(FaultEffectSchema);
export const FAULT_HEADER = 'Larder-Fault';

const DURATION = /^(\d{1,9})(ms|s)?$/;
const NAMES: Readonly<Record<string, FaultEffect['type']>> = {
  reset: 'reset',
  'cut-body': 'cutBody',
  'invalid-token': 'invalidToken',
  'bad-page-token': 'badPageToken',
};

const headerError = (message: string) =>
  new LarderError('ERR_VALIDATION', { fieldName: FAULT_HEADER, message: `${FAULT_HEADER}: ${message}` });

/**
 * The `Larder-Fault` header (with --allow-fault-header): `status=503`, `status=429;retry-after=5`,
 * `latency=800ms` (or `2s`), `reset`, `cut-body`, `slow-body=100` (bytes per second), `invalid-token`,
 * `bad-page-token`. The effect it spells is validated by the rules' own schema.
 */
export const parseFaultHeader = (value: string): AppliedFault => {
  const effect: Record<string, unknown> = {};
  // The effect named first: a second would silently replace it.
  let chosen: string | undefined;
  const one = (name: string, fields: Record<string, unknown>) => {
    if (chosen !== undefined)
      throw headerError(`names two effects (${chosen}, ${name}): it takes one per request.`);
    chosen = name;
    Object.assign(effect, fields);
  };
  for (const part of value.split(/[;,]/)) {
    const [rawName, rawValue] = part.split('=', 2).map((s) => s.trim());
    const name = (rawName ?? '').toLowerCase();
    if (name === '') continue;
    const named = NAMES[name];
    if (named !== undefined) one(name, { type: named });
    else if (name === 'status') one(name, { type: 'status', status: Number(rawValue) });
    else if (name === 'retry-after') effect['retryAfterSeconds'] = Number(rawValue);
    else if (name === 'slow-body') one(name, { type: 'slowBody', bytesPerSecond: Number(rawValue) });
    else if (name === 'latency') {
      const duration = DURATION.exec(rawValue ?? '');
      if (duration === null) throw headerError(`latency must be milliseconds (800ms) or seconds (2s).`);
      one(name, { type: 'latency', ms: Number(duration[1]) * (duration[2] === 's' ? 1000 : 1) });
    } else
      throw headerError(
        `unknown effect ${name}: use status=, latency=, reset, cut-body, slow-body=, invalid-token or bad-page-token.`,
      );
  }
  if (effect['type'] === undefined) throw headerError('names no effect.');
  const problems = effectValidator.problems(effect);
  const [first] = problems;
  if (first !== undefined) throw headerError(`${first.fieldName} ${first.message}.`);
  const valid = effect as FaultEffect;
  if (valid.retryAfterSeconds !== undefined && valid.status !== 429 && valid.status !== 503)
    throw headerError('retry-after applies only to status 429 or 503.');
  return {
    effect: valid,
    ...(valid.type === 'latency' ? { delayMs: valid.ms ?? 0 } : {}),
    label: `header ${describeEffect(valid, valid.ms)}`,
  };
};
