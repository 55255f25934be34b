import { readFileSync } from 'node:fs';
import type { FaultRule, FaultRulesState } from '../../sandbox/fault-schemas.js';
import { loadFaultsFile, validFaultRule } from '../../sandbox/faults.js';
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

/** `add`'s rule: JSON given inline (`{…}`) or a file holding it; checked here, so a mistake names the field. */
const readRule = (given: string): FaultRule => {
  const inline = given.trimStart().startsWith('{');
  const where = inline ? 'faults add' : `faults add ${given}`;
  let text: string;
  try {
    text = inline ? given : readFileSync(given, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `${where}: neither a rule in JSON ({"effect": …}) nor a file that exists.`
        : `${where}: cannot read it (${code ?? error}).`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where}: not JSON (${(error as Error).message}).`);
  }
  try {
    return validFaultRule(body);
  } catch (error) {
    throw new UsageError(`${where}: ${(error as Error).message}`);
  }
};

export const faultsCommand: Command = {
  name: 'faults',
  takesArguments: true,
  actions: { show: [], set: [], add: [], remove: [], clear: [] },
  defaultAction: 'show',
  summary: "Show, set, add, remove or clear a running sandbox's fault rules.",
  usage:
    'larder faults show\n' +
    '       larder faults set FILE            (a {"rules": [...]} file, as for serve --faults)\n' +
    '       larder faults add RULE|FILE       (one rule as JSON, inline or in a file; the others keep their counters)\n' +
    '       larder faults remove ID           (one rule by its id; the others keep their counters)\n' +
    '       larder faults clear',
  options: {
    ...ADMIN_OPTIONS,
    json: { type: 'boolean', description: 'Print the rules and their counters as JSON.' },
  },
  run: async (args, io) => {
    const [action = 'show', file, ...rest] = args.positionals;
    const takesOne = action === 'set' || action === 'add' || action === 'remove';
    if (rest.length > 0 || (!takesOne && file !== undefined))
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
    } else if (action === 'add') {
      if (file === undefined)
        throw new UsageError(
          'faults add needs a RULE: JSON such as \'{"effect": {"type": "reset"}}\', or a FILE holding it.',
        );
      state = await admin.call('POST', '/faults', readRule(file));
    } else {
      // remove: parseCommandArgs refused any other action.
      if (file === undefined)
        throw new UsageError('faults remove needs the ID of a rule (larder faults show lists them).');
      state = await admin.call('DELETE', `/faults/${encodeURIComponent(file)}`);
    }
    io.stdout(args.flags['json'] ? `${JSON.stringify(state, null, 2)}\n` : show(state));
    return 0;
  },
};
