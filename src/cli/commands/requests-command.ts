import { setTimeout as delay } from 'node:timers/promises';
import type { Cleared, JournalList } from '../../sandbox/admin-schemas.js';
import type { JournalEntry } from '../../sandbox/journal-entry.js';
import { ADMIN_OPTIONS, AdminApiError, adminClient } from '../admin-client.js';
import { type Command, UsageError } from '../command.js';

const line = (entry: JournalEntry) =>
  [
    entry.time,
    entry.method.padEnd(6),
    String(entry.status),
    (entry.operation ?? entry.path).padEnd(24),
    entry.clientId ?? '-',
    entry.location ?? '-',
    entry.code === undefined ? '' : `code=${entry.code}`,
    entry.fault === undefined ? '' : `fault=${entry.fault}`,
    `${entry.durationMs} ms`,
    entry.requestId,
  ]
    .filter((cell) => cell !== '')
    .join('  ');

/** That the journal wrapped, so what it lists (or judges) is only the newest traffic. */
export const droppedEntries = (dropped: number): string =>
  `the journal dropped its ${dropped} oldest entr${dropped === 1 ? 'y' : 'ies'} since it was last cleared ` +
  '(it keeps the newest --journal-size per worker)';

/** That requests arrived between two --follow polls and the full journal let them go before they were listed. */
export const missedEntries = (missed: number): string =>
  `${missed} request${missed === 1 ? '' : 's'} (of any client) arrived and left the full journal before ` +
  'this poll could list them: raise --journal-size';

/** How often --follow asks for new entries. */
const FOLLOW_INTERVAL_MS = 1000;

/** Each filter flag and the query parameter it is sent as. */
const FILTERS = [
  ['client', 'clientId'],
  ['location', 'location'],
  ['operation', 'operation'],
  ['status', 'status'],
  ['since', 'since'],
] as const;

/**
 * The server's refusal of a filter, said as the flag given: the server is the one judge of what a filter takes
 * (operation ids, the date-time rule), and the mistake was the caller's, so a usage error (exit 2).
 */
const asUsageError = (error: unknown): unknown => {
  if (!(error instanceof AdminApiError) || error.answer?.status !== 400) return error;
  const { fieldName, message } = error.answer;
  // --limit goes with the first listing only, so it is no filter, but the server judges it too.
  const filter = [...FILTERS, ['limit', 'limit'] as const].find(([, param]) => param === fieldName);
  if (filter === undefined || message === undefined) return error;
  const [option, param] = filter;
  return new UsageError(
    message.startsWith(`${param} `) ? `--${option}${message.slice(param.length)}` : `--${option}: ${message}`,
  );
};

export const requestsCommand: Command = {
  name: 'requests',
  summary: "Show a running sandbox's request journal (oldest first), or clear it.",
  usage:
    'larder requests [--client ID] [--location ID] [--operation OP] [--status 4xx] [--since DATE] [--limit N]\n' +
    '                       [--follow] [--json]\n' +
    '       larder requests clear',
  takesArguments: true,
  actions: {
    '': ['client', 'location', 'operation', 'status', 'since', 'limit', 'follow', 'json'],
    clear: [],
  },
  options: {
    ...ADMIN_OPTIONS,
    client: { type: 'string', placeholder: 'ID', description: "Only this client's requests." },
    location: { type: 'string', placeholder: 'ID', description: 'Only requests for this location.' },
    operation: { type: 'string', placeholder: 'OP', description: 'Only this operation id.' },
    status: { type: 'string', placeholder: 'STATUS', description: 'Only this status (429) or class (4xx).' },
    since: {
      type: 'string',
      placeholder: 'DATE',
      description:
        'Only requests at or after this day (YYYY-MM-DD: from its midnight UTC) or date-time (RFC 3339: 2025-06-01T09:00:00Z, or with ±HH:MM), on the virtual clock.',
    },
    limit: {
      type: 'string',
      placeholder: 'N',
      description: 'Only the newest N (still oldest first); with --follow, of those already recorded.',
    },
    follow: {
      type: 'boolean',
      description:
        'Keep printing new requests as they arrive (Ctrl-C stops, as does a reader that stops: | head).',
    },
    json: { type: 'boolean', description: 'One JSON object per line.' },
  },
  run: async (args, io) => {
    const [action, ...rest] = args.positionals;
    // The word at fault: an unknown action, or the first word after `clear`.
    const unexpected = action === 'clear' ? rest[0] : action;
    if (unexpected !== undefined)
      throw new UsageError(
        `Unexpected argument '${unexpected}': larder requests lists, larder requests clear clears.`,
      );
    const admin = adminClient(args);
    if (action === 'clear') {
      const { recording } = await admin.call<Cleared>('DELETE', '/requests');
      io.stdout(
        recording
          ? 'Cleared the request journal: it is empty now.\n'
          : 'The request journal is off (--journal-size 0): nothing is recorded, so there was nothing to clear.\n',
      );
      return 0;
    }
    const query = new URLSearchParams();
    for (const [option, param] of FILTERS) {
      const value = args.strings[option];
      if (value !== undefined) query.set(param, value);
    }
    const print = (requests: readonly JournalEntry[]) => {
      for (const entry of requests)
        io.stdout(args.flags['json'] ? `${JSON.stringify(entry)}\n` : `${line(entry)}\n`);
    };
    // --limit trims the first listing only: each poll then lists everything recorded since the one before.
    const first = new URLSearchParams(query);
    if (args.strings['limit'] !== undefined) first.set('limit', args.strings['limit']);
    const { requests, dropped, next } = await admin
      .call<JournalList>('GET', `/requests?${first}`)
      .catch((error: unknown) => {
        throw asUsageError(error);
      });
    print(requests);
    if (dropped > 0) io.stderr(`Warning: ${droppedEntries(dropped)}.\n`);
    // Said, not left blank, so an empty answer is not mistaken for a hung command; never in --json output, nor
    // after --limit 0, which asked for no entry (with --follow: only those to come) whatever the journal holds.
    if (requests.length === 0 && args.flags['json'] !== true && Number(args.strings['limit']) !== 0)
      io.stdout(query.size === 0 ? 'No requests recorded yet.\n' : 'No recorded requests match.\n');
    if (args.flags['follow'] !== true) return 0;
    let after = next;
    // A reader that stopped (`| head -1`) is found at the next write, as `tail -f` finds it: the follow has then
    // printed all it was asked for.
    for (;;) {
      const gone = await delay(FOLLOW_INTERVAL_MS, false, { signal: io.stdoutGone }).catch(() => true);
      if (gone) return 0;
      query.set('after', after);
      const poll = await admin.call<JournalList>('GET', `/requests?${query}`);
      // The journal is bounded, so a poll is too; what it let go before this poll could list it is said, not skipped.
      if (poll.missed !== undefined && poll.missed > 0)
        io.stderr(`Warning: ${missedEntries(poll.missed)}.\n`);
      print(poll.requests);
      after = poll.next;
    }
  },
};
