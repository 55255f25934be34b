/** Wall-clock time, injected wherever time matters so tests can move it without sleeping. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface TestClock extends Clock {
  set(epochMs: number | Date): void;
  advance(ms: number): void;
}

export const createTestClock = (start: number | Date = Date.UTC(2024, 0, 1)): TestClock => {
  let current = typeof start === 'number' ? start : start.getTime();
  return {
    now: () => current,
    set: (epochMs) => {
      current = typeof epochMs === 'number' ? epochMs : epochMs.getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
};
