import { DATE_TIME_HINT, dayOrDateTime } from '../../shared/date-time.js';
import type { ClockView } from '../../shared/virtual-clock.js';
import { parseDuration } from '../../shared/virtual-clock.js';
import { ADMIN_OPTIONS, adminClient } from '../admin-client.js';
import { type Command, UsageError } from '../command.js';

const show = (view: ClockView) =>
  `${view.now}${view.frozen ? ' (frozen)' : ''}  offset ${view.offsetSeconds >= 0 ? '+' : ''}${view.offsetSeconds} s\n`;

export const clockCommand: Command = {
  name: 'clock',
  takesArguments: true,
  actions: { show: [], set: ['frozen'], advance: [], reset: [] },
  defaultAction: 'show',
  summary: "Show or move a running sandbox's virtual clock.",
  usage:
    'larder clock show\n' +
    '       larder clock set ISO_DATE_TIME|DATE [--frozen]   (a date alone: its midnight UTC)\n' +
    '       larder clock advance DURATION     (1d, 2h, 15m, 90s, or sums like 1d12h)\n' +
    '       larder clock reset                (back to real time)',
  options: {
    ...ADMIN_OPTIONS,
    frozen: { type: 'boolean', description: 'With `set`: stop time at that instant.' },
    json: { type: 'boolean', description: 'Print the clock as JSON {now, offsetSeconds, frozen}.' },
  },
  run: async (args, io) => {
    const [action = 'show', value, ...rest] = args.positionals;
    if (rest.length > 0) throw new UsageError(`Unexpected argument: ${rest.join(' ')}`);
    const expectNoValue = () => {
      if (value !== undefined) throw new UsageError(`clock ${action} takes no argument, not ${value}.`);
    };
    let request: Promise<ClockView>;
    const admin = adminClient(args);
    if (action === 'show') {
      expectNoValue();
      request = admin.call('GET', '/clock');
    } else if (action === 'set') {
      const now = value === undefined ? undefined : dayOrDateTime(value);
      if (now === undefined)
        throw new UsageError(`clock set needs a date-time (${DATE_TIME_HINT}) or a day (2025-06-01).`);
      request = admin.call('PUT', '/clock', { now, frozen: args.flags['frozen'] === true });
    } else if (action === 'advance') {
      const seconds = value === undefined ? undefined : parseDuration(value);
      if (seconds === undefined || seconds <= 0)
        throw new UsageError('clock advance needs a duration such as 1d, 2h, 15m or 90s.');
      request = admin.call('POST', '/clock/advance', { seconds });
    } else {
      // reset: parseCommandArgs refused any other action.
      expectNoValue();
      request = admin.call('DELETE', '/clock');
    }
    const view = await request;
    io.stdout(args.flags['json'] ? `${JSON.stringify(view)}\n` : show(view));
    return 0;
  },
};
