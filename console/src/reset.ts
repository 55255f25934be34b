/** What "Reset sandbox" does (README, `POST /_larder/reset`), said before the user confirms it. */
export const RESET_EFFECTS =
  'The demo data goes back to as first generated (then caught up to today), every client but the demo client is ' +
  'removed, the clock returns to real time, the request journal is emptied, the fault rules are removed, and ' +
  'failed logins and rate-limit counts are forgotten. Data loaded or changed since is lost.';

/** A reset's failure, in words: the server's status alone (a 409) does not say whether anything changed. */
export const resetFailure = (status: number, message: string): string =>
  status === 409
    ? 'Nothing was reset: only a database first started as a demo can go back to its first start, and this one ' +
      'was not first started as a demo.'
    : status === 0
      ? `${message} The sandbox may or may not have been reset: the views show what Larder holds once it answers.`
      : `The reset failed: ${message}`;
