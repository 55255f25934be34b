import type { Clock } from '../shared/clock.js';
import type { TokenMinter } from './token-minter.js';

/**
 * What both credential endpoints (login, OAuth token) need. Client authentication and its throttle reach them
 * through the login-throttle middleware (`c.get('checkCredentials')`), the same for both.
 */
export interface AuthEndpointDeps {
  mint: TokenMinter;
  clock: Clock;
}
