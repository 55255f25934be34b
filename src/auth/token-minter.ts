import type { Clock } from '../shared/clock.js';
import { type IssuedToken, issueAccessToken, type TokenSettings } from './access-tokens.js';
import type { AuthState } from './auth-state.js';

export type TokenMinter = (clientId: string, scopes: readonly string[]) => Promise<IssuedToken>;

/** The kid of the key active in the store right now (re-read as for minting). */
export const currentSigningKid = async (state: AuthState): Promise<string> => {
  await state.refresh();
  return state.keys().signingKid;
};

/**
 * Signs with the key active in the store right now: the auth version is re-read first (one small query,
 * shared by concurrent logins), so a key rotated or retired elsewhere never signs again, even before the poll.
 */
export const createTokenMinter =
  (state: AuthState, settings: TokenSettings, clock: Clock): TokenMinter =>
  async (clientId, scopes) => {
    await state.refresh();
    return issueAccessToken(state.keys(), settings, clock, clientId, scopes);
  };
