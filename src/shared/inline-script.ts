import { createHash } from 'node:crypto';

/** The Content-Security-Policy source that lets a page run this one inline script, by its SHA-256, and no other. */
export const inlineScriptSource = (script: string): string =>
  `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
