/** The retail operations declare `retail.inventory:read`; the security scheme's broader `retail:read` also grants them. */
export const RETAIL_INVENTORY_READ = 'retail.inventory:read';
export const RETAIL_READ = 'retail:read';

export const KNOWN_SCOPES: readonly string[] = [RETAIL_INVENTORY_READ, RETAIL_READ];

/** `retail:read` is granted only when asked for. */
export const DEFAULT_SCOPES: readonly string[] = [RETAIL_INVENTORY_READ];

export const grantsRetailRead = (scopes: ReadonlySet<string> | readonly string[]): boolean =>
  'has' in scopes
    ? scopes.has(RETAIL_INVENTORY_READ) || scopes.has(RETAIL_READ)
    : scopes.includes(RETAIL_INVENTORY_READ) || scopes.includes(RETAIL_READ);

/** Splits an RFC 6749 §3.3 scope string (space-delimited, case-sensitive) into distinct tokens. */
export const splitScope = (scope: string): string[] => [...new Set(scope.split(' ').filter((s) => s !== ''))];

export const unknownScopes = (scopes: readonly string[]): string[] =>
  scopes.filter((scope) => !KNOWN_SCOPES.includes(scope));

/** Canonical order (as in KNOWN_SCOPES), so equal grants compare equal as strings. */
export const normalizeScopes = (scopes: Iterable<string>): string[] => {
  const wanted = new Set(scopes);
  return KNOWN_SCOPES.filter((scope) => wanted.has(scope));
};
