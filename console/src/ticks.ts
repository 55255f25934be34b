/**
 * Axis ticks from 0 at a round step (1, 2, 2.5 or 5 times a power of ten), about `count` of them, the last at or
 * above `max` so the largest value stays inside the chart.
 */
export const niceTicks = (max: number, count = 4): number[] => {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks = [0];
  // Multiples, not sums, to 12 digits: float error (3 × 0.1) must not show in a label. The step is at least
  // max / count, so at most count + 1 ticks.
  for (let n = 1; ticks.at(-1)! < max; n++) ticks.push(Number((n * step).toPrecision(12)));
  return ticks;
};
