// Preloaded (`node --import`) into a CLI whose standard error a test takes away: an exception nothing handled
// could not print its stack there, so it is recorded in the file LARDER_UNCAUGHT_LOG names.
import { appendFileSync } from 'node:fs';

process.on('uncaughtExceptionMonitor', (error) => {
  appendFileSync(process.env.LARDER_UNCAUGHT_LOG ?? 'larder-uncaught.log', `${error?.stack ?? error}\n`);
});
