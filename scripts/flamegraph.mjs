#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * node scripts/flamegraph.mjs PROFILE.cpuprofile OUT.svg [--title TEXT] [--root FUNCTION]
 *
 * A flame graph of a V8 CPU profile (`node --cpu-prof`, `npm run bench -- --cpu-prof DIR`) as one standalone SVG
 * (hover a frame for its name, file and share), idle time left out. Written by hand because the npm flame-graph tools render HTML
 * pages meant for a browser (0x, clinic, speedscope), and the SVG must stand in docs/ on its own; the format
 * is a tree of call frames with sample counts, so the layout is a short recursion. `--root` draws only the
 * stacks under the first frame of that name (e.g. the page handler), as shares of the whole profile.
 */
const [input, output, ...rest] = process.argv.slice(2);
if (input === undefined || output === undefined) {
  process.stderr.write(
    'usage: node scripts/flamegraph.mjs PROFILE.cpuprofile OUT.svg [--title TEXT] [--root FUNCTION]\n',
  );
  process.exit(2);
}
const flag = (name) => {
  const i = rest.indexOf(name);
  return i === -1 ? undefined : rest[i + 1];
};
const title = flag('--title') ?? basename(input);
const rootName = flag('--root');

const profile = JSON.parse(readFileSync(input, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const label = (frame) => {
  const name = frame.functionName || '(anonymous)';
  const file = frame.url ? frame.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '') : '';
  return file ? `${name} ${file.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}` : name;
};

/** Frames merged by label along each path, with total and self sample counts. */
const merge = (node) => {
  // Idle time is not work: without it the widths are shares of the CPU the process used.
  const idle = node.callFrame.functionName === '(idle)';
  const merged = {
    name: label(node.callFrame),
    self: idle ? 0 : (node.hitCount ?? 0),
    total: 0,
    children: new Map(),
  };
  for (const childId of node.children ?? []) {
    const child = merge(byId.get(childId));
    const same = merged.children.get(child.name);
    if (same === undefined) merged.children.set(child.name, child);
    else absorb(same, child);
  }
  merged.total = merged.self + [...merged.children.values()].reduce((sum, child) => sum + child.total, 0);
  return merged;
};
const absorb = (into, from) => {
  into.self += from.self;
  into.total += from.total;
  for (const [name, child] of from.children) {
    const same = into.children.get(name);
    if (same === undefined) into.children.set(name, child);
    else absorb(same, child);
  }
};

const find = (frame, name) => {
  if (frame.name.startsWith(`${name} `) || frame.name === name) return frame;
  for (const child of frame.children.values()) {
    const found = find(child, name);
    if (found !== undefined) return found;
  }
  return undefined;
};

const whole = merge(profile.nodes[0]);
const root = rootName === undefined ? whole : find(whole, rootName);
if (root === undefined) {
  process.stderr.write(`no frame named ${rootName} in ${input}\n`);
  process.exit(1);
}

const WIDTH = 1200;
const ROW = 17;
const scale = WIDTH / root.total;
const rects = [];
let depthMax = 0;
const escapeXml = (text) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
// Warm colours by a hash of the name, as Brendan Gregg's flamegraph.pl does, so a function keeps its colour.
const colour = (name) => {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return `rgb(${205 + (hash % 50)},${80 + ((hash >>> 8) % 130)},${(hash >>> 16) % 60})`;
};
const layout = (frame, x, depth) => {
  const width = frame.total * scale;
  if (width < 0.5) return;
  depthMax = Math.max(depthMax, depth);
  rects.push({ frame, x, depth, width });
  let childX = x;
  for (const child of [...frame.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    layout(child, childX, depth + 1);
    childX += child.total * scale;
  }
};
layout(root, 0, 0);

const height = (depthMax + 1) * ROW + 50;
const share = (count) => `${((count / whole.total) * 100).toFixed(1)}%`;
const body = rects.map(({ frame, x, depth, width }) => {
  // Flames grow upwards: the root at the bottom.
  const y = height - 10 - (depth + 1) * ROW;
  const text = width > 40 ? frame.name.slice(0, Math.floor(width / 6.5)) : '';
  return (
    `<g><title>${escapeXml(frame.name)}: ${share(frame.total)} of all samples (self ${share(frame.self)})</title>` +
    `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(width - 0.5, 0.5).toFixed(1)}" height="${ROW - 1}" fill="${colour(frame.name)}"/>` +
    (text ? `<text x="${(x + 3).toFixed(1)}" y="${y + ROW - 5}">${escapeXml(text)}</text>` : '') +
    '</g>'
  );
});
writeFileSync(
  output,
  [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="monospace" font-size="11">`,
    `<title>${escapeXml(title)}</title>`,
    '<rect width="100%" height="100%" fill="#fdfdf5"/>',
    `<text x="6" y="20" font-size="14" font-family="sans-serif">${escapeXml(title)} (${root.total.toLocaleString('en-US')} samples${rootName === undefined ? '' : `, ${share(root.total)} of the profile`})</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n'),
);
