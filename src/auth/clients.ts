import { randomUUID } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { LarderError } from '../shared/errors.js';
import { LOCATION_ID, LOCATION_ID_RULE } from '../shared/limits.js';
import type { ClientRecord, ClientUpdate, Store } from '../storage/store.js';
import { generateClientSecret, loadSecretHasher } from './client-secret.js';
import type { ClientCredentials, ClientSummary } from './schemas.js';
import { DEFAULT_SCOPES, KNOWN_SCOPES, normalizeScopes, unknownScopes } from './scopes.js';

/** Operator-facing client management; the CLI (`larder clients …`) is a thin shell over these. */

export type { ClientCredentials, ClientSummary } from './schemas.js';

export interface LocationGrant {
  /** Specific location ids; mutually exclusive with `allLocations: true`. */
  locations?: readonly string[];
  allLocations?: boolean;
}

export interface NewClient extends LocationGrant {
  name: string;
  /** Defaults to `retail.inventory:read` only. */
  scopes?: readonly string[];
}

export interface ClientGrantUpdate extends LocationGrant {
  scopes?: readonly string[];
}

const invalid = (fieldName: string, message: string): LarderError =>
  new LarderError('ERR_VALIDATION', { fieldName, message: `${fieldName} ${message}` });

const checkScopes = (scopes: readonly string[]): string[] => {
  const unknown = unknownScopes(scopes);
  if (unknown.length > 0)
    throw invalid('scopes', `has unknown scope ${unknown.join(', ')}; known: ${KNOWN_SCOPES.join(', ')}`);
  const normalized = normalizeScopes(scopes);
  if (normalized.length === 0) throw invalid('scopes', 'must name at least one scope');
  return normalized;
};

/** Returns the grant to store, or undefined when `grant` names neither form. */
const checkLocations = (
  grant: LocationGrant,
): Pick<ClientUpdate, 'allLocations' | 'locations'> | undefined => {
  if (grant.allLocations === true && grant.locations !== undefined)
    throw invalid('locations', 'cannot be combined with allLocations');
  if (grant.allLocations === true) return { allLocations: true, locations: [] };
  if (grant.locations === undefined) return undefined;
  const locations = [...new Set(grant.locations.map((id) => id.trim()))];
  if (locations.length === 0 || locations.includes(''))
    throw invalid('locations', 'must list one or more non-empty location ids');
  // No location can have another id (import, pull and the admin API refuse it): such a grant would never apply.
  const impossible = locations.find((id) => !LOCATION_ID.test(id));
  if (impossible !== undefined)
    throw invalid(
      'locations',
      `has ${JSON.stringify(impossible)}, which is no location id: one is ${LOCATION_ID_RULE}`,
    );
  return { allLocations: false, locations };
};

export const toClientSummary = (record: ClientRecord): ClientSummary => ({
  clientId: record.clientId,
  name: record.name,
  scopes: [...record.scopes],
  allLocations: record.allLocations,
  locations: [...record.locations],
  createdAt: record.createdAt,
  revokedAt: record.revokedAt,
});

export const createClientCredentials = async (
  store: Store,
  input: NewClient,
  clock: Clock = systemClock,
): Promise<ClientCredentials> => {
  const name = input.name.trim();
  if (name === '') throw invalid('name', 'must not be empty');
  const grant = checkLocations(input);
  if (grant === undefined) throw invalid('locations', 'or allLocations is required');
  const scopes = checkScopes(input.scopes ?? DEFAULT_SCOPES);
  const hasher = await loadSecretHasher(store);
  const clientSecret = generateClientSecret();
  const record: ClientRecord = {
    clientId: randomUUID(),
    name,
    secretHash: hasher.hash(clientSecret),
    scopes,
    allLocations: grant.allLocations ?? false,
    locations: grant.locations ?? [],
    createdAt: new Date(clock.now()).toISOString(),
    revokedAt: null,
  };
  await store.auth.createClient(record);
  return { ...toClientSummary(record), clientSecret };
};

export const listClientSummaries = async (store: Store): Promise<ClientSummary[]> =>
  (await store.auth.listClients()).map(toClientSummary);

const notFound = (clientId: string): LarderError =>
  new LarderError('ERR_NOT_FOUND', { message: `No client with id ${clientId}.` });

/** Idempotent: revoking a revoked client keeps the first revocation time. */
export const revokeClient = async (
  store: Store,
  clientId: string,
  clock: Clock = systemClock,
): Promise<ClientSummary> => {
  const existing = await store.auth.getClient(clientId);
  if (existing === undefined) throw notFound(clientId);
  if (existing.revokedAt !== null) return toClientSummary(existing);
  const updated = await store.auth.updateClient(clientId, { revokedAt: new Date(clock.now()).toISOString() });
  if (updated === undefined) throw notFound(clientId);
  return toClientSummary(updated);
};

/** Replaces the location grant and/or the scopes; applies to tokens already issued. */
export const updateClientGrants = async (
  store: Store,
  clientId: string,
  update: ClientGrantUpdate,
): Promise<ClientSummary> => {
  const change: ClientUpdate = { ...checkLocations(update) };
  if (update.scopes !== undefined) change.scopes = checkScopes(update.scopes);
  if (Object.keys(change).length === 0) throw invalid('locations', 'allLocations or scopes is required');
  const updated = await store.auth.updateClient(clientId, change);
  if (updated === undefined) throw notFound(clientId);
  return toClientSummary(updated);
};

/** Changes what operators call the client; its id, secret and grants stay. */
export const renameClient = async (
  store: Store,
  clientId: string,
  newName: string,
): Promise<ClientSummary> => {
  const name = newName.trim();
  if (name === '') throw invalid('name', 'must not be empty');
  const updated = await store.auth.updateClient(clientId, { name });
  if (updated === undefined) throw notFound(clientId);
  return toClientSummary(updated);
};

/**
 * A new secret for a client (after a leak, or on a schedule), shown once: the old one stops working for login at
 * once. Tokens already issued stay valid until they expire (revoke the client to cut them off too).
 */
export const rotateClientSecret = async (store: Store, clientId: string): Promise<ClientCredentials> => {
  const hasher = await loadSecretHasher(store);
  const clientSecret = generateClientSecret();
  const updated = await store.auth.updateClient(clientId, { secretHash: hasher.hash(clientSecret) });
  if (updated === undefined) throw notFound(clientId);
  return { ...toClientSummary(updated), clientSecret };
};

/** Undoes a revocation: the client's secret and grants work again, its earlier tokens too while unexpired. */
export const restoreClient = async (store: Store, clientId: string): Promise<ClientSummary> => {
  const updated = await store.auth.updateClient(clientId, { revokedAt: null });
  if (updated === undefined) throw notFound(clientId);
  return toClientSummary(updated);
};

/** Removes a client for good (its tokens stop working within a second); revoke instead to keep a record. */
export const deleteClient = async (store: Store, clientId: string): Promise<void> => {
  if (!(await store.auth.deleteClient(clientId))) throw notFound(clientId);
};

/** The granted location ids no location exists for yet (a typo, or data still to be imported). */
export const unknownGrantedLocations = async (store: Store, client: ClientSummary): Promise<string[]> => {
  if (client.allLocations) return [];
  const known = new Set((await store.locations.list()).map((location) => location.id));
  return client.locations.filter((id) => !known.has(id));
};
