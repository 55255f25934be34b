import { type ProcessChannel, primaryCaller, servePrimary } from '../shared/primary-rpc.js';
import type { FaultRule, FaultRulesState } from './fault-schemas.js';
import type { AppliedFault, FaultEngine, FaultRequest } from './faults.js';

/**
 * The fault rules as the admin API and the faults middleware use them: this process's engine, or under
 * `--workers N` the primary's, so a PUT on any worker rules them all and "every 10th" counts every worker.
 */
export interface FaultControl {
  /** Any rules at all (kept current under --workers by the primary's word): without, requests skip the rules. */
  readonly active: boolean;
  list(): Promise<FaultRulesState>;
  replace(rules: readonly FaultRule[]): Promise<FaultRulesState>;
  add(rule: FaultRule): Promise<FaultRulesState>;
  remove(id: string): Promise<FaultRulesState>;
  /** Synchronous in one process: nothing is awaited on the request path there. */
  decide(request: FaultRequest): AppliedFault | undefined | Promise<AppliedFault | undefined>;
}

export const localFaultControl = (engine: FaultEngine): FaultControl => ({
  get active() {
    return engine.active;
  },
  list: async () => engine.list(),
  replace: async (rules) => engine.replace(rules),
  add: async (rule) => engine.add(rule),
  remove: async (id) => engine.remove(id),
  decide: (request) => engine.decide(request),
});

const SERVICE = 'faults';
/** The primary tells every worker whether any rules exist, so without rules no request asks it. */
const ACTIVE = 'faults:active';
/** A worker's word that it has taken up an ACTIVE message. */
export const ACTIVE_TAKEN = 'faults:active-taken';

/** The primary's message telling workers whether rules exist; `seq` comes back in their ACTIVE_TAKEN. */
export interface ActiveMessage {
  larder: typeof ACTIVE;
  active: boolean;
  seq: number;
}

/** A worker's control: every call goes to the primary's engine. */
export const clusterFaultControl = (channel: ProcessChannel): FaultControl => {
  const call = primaryCaller(channel, SERVICE);
  // Until the primary has said, ask it: a request is never let through a rule that exists.
  let active = true;
  channel.on('message', (message) => {
    if (
      typeof message === 'object' &&
      message !== null &&
      (message as { larder?: unknown }).larder === ACTIVE
    ) {
      active = (message as ActiveMessage).active;
      channel.send?.({ larder: ACTIVE_TAKEN, seq: (message as ActiveMessage).seq });
    }
  });
  void call('active').then((answer) => {
    active = answer === true;
  });
  return {
    get active() {
      return active;
    },
    list: async () => (await call('list')) as FaultRulesState,
    replace: async (rules) => (await call('replace', rules)) as FaultRulesState,
    add: async (rule) => (await call('add', rule)) as FaultRulesState,
    remove: async (id) => (await call('remove', id)) as FaultRulesState,
    // The clientId getter is read when the request is serialized: the primary cannot call back.
    decide: async (request) => ((await call('decide', request)) ?? undefined) as AppliedFault | undefined,
  };
};

/**
 * The primary's side of `--workers N`: the one engine every worker's control calls. `broadcast` sends a
 * message to every live worker (whether rules exist, after each change) and resolves once each has taken it up:
 * a PUT answers only then, so a request the client sends next, on any worker, already meets the new rules.
 */
export const serveClusterFaults = (
  onMessage: Parameters<typeof servePrimary>[0],
  engine: FaultEngine,
  broadcast: (message: ActiveMessage) => Promise<void>,
): void => {
  let seq = 0;
  const changed = async (state: FaultRulesState) => {
    await broadcast({ larder: ACTIVE, active: engine.active, seq: ++seq });
    return state;
  };
  servePrimary(onMessage, SERVICE, {
    active: () => engine.active,
    list: () => engine.list(),
    replace: async (rules) => changed(engine.replace(rules as FaultRule[])),
    add: async (rule) => changed(engine.add(rule as FaultRule)),
    remove: async (id) => changed(engine.remove(id as string)),
    decide: (request) => engine.decide(request as FaultRequest) ?? null,
  });
};
