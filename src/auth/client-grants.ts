import type { ClientRecord } from '../storage/store.js';

/** What the retail guard needs of a client, shaped for O(1) checks on the hot path. */
export interface ClientGrant {
  clientId: string;
  revoked: boolean;
  scopes: ReadonlySet<string>;
  allLocations: boolean;
  locations: ReadonlySet<string>;
}

export const toClientGrant = (record: ClientRecord): ClientGrant => ({
  clientId: record.clientId,
  revoked: record.revokedAt !== null,
  scopes: new Set(record.scopes),
  allLocations: record.allLocations,
  locations: new Set(record.locations),
});

export const grantsLocation = (grant: ClientGrant, locationId: string): boolean =>
  grant.allLocations || grant.locations.has(locationId);
