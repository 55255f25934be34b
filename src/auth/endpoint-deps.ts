import type { Clock } from '../shared/clock.js';
import type { TokenMinter } from './token-minter.js';

/**
 * What both credential endpoints (login, OAuth token) need. Client authentication and its throttle reach them
 * through the login-throttle middleware (`c.get('checkCredentials')`), the same for both.
 */
export interface AuthEndpointDeps {
  mint: TokenMinter;
  /** The key that signs now: a token kept for reuse that another key signed is not handed out again. */
  signingKid: () => Promise<string>;
  clock: Clock;
}
