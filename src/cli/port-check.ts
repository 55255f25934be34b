import { createServer } from 'node:http';
import { listen } from '../server/server.js';

/**
 * Fails at once when `port` is taken, before a first start spends seconds building demo data it would then
 * throw away. The real bind follows; a process that takes the port in between still gets the same error there.
 */
export const checkPortFree = async (host: string, port: number, flag = '--port'): Promise<void> => {
  if (port === 0) return;
  const probe = createServer();
  await listen(probe, port, host, flag);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
};
