import { randomBytes } from 'node:crypto';

/**
 * `bytes` random bytes as base64url, never starting with `-`: a secret pasted after a command-line flag
 * (`--admin-token -abc…`, `--client-secret -abc…`) would be read as an option, about one time in 64. Drawing
 * again keeps every character uniform except the first, which loses one value of 64.
 */
export const randomToken = (bytes: number): string => {
  for (;;) {
    const token = randomBytes(bytes).toString('base64url');
    if (!token.startsWith('-')) return token;
  }
};
