import type { CommandIo } from './command.js';

/** A one-line progress counter on a terminal (stderr), silent otherwise so logs and pipes stay clean. */
export const createProgress = (io: CommandIo, unit: string) => {
  let last = 0;
  let shown = false;
  const started = performance.now();
  return {
    update: (count: number) => {
      const now = performance.now();
      if (!io.isTty || now - last < 200) return;
      last = now;
      shown = true;
      const rate = Math.round(count / ((now - started) / 1000));
      io.stderr(`\r${count.toLocaleString('en-US')} ${unit} (${rate.toLocaleString('en-US')}/s)   `);
    },
    done: () => {
      if (shown) io.stderr('\n');
    },
  };
};
