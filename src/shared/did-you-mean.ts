import { closestMatch } from 'leven';

const MAX_NAME = 64;

/**
 * What a mistyped name (a CLI command or flag, a request body's field) most likely meant: names it begins or ends
 * a part of (`--database` → `database-url`, `--live` → `no-live`, `includeArchive` → `includeArchived`), else the
 * nearest by edit distance (a typo: `--prot` → `port`). Names longer than any real one get no guess: the edit
 * distance costs their length.
 */
export const didYouMean = (given: string, names: readonly string[]): string[] => {
  if (given.length < 2 || given.length > MAX_NAME) return [];
  const related = names.filter(
    (name) => name.startsWith(given) || given.startsWith(name) || name.endsWith(`-${given}`),
  );
  if (related.length > 0) return related.slice(0, 3);
  const nearest = closestMatch(given, names, { maxDistance: given.length < 4 ? 1 : 2 });
  return nearest === undefined ? [] : [nearest];
};
