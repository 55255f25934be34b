/** CI=true (or 1/yes), as GitHub Actions, GitLab and most CI services set it: there, tests must not skip. */
export const runningInCi = (env: NodeJS.ProcessEnv = process.env): boolean =>
  /^(true|1|yes)$/i.test(env['CI'] ?? '');
