import type { FaultRulesState } from '../../sandbox/fault-schemas.js';
import { loadFaultsFile } from '../../sandbox/faults.js';
import { ADMIN_OPTIONS, adminClient } from '../admin-client.js';
import { type Command, UsageError } from '../command.js';

const show = (state: FaultRulesState): string =>
  state.rules.length === 0
    ? 'No fault rules.\n'
    : state.rules
        .map(
          (rule) =>
            `${rule.id}: ${JSON.stringify(rule.effect)} when ${JSON.stringify(rule.when ?? 'always')} ` +
            `match ${JSON.stringify(rule.match ?? {})}: matched ${rule.matched}, applied ${rule.applied}\n`,
        )
        .join('');

export const faultsCommand: Command = {
  name: 'faults',
  summary: "Show, set or clear a running sandbox's fault rules.",
  usage:
    'larder faults show\n' +
    '       larder faults set FILE            (a {"rules": [...]} file, as for serve --faults)\n' +
    '       larder faults clear',
  options: {
    ...ADMIN_OPTIONS,
    json: { type: 'boolean', description: 'Print the rules and their counters as JSON.' },
  },
  run: async (args, io) => {
    const [action = 'show', file, ...rest] = args.positionals;
    if (rest.length > 0 || (action !== 'set' && file !== undefined))
      throw new UsageError(`Unexpected argument: ${[file, ...rest].filter(Boolean).join(' ')}`);
    const admin = adminClient(args);
    let state: FaultRulesState;
    if (action === 'show') state = await admin.call('GET', '/faults');
    else if (action === 'clear') state = await admin.call('DELETE', '/faults');
    else if (action === 'set') {
      if (file === undefined) throw new UsageError('faults set needs a FILE of rules.');
      // Checked here first, so a mistake names the file and the field before anything is sent.
      let rules: ReturnType<typeof loadFaultsFile>;
      try {
        rules = loadFaultsFile(file, 'faults set');
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      state = await admin.call('PUT', '/faults', { rules });
    } else throw new UsageError(`Unknown faults action: ${action}`);
    io.stdout(args.flags['json'] ? `${JSON.stringify(state, null, 2)}\n` : show(state));
    return 0;
  },
};
