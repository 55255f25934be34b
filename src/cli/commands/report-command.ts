import type { IntegrationReport } from '../../sandbox/admin-schemas.js';
import { ADMIN_OPTIONS, adminClient } from '../admin-client.js';
import { type Command, requiredOption } from '../command.js';
import { droppedEntries } from './requests-command.js';

/** The exit code when the journal holds none of the client's requests. */
const NOTHING_JUDGED = 4;

/** Said when the journal wrapped: a clean report of the newest traffic is not a clean report of the whole run. */
const droppedWarning = (dropped: number): string =>
  `Warning: ${droppedEntries(dropped)}, so earlier traffic was not judged. Clear it ` +
  'before the run (larder requests clear) or raise --journal-size.\n';

export const reportCommand: Command = {
  name: 'report',
  summary: "Judge a client's recorded traffic against the platform's guidance for integrators.",
  usage: 'larder report --client ID [--json]',
  options: {
    ...ADMIN_OPTIONS,
    client: { type: 'string', placeholder: 'ID', description: 'The client id to judge (required).' },
    json: { type: 'boolean', description: 'Print the report as JSON.' },
  },
  notes:
    'Exit code 0 when the client behaves, 3 when there are findings, 4 when the journal holds no request of that client (a misspelt id, or traffic not sent yet): nothing was judged.',
  run: async (args, io) => {
    const clientId = requiredOption(args, 'client');
    const report = await adminClient(args).call<IntegrationReport>(
      'GET',
      `/report?clientId=${encodeURIComponent(clientId)}`,
    );
    if (args.flags['json']) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    else if (report.requestsJudged === 0)
      io.stdout(
        `${clientId}: no recorded requests, so nothing was judged. Is the id right? \`larder requests\` lists the clients seen.\n`,
      );
    else if (report.findings.length === 0)
      io.stdout(`${clientId}: no findings in ${report.requestsJudged} recorded requests.\n`);
    else {
      io.stdout(
        `${clientId}: ${report.findings.length} finding(s) in ${report.requestsJudged} recorded requests.\n`,
      );
      for (const finding of report.findings)
        io.stdout(
          `\n[${finding.severity}] ${finding.rule} (×${finding.count})\n  ${finding.message}\n  e.g. ${finding.exampleRequestIds.join(', ')}\n`,
        );
    }
    if (report.dropped > 0) io.stderr(droppedWarning(report.dropped));
    // A report of nothing is not a pass: a CI step checking a misspelt client id would otherwise always succeed.
    if (report.requestsJudged === 0) return NOTHING_JUDGED;
    return report.findings.length === 0 ? 0 : 3;
  },
};
