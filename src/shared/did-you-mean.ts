import { closestMatch } from 'leven';

export interface GuessLimits {
  /** Names longer than this get no guess: the edit distance costs their length. */
  maxLength?: number;
  /** The most edits a guess may be away; by default 1 for names under 4 characters, else 2. */
  maxDistance?: number;
}

/**
 * What a mistyped name (a CLI command or flag, a request body's field) most likely meant: names it begins or ends
 * a part of (`--database` → `database-url`, `--live` → `no-live`, `includeArchive` → `includeArchived`), else the
 * nearest by edit distance (a typo: `--prot` → `port`).
 */
export const didYouMean = (
  given: string,
  names: readonly string[],
  { maxLength = 64, maxDistance = given.length < 4 ? 1 : 2 }: GuessLimits = {},
): string[] => {
  if (given.length < 2 || given.length > maxLength) return [];
  const related = names.filter(
    (name) => name.startsWith(given) || given.startsWith(name) || name.endsWith(`-${given}`),
  );
  if (related.length > 0) return related.slice(0, 3);
  const nearest = closestMatch(given, names, { maxDistance });
  return nearest === undefined ? [] : [nearest];
};

/** The same as a message's aside: ` (did you mean a or b?)`, or '' when nothing is near. */
export const meantAside = (given: string, names: readonly string[], limits?: GuessLimits): string => {
  const meant = didYouMean(given, names, limits);
  return meant.length === 0 ? '' : ` (did you mean ${meant.join(' or ')}?)`;
};
