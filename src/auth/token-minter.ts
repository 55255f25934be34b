import type { Clock } from '../shared/clock.js';
import { type IssuedToken, issueAccessToken, type TokenSettings } from './access-tokens.js';
import type { AuthState } from './auth-state.js';

export type TokenMinter = (clientId: string, scopes: readonly string[]) => Promise<IssuedToken>;

/** Signs with whatever key is active in this instance's current view of the store. */
export const createTokenMinter =
  (state: AuthState, settings: TokenSettings, clock: Clock): TokenMinter =>
  (clientId, scopes) =>
    issueAccessToken(state.keys(), settings, clock, clientId, scopes);
