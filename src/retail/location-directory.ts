import type { Clock } from '../shared/clock.js';
import type { Store } from '../storage/store.js';

/**
 * Which locations exist, for the retail routes' 404 on an unknown location. Known locations are remembered for
 * a second (a location deleted elsewhere is seen within it), so the hot path is one Map lookup; unknown ones are
 * asked each time, since an import may create them at any moment.
 */
export interface LocationDirectory {
  /** A location remembered as existing answers at once, not in a promise: nothing is awaited on the hot path. */
  exists(locationId: string): boolean | Promise<boolean>;
  /** Forget a location at once (this process deleted it). */
  forget(locationId: string): void;
}

const RECHECK_MS = 1000;
const MAX_REMEMBERED = 100_000;

export const createLocationDirectory = (store: Store, clock: Clock): LocationDirectory => {
  const checkedAt = new Map<string, number>();
  const lookUp = async (locationId: string): Promise<boolean> => {
    const found = (await store.locations.get(locationId)) !== undefined;
    if (!found) checkedAt.delete(locationId);
    else {
      if (checkedAt.size >= MAX_REMEMBERED) checkedAt.clear();
      checkedAt.set(locationId, clock.now());
    }
    return found;
  };
  return {
    exists: (locationId) => {
      const at = checkedAt.get(locationId);
      if (at === undefined) return lookUp(locationId);
      const now = clock.now();
      return now - at < RECHECK_MS && now >= at ? true : lookUp(locationId);
    },
    forget: (locationId) => {
      checkedAt.delete(locationId);
    },
  };
};
