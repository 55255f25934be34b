import type { ClockView } from '../../src/shared/virtual-clock.js';

/**
 * Whether the clock was moved between two reads (set, advanced, frozen, run again or reset), rather than only
 * running on: a running clock keeps its offset from real time, a frozen one its time. The offset is whole seconds
 * rounded, so a second's difference is rounding, not a move.
 */
export const clockMoved = (before: ClockView, after: ClockView): boolean =>
  before.frozen !== after.frozen ||
  (after.frozen ? before.now !== after.now : Math.abs(after.offsetSeconds - before.offsetSeconds) > 1);

/**
 * What the header's badge shows: the virtual time at `now`, run on locally from the last read unless frozen; none
 * before the first read, nor while Larder does not answer (it may have stopped, or the clock moved meanwhile).
 */
export const badgeTime = (
  read: { view: ClockView; readAt: number } | undefined,
  now: number,
  answering: boolean,
): string | undefined =>
  read === undefined || !answering
    ? undefined
    : read.view.frozen
      ? read.view.now
      : new Date(Date.parse(read.view.now) + now - read.readAt).toISOString();
