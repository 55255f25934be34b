/**
 * Small multiples of line charts as a standalone SVG, for the scale run's curves. Written by hand: the chart
 * libraries that render SVG in Node (Vega, Plotly, Chart.js with a canvas) each bring a DOM or a canvas and tens of
 * megabytes to draw a few polylines, and the bench's output must not depend on a browser.
 */

export interface Series {
  /** A name ending in " deep" is drawn dashed, in the colour of the same name without it. */
  name: string;
  /** [x, y]; x on a log scale. */
  points: readonly [number, number][];
}

export interface Panel {
  title: string;
  series: readonly Series[];
}

const COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];
const WIDTH = 420;
const HEIGHT = 260;
const MARGIN = { left: 60, right: 16, top: 30, bottom: 40 };
const COLUMNS = 2;

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const compact = (value: number): string => {
  if (value >= 1e6) return `${+(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${+(value / 1e3).toFixed(1)}k`;
  return `${+value.toFixed(value < 10 ? 2 : 0)}`;
};

/** Round numbers for a linear axis from 0 to at least `max`. */
const ticks = (max: number): number[] => {
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  return Array.from({ length: Math.ceil(max / step) + 1 }, (_, i) => i * step);
};

const panelSvg = (panel: Panel, colourOf: (name: string) => string): string => {
  const xs = panel.series.flatMap((s) => s.points.map(([x]) => x));
  const ys = panel.series.flatMap((s) => s.points.map(([, y]) => y));
  if (xs.length === 0)
    return `<text x="${MARGIN.left}" y="${MARGIN.top}">${escapeXml(panel.title)}: no data</text>`;
  const [minX, maxX] = [Math.min(...xs), Math.max(...xs)];
  const yTicks = ticks(Math.max(...ys, 1e-9));
  const maxY = yTicks.at(-1)!;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const logSpan = Math.log10(maxX) - Math.log10(minX) || 1;
  const x = (value: number) =>
    MARGIN.left + (minX === maxX ? plotW / 2 : ((Math.log10(value) - Math.log10(minX)) / logSpan) * plotW);
  const y = (value: number) => MARGIN.top + plotH - (value / maxY) * plotH;
  const parts = [`<text x="${MARGIN.left}" y="18" font-weight="bold">${escapeXml(panel.title)}</text>`];
  for (const tick of yTicks)
    parts.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="#ddd"/>`,
      `<text x="${MARGIN.left - 6}" y="${y(tick) + 4}" text-anchor="end">${compact(tick)}</text>`,
    );
  // One tick per decade the points sit nearest: the stores' real sizes (9,104 and 10,803 entries, say) are
  // a few pixels apart on a log axis, and labelling each of them printed the labels over one another.
  for (const decade of [...new Set(xs.map((value) => 10 ** Math.round(Math.log10(value))))].sort(
    (a, b) => a - b,
  ))
    parts.push(
      `<line x1="${x(decade)}" x2="${x(decade)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#eee"/>`,
      `<text x="${x(decade)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${compact(decade)}</text>`,
    );
  for (const series of panel.series) {
    const colour = colourOf(series.name.replace(/ deep$/, ''));
    const dash = series.name.endsWith(' deep') ? ' stroke-dasharray="5 4"' : '';
    const coords = series.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2"${dash} points="${coords}"/>`);
    for (const [px, py] of series.points)
      parts.push(`<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="3" fill="${colour}"/>`);
  }
  return parts.join('\n');
};

export const lineChart = (chart: { title: string; panels: readonly Panel[] }): string => {
  const names = [...new Set(chart.panels.flatMap((p) => p.series.map((s) => s.name.replace(/ deep$/, ''))))];
  const colourOf = (name: string) => COLOURS[names.indexOf(name) % COLOURS.length]!;
  const rows = Math.ceil(chart.panels.length / COLUMNS);
  const legendHeight = 20 * names.length + 10;
  const width = WIDTH * COLUMNS;
  const height = 40 + rows * HEIGHT + legendHeight;
  const panels = chart.panels.map((panel, i) => {
    const dx = (i % COLUMNS) * WIDTH;
    const dy = 40 + Math.floor(i / COLUMNS) * HEIGHT;
    return `<g transform="translate(${dx},${dy})">${panelSvg(panel, colourOf)}</g>`;
  });
  const legend = names.map((name, i) => {
    const ly = 40 + rows * HEIGHT + 20 * i + 10;
    return `<line x1="20" x2="50" y1="${ly}" y2="${ly}" stroke="${colourOf(name)}" stroke-width="3"/><text x="58" y="${ly + 4}">${escapeXml(name)}</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(chart.title)}</title>`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="20" y="24" font-size="16" font-weight="bold">${escapeXml(chart.title)}</text>`,
    ...panels,
    ...legend,
    '</svg>',
    '',
  ].join('\n');
};
