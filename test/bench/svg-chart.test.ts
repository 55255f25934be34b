import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineChart } from '../../bench/svg-chart.js';

const labels = (svg: string): string[] =>
  [...svg.matchAll(/<text x="[^"]+" y="236" text-anchor="middle">([^<]+)<\/text>/g)].map((m) => m[1]!);

test('the x axis is labelled once per decade, not once per store size', () => {
  const svg = lineChart({
    title: 'cost',
    panels: [
      {
        title: 'GET p50',
        series: [
          {
            name: 'one location',
            points: [
              [9_104, 1],
              [100_445, 1],
              [1_000_709, 2],
            ],
          },
          {
            name: 'spread',
            points: [
              [10_803, 1],
              [80_490, 1],
              [901_395, 2],
            ],
          },
        ],
      },
    ],
  });
  assert.deepEqual(labels(svg), ['10k', '100k', '1M']);
});

test('a dashed series shares the colour of its solid namesake, and a panel without points says so', () => {
  const svg = lineChart({
    title: 'pages',
    panels: [
      {
        title: 'page p50',
        series: [
          {
            name: 'sqlite',
            points: [
              [10_000, 5],
              [1_000_000, 6],
            ],
          },
          {
            name: 'sqlite deep',
            points: [
              [10_000, 6],
              [1_000_000, 7],
            ],
          },
        ],
      },
      { title: 'empty', series: [] },
    ],
  });
  const lines = [
    ...svg.matchAll(/<polyline fill="none" stroke="([^"]+)" stroke-width="2"( stroke-dasharray)?/g),
  ];
  assert.equal(lines.length, 2);
  assert.equal(lines[0]![1], lines[1]![1]);
  assert.equal(lines[0]![2], undefined);
  assert.equal(lines[1]![2], ' stroke-dasharray');
  assert.match(svg, /empty: no data/);
});
