#!/usr/bin/env node
// Rewrites docs/api.md from the schemas (compiled dist/; `npm run build` first, as `npm run docs` does).
import { writeFileSync } from 'node:fs';
import { renderApiReference } from '../dist/server/api-reference.js';

writeFileSync(new URL('../docs/api.md', import.meta.url), renderApiReference());
console.log('docs/api.md written');
