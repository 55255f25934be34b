import type { RateLimitState } from '../../sandbox/admin-schemas.js';
import { ADMIN_OPTIONS, adminClient } from '../admin-client.js';
import { type Command, UsageError } from '../command.js';

const show = (state: RateLimitState): string => {
  if (state.limits.length === 0) return 'No rate limits: the server runs with --rate-limit off.\n';
  const limits = state.limits.map(({ limit, windowSeconds }) => `${limit}/${windowSeconds}s`).join(', ');
  const lines = state.counted.map(
    ({ clientId, location, sourceAddress, windows }) =>
      `${sourceAddress === undefined ? `client ${clientId} at ${location}` : `address ${sourceAddress}`}: ` +
      `${windows.map((w) => `${w.used} of ${w.limit} in ${w.windowSeconds} s (until ${w.resetsAt})`).join(', ')}\n`,
  );
  return (
    `Rate limits: ${limits}\n` +
    (lines.length === 0 ? 'Nothing counted in the current windows.\n' : lines.join('')) +
    (state.more > 0 ? `… and ${state.more} more\n` : '')
  );
};

export const rateLimitsCommand: Command = {
  name: 'rate-limits',
  takesArguments: true,
  actions: { show: [], clear: [] },
  defaultAction: 'show',
  summary:
    "Show what each client, location and address has used of a running sandbox's rate limits, or clear it.",
  usage:
    'larder rate-limits show             (the limits, and each count in the windows now current)\n' +
    '       larder rate-limits clear            (every count starts again)',
  options: {
    ...ADMIN_OPTIONS,
    json: { type: 'boolean', description: 'Print the limits and counts as JSON.' },
  },
  run: async (args, io) => {
    const [action = 'show', ...rest] = args.positionals;
    if (rest.length > 0) throw new UsageError(`Unexpected argument: ${rest.join(' ')}`);
    const admin = adminClient(args);
    // clear: parseCommandArgs refused any other action.
    const state: RateLimitState = await admin.call(action === 'show' ? 'GET' : 'DELETE', '/rate-limits');
    io.stdout(args.flags['json'] ? `${JSON.stringify(state, null, 2)}\n` : show(state));
    return 0;
  },
};
