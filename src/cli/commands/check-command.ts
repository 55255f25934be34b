import { checkLocation, checkStore } from '../../check/check-location.js';
import { describeCounts } from '../../records/kinds.js';
import { type Command, STORE_OPTIONS } from '../command.js';
import { withStore } from '../store-options.js';

export const checkCommand: Command = {
  name: 'check',
  summary: 'Verify that stored records are consistent (links, totals, on-hand, dates, statuses).',
  usage: 'larder check [--location ID] [--json]',
  options: {
    ...STORE_OPTIONS,
    location: { type: 'string', placeholder: 'ID', description: 'Check one location (default: all).' },
    json: { type: 'boolean', description: 'Print the reports as JSON.' },
  },
  notes:
    'Exit code 1 when anything is found, so it can gate an import in a script, even when a reader of its\n' +
    'output stops early (larder check | head: set -o pipefail sees the 1).',
  run: async (args, io) => {
    const location = args.strings['location'];
    const reports = await withStore(
      args,
      async (store) => {
        if (location === undefined) return checkStore(store);
        // Checking nothing and reporting "0 findings" would pass a gate that should fail.
        if ((await store.locations.get(location)) === undefined) return undefined;
        return [await checkLocation(store, location)];
      },
      (result) => result === undefined,
      { readsOnly: true },
    );
    if (reports === undefined) {
      io.stderr(
        `larder check: location ${location} does not exist (\`larder locations list\` shows them).\n`,
      );
      return 1;
    }
    const findings = reports.flatMap((report) => report.findings);
    if (args.flags['json']) io.stdout(`${JSON.stringify(reports, null, 2)}\n`);
    else {
      for (const report of reports) {
        io.stdout(`${report.locationId}: ${describeCounts(report)}, ${report.findings.length} finding(s)\n`);
        for (const finding of report.findings) {
          io.stdout(`  ${finding.kind}  ${finding.recordType} ${finding.recordId}: ${finding.message}\n`);
        }
      }
      if (reports.length === 0) io.stdout('No locations to check.\n');
    }
    return findings.length === 0 ? 0 : 1;
  },
};
