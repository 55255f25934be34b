#!/usr/bin/env node
// Fails when the top-level folders of src import each other in a cycle (src/x/y/z.ts belongs to `x`).
// Usage: node scripts/check-imports.mjs [ROOT]   (ROOT defaults to the current directory; its src/ is checked)
// Counts static `import … from '…'`, side-effect `import '…'`, `export … from '…'` and dynamic `import('…')`,
// type-only ones included (they still couple the folders). Only relative specifiers are followed.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(process.argv[2] ?? '.');
const src = join(root, 'src');

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.(m|c)?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

/** Commented-out imports do not count. */
const stripComments = (text) =>
  text.replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`\\])\/\/[^\n]*/g, (_match, before) => (before ?? '') + ' ');

const SPECIFIERS = [
  // import x from '…', import type { x } from '…', export * from '…', export { x } from '…' (across lines too)
  /\b(?:import|export)\s+(?:type\s+)?[^'"`;()]*?\bfrom\s*(['"])([^'"]+)\1/g,
  // import '…'
  /\bimport\s*(['"])([^'"]+)\1/g,
  // import('…'), await import("…")
  /\bimport\s*\(\s*(['"`])([^'"`]+)\1\s*\)/g,
];

const importsOf = (text) => {
  const code = stripComments(text);
  const found = new Set();
  for (const pattern of SPECIFIERS) for (const match of code.matchAll(pattern)) found.add(match[2]);
  return [...found];
};

/** The top-level folder of src a file belongs to; files directly in src belong to `.`. */
const folderOf = (file) => {
  const parts = relative(src, file).split(sep);
  return parts.length > 1 ? parts[0] : '.';
};

// folder → folder → one example edge `file → specifier`
const edges = new Map();
for (const file of files(src)) {
  const from = folderOf(file);
  for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
    if (!specifier.startsWith('.')) continue;
    const target = resolve(dirname(file), specifier);
    if (relative(src, target).startsWith('..')) continue;
    const to = folderOf(target);
    if (to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const out = edges.get(from);
    if (!out.has(to)) out.set(to, `${relative(root, file)} → ${specifier}`);
  }
}

// Strongly connected components (Tarjan): each one with more than one folder is a cycle.
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
let counter = 0;
const connect = (node) => {
  index.set(node, counter);
  low.set(node, counter);
  counter++;
  stack.push(node);
  onStack.add(node);
  for (const next of edges.get(node)?.keys() ?? []) {
    if (!index.has(next)) {
      connect(next);
      low.set(node, Math.min(low.get(node), low.get(next)));
    } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
  }
  if (low.get(node) === index.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  }
};
for (const node of [...edges.keys()].sort()) if (!index.has(node)) connect(node);

if (components.length === 0) {
  console.log(
    `check-imports: no import cycles between the folders of ${relative(process.cwd(), src) || src}.`,
  );
} else {
  console.error(`check-imports: ${components.length} import cycle(s) between the folders of src:`);
  for (const component of components.sort((a, b) => a[0].localeCompare(b[0]))) {
    console.error(`\n  ${component.join(' ⇄ ')}`);
    const members = new Set(component);
    for (const from of component)
      for (const [to, example] of [...(edges.get(from) ?? new Map())].sort()) {
        if (members.has(to)) console.error(`    ${from} → ${to}   (e.g. ${example})`);
      }
  }
  process.exitCode = 1;
}
