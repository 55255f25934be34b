// The bench's small tools share one way to read their flags: --help prints the usage, a mistake prints what is
// wrong with the usage and exits 2, never a stack.
import { parseArgs } from 'node:util';

/** Prints `message` (if any) and the usage to stderr and exits 2. */
export const usageError = (usage, message = '') => {
  process.stderr.write(`${message === '' ? '' : `${message}\n`}${usage}\n`);
  process.exit(2);
};

/** parseArgs with a `--help`/`-h` flag added, answered here. */
export const parseToolArgs = (usage, config) => {
  let parsed;
  try {
    parsed = parseArgs({
      ...config,
      options: { ...config.options, help: { type: 'boolean', short: 'h', default: false } },
    });
  } catch (error) {
    usageError(usage, error.message);
  }
  if (parsed.values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return parsed;
};
