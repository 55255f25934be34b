import { cpus } from 'node:os';
import type { LoopDelay } from './larder-process.js';

/** One line of the results table; numbers stay numbers in latest.json. */
export interface Row {
  scenario: string;
  /** raw node:http, Larder (sqlite|postgres), Prism, or the in-process operation measured. */
  server: string;
  /** Requests (or records) per second; undefined for one-shot figures. */
  rate?: number;
  /** Unit of `rate` when it is not requests. */
  rateUnit?: string;
  p50?: number;
  p99?: number;
  /** Ratio to the raw server in the same run (or the peer ratio, as `ratioLabel` says). */
  ratio?: number;
  ratioLabel?: string;
  /** One-shot figure (ms, MB) with its unit. */
  value?: { amount: number; unit: string };
  target?: string;
  pass?: boolean;
  note?: string;
  /** The event loop's delay in the server under load (ms): p99 and max over the scenario's runs. */
  loopDelay?: LoopDelay;
}

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export const machineLine = (): string => {
  const list = cpus();
  return `${list[0]?.model.trim() ?? 'unknown CPU'}, ${list.length} cores, Node ${process.version}, ${process.platform}/${process.arch}`;
};

const number = (value: number): string =>
  value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(value >= 10 ? 1 : 2);

const cell = (row: Row, key: 'rate' | 'p50' | 'p99'): string => {
  const value = row[key];
  if (value === undefined) return key === 'rate' && row.value !== undefined ? '' : '';
  return key === 'rate'
    ? `${number(value)}${row.rateUnit === undefined ? '' : ` ${row.rateUnit}`}`
    : `${value}`;
};

export const markdownTable = (rows: readonly Row[]): string => {
  const lines = [
    '| Scenario | Server | req/s | p50 ms | p99 ms | Ratio | Target | Result | Loop delay p99 / max ms (longest GC pause) |',
    '|---|---|---:|---:|---:|---:|---|---|---:|',
  ];
  for (const row of rows) {
    const rate =
      row.value === undefined ? cell(row, 'rate') : `${number(row.value.amount)} ${row.value.unit}`;
    const ratio =
      row.ratio === undefined ? '' : `${row.ratio.toFixed(2)}${row.ratioLabel ? ` ${row.ratioLabel}` : ''}`;
    const result =
      row.pass === undefined
        ? (row.note ?? '')
        : `${row.pass ? 'pass' : '**FAIL**'}${row.note ? ` (${row.note})` : ''}`;
    const delay =
      row.loopDelay === undefined
        ? ''
        : `${row.loopDelay.p99} / ${row.loopDelay.max > 5 ? `**${row.loopDelay.max}**` : row.loopDelay.max} (${row.loopDelay.gcMax})`;
    lines.push(
      `| ${row.scenario} | ${row.server} | ${rate} | ${cell(row, 'p50')} | ${cell(row, 'p99')} | ${ratio} | ${row.target ?? ''} | ${result} | ${delay} |`,
    );
  }
  return lines.join('\n');
};
