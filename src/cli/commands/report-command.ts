import type { Finding } from '../../sandbox/report.js';
import { ADMIN_OPTIONS, adminClient } from '../admin-client.js';
import { type Command, requiredOption } from '../command.js';

interface Report {
  clientId: string;
  requestsJudged: number;
  findings: Finding[];
}

export const reportCommand: Command = {
  name: 'report',
  summary: "Judge a client's recorded traffic against the platform's guidance for integrators.",
  usage: 'larder report --client ID [--json]',
  options: {
    ...ADMIN_OPTIONS,
    client: { type: 'string', placeholder: 'ID', description: 'The client id to judge (required).' },
    json: { type: 'boolean', description: 'Print the report as JSON.' },
  },
  notes: 'Exit code 0 when the client behaves, 3 when there are findings.',
  run: async (args, io) => {
    const clientId = requiredOption(args, 'client');
    const report = await adminClient(args).call<Report>(
      'GET',
      `/report?clientId=${encodeURIComponent(clientId)}`,
    );
    if (args.flags['json']) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
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
    return report.findings.length === 0 ? 0 : 3;
  },
};
