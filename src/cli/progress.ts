import type { CommandIo } from './command.js';

/** Erases the rest of the terminal line: a shorter count must not leave the end of a longer one behind. */
const ERASE_LINE_END = '\x1b[K';

/**
 * A one-line progress counter on a terminal (stderr), silent otherwise so logs and pipes stay clean. `unit` is the
 * plural (`records`); one is said in the singular. `now` is the monotonic clock (injected by tests).
 */
export const createProgress = (io: CommandIo, unit: string, now: () => number = () => performance.now()) => {
  let last = Number.NEGATIVE_INFINITY;
  let shown = false;
  const started = now();
  const one = unit.replace(/s$/, '');
  return {
    update: (count: number) => {
      const at = now();
      if (!io.isTty || at - last < 200) return;
      last = at;
      shown = true;
      const seconds = (at - started) / 1000;
      const rate = seconds > 0 ? `${Math.round(count / seconds).toLocaleString('en-US')}/s` : 'starting';
      io.stderr(`\r${count.toLocaleString('en-US')} ${count === 1 ? one : unit} (${rate})${ERASE_LINE_END}`);
    },
    done: () => {
      if (shown) io.stderr('\n');
    },
  };
};
