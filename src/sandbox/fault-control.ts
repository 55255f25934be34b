import { type ProcessChannel, primaryCaller, servePrimary } from '../shared/primary-rpc.js';
import type { FaultRule, FaultRulesState } from './fault-schemas.js';
import type { AppliedFault, FaultEngine, FaultRequest } from './faults.js';

/**
 * The fault rules as the admin API and the faults middleware use them: this process's engine, or under
 * `--workers N` the primary's, so a PUT on any worker rules them all and "every 10th" counts every worker.
 */
export interface FaultControl {
  list(): Promise<FaultRulesState>;
  replace(rules: readonly FaultRule[]): Promise<FaultRulesState>;
  /** Synchronous in one process: nothing is awaited on the request path there. */
  decide(request: FaultRequest): AppliedFault | undefined | Promise<AppliedFault | undefined>;
}

export const localFaultControl = (engine: FaultEngine): FaultControl => ({
  list: async () => engine.list(),
  replace: async (rules) => engine.replace(rules),
  decide: (request) => engine.decide(request),
});

const SERVICE = 'faults';

/** A worker's control: every call goes to the primary's engine. */
export const clusterFaultControl = (channel: ProcessChannel): FaultControl => {
  const call = primaryCaller(channel, SERVICE, (error) => new Error(error.message));
  return {
    list: async () => (await call('list')) as FaultRulesState,
    replace: async (rules) => (await call('replace', rules)) as FaultRulesState,
    // The clientId getter is read when the request is serialized: the primary cannot call back.
    decide: async (request) => ((await call('decide', request)) ?? undefined) as AppliedFault | undefined,
  };
};

/** The primary's side of `--workers N`: the one engine every worker's control calls. */
export const serveClusterFaults = (
  onMessage: Parameters<typeof servePrimary>[0],
  engine: FaultEngine,
): void =>
  servePrimary(onMessage, SERVICE, {
    list: () => engine.list(),
    replace: (rules) => engine.replace(rules as FaultRule[]),
    decide: (request) => engine.decide(request as FaultRequest) ?? null,
  });
