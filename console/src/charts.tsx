/**
 * Charts in plain SVG: two chart types with a few dozen to a few hundred marks need no library, and hand-made SVG
 * adds under 2 kB to the bundle (a charting library adds 40–200 kB), scales with the page through its viewBox,
 * and gives each mark a native tooltip (<title>) and a class the browser tests count.
 */

import { PALETTE } from './palette';
import { niceTicks } from './ticks';

const W = 760;
const H = 260;
const PAD = { left: 56, right: 12, top: 12, bottom: 28 };

/**
 * Colours by a fixed order of names: every adjustment type keeps its colour from item to item (its place in the
 * interface's list), and suppliers take theirs by rank.
 */
export const colourOf =
  (order: readonly string[]) =>
  (name: string): string =>
    PALETTE[Math.max(order.indexOf(name), 0) % PALETTE.length]!;

const Legend = ({ names, colour }: { names: string[]; colour: (name: string) => string }) => (
  <ul class="legend">
    {names.map((name) => (
      <li key={name}>
        <span class="swatch" style={{ background: colour(name) }} />
        {name}
      </li>
    ))}
  </ul>
);

export interface StepPoint {
  at: number;
  value: number;
  /** Colours the mark and names it in the legend. */
  kind: string;
  label: string;
}

/** A quantity over time: a step line (the balance holds until the next entry) with each entry marked by kind. */
export const StepChart = ({
  points,
  title,
  kinds,
}: {
  points: StepPoint[];
  title: string;
  /** Every kind a point may have, in the order that fixes their colours. */
  kinds: readonly string[];
}) => {
  const colour = colourOf(kinds);
  if (points.length === 0) return <p class="empty">No entries in this window.</p>;
  const first = points[0]!.at;
  const last = points.at(-1)!.at;
  const span = Math.max(last - first, 1);
  const ticks = niceTicks(Math.max(...points.map((p) => p.value)));
  const top = ticks.at(-1)! || 1;
  const x = (at: number) => PAD.left + ((at - first) / span) * (W - PAD.left - PAD.right);
  const y = (value: number) => H - PAD.bottom - (value / top) * (H - PAD.top - PAD.bottom);
  let path = '';
  points.forEach((point, i) => {
    path += i === 0 ? `M${x(point.at)},${y(point.value)}` : `H${x(point.at)}V${y(point.value)}`;
  });
  const days = [first, first + span / 2, last];
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title} data-points={points.length}>
        {ticks.map((tick) => (
          <g key={tick}>
            <line class="grid" x1={PAD.left} x2={W - PAD.right} y1={y(tick)} y2={y(tick)} />
            <text class="tick" x={PAD.left - 6} y={y(tick) + 4} text-anchor="end">
              {tick}
            </text>
          </g>
        ))}
        {days.map((at, i) => (
          <text
            key={at}
            class="tick"
            x={x(at)}
            y={H - 8}
            text-anchor={i === 0 ? 'start' : i === 2 ? 'end' : 'middle'}
          >
            {new Date(at).toISOString().slice(0, 10)}
          </text>
        ))}
        <path class="line" d={path} />
        {points.map((point) => (
          <circle class="point" cx={x(point.at)} cy={y(point.value)} r={4} fill={colour(point.kind)}>
            <title>{point.label}</title>
          </circle>
        ))}
      </svg>
      <Legend names={kinds.filter((kind) => points.some((p) => p.kind === kind))} colour={colour} />
    </figure>
  );
};

export interface Series {
  name: string;
  values: number[];
}

/** Stacked bars: one bar per column (week), one segment per series (supplier). */
export const StackedBars = ({
  columns,
  series,
  title,
}: {
  columns: string[];
  series: Series[];
  title: string;
}) => {
  const colour = colourOf(series.map((s) => s.name));
  const totals = columns.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  if (series.length === 0 || totals.every((total) => total === 0))
    return <p class="empty">No purchasing in this window.</p>;
  const ticks = niceTicks(Math.max(...totals));
  const top = ticks.at(-1)! || 1;
  const slot = (W - PAD.left - PAD.right) / columns.length;
  const scale = (value: number) => (value / top) * (H - PAD.top - PAD.bottom);
  const y = (value: number) => H - PAD.bottom - scale(value);
  const labelEvery = Math.ceil(columns.length / 6);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={title}
        data-points={series.length * columns.length}
      >
        {ticks.map((tick) => (
          <g key={tick}>
            <line class="grid" x1={PAD.left} x2={W - PAD.right} y1={y(tick)} y2={y(tick)} />
            <text class="tick" x={PAD.left - 6} y={y(tick) + 4} text-anchor="end">
              {tick >= 1000 ? `${tick / 1000}k` : tick}
            </text>
          </g>
        ))}
        {columns.map((column, i) => {
          let base = 0;
          return (
            <g key={column}>
              {series.map((s) => {
                const value = s.values[i] ?? 0;
                if (value === 0) return null;
                const rect = (
                  <rect
                    class="bar"
                    x={PAD.left + i * slot + slot * 0.15}
                    width={slot * 0.7}
                    y={y(base + value)}
                    height={scale(value)}
                    fill={colour(s.name)}
                  >
                    <title>{`${s.name}, week of ${column}: ${value.toFixed(2)}`}</title>
                  </rect>
                );
                base += value;
                return rect;
              })}
              {i % labelEvery === 0 ? (
                <text class="tick" x={PAD.left + i * slot + slot / 2} y={H - 8} text-anchor="middle">
                  {column.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <Legend names={series.map((s) => s.name)} colour={colour} />
    </figure>
  );
};
