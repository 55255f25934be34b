import {
  type ClientSummary,
  createClientCredentials,
  deleteClient,
  listClientSummaries,
  renameClient,
  restoreClient,
  revokeClient,
  rotateClientSecret,
  unknownGrantedLocations,
  updateClientGrants,
} from '../../auth/clients.js';
import { splitScope } from '../../auth/scopes.js';
import { isLarderError } from '../../shared/errors.js';
import type { Store } from '../../storage/store.js';
import { type Command, type CommandIo, type ParsedArgs, STORE_OPTIONS, UsageError } from '../command.js';
import { withStore } from '../store-options.js';

const grantFrom = (args: ParsedArgs) => {
  const locations = args.strings['locations'];
  const all = args.flags['all-locations'] === true;
  if (locations !== undefined && all) throw new UsageError('Give --locations or --all-locations, not both.');
  if (all) return { allLocations: true };
  if (locations !== undefined) return { locations: locations.split(',') };
  return {};
};

const scopesFrom = (args: ParsedArgs) => {
  const scopes = args.strings['scopes'];
  return scopes === undefined ? {} : { scopes: splitScope(scopes.replaceAll(',', ' ')) };
};

const describe = (client: ClientSummary) =>
  `${client.clientId}  ${client.name}\n  scopes: ${client.scopes.join(' ')}\n  locations: ${
    client.allLocations ? '(all)' : client.locations.join(', ')
  }\n  created: ${client.createdAt}${client.revokedAt === null ? '' : `\n  REVOKED: ${client.revokedAt}`}\n`;

/** The API's field names (allLocations) in validation messages, as the flags a CLI user typed (--all-locations). */
const FLAGS: Readonly<Record<string, string>> = {
  locations: '--locations',
  allLocations: '--all-locations',
  scopes: '--scopes',
  name: '--name',
};
const flagNamesInErrors = async (work: () => Promise<number>): Promise<number> => {
  try {
    return await work();
  } catch (error) {
    if (!isLarderError(error) || error.code !== 'ERR_VALIDATION') throw error;
    throw new UsageError(
      error.message.replace(/\b(allLocations|locations|scopes|name)\b/g, (word) => FLAGS[word] ?? word),
    );
  }
};

const print = (io: CommandIo, json: boolean, value: unknown, text: string) =>
  io.stdout(json ? `${JSON.stringify(value, null, 2)}\n` : text);

export const clientsCommand: Command = {
  name: 'clients',
  takesArguments: true,
  actions: {
    create: ['name', 'locations', 'all-locations', 'scopes'],
    list: [],
    update: ['locations', 'all-locations', 'scopes'],
    rename: ['name'],
    'rotate-secret': [],
    revoke: [],
    restore: [],
    delete: [],
  },
  summary: 'Create, list, update, rename, revoke, restore and delete API clients; rotate their secrets.',
  usage:
    'larder clients create --name NAME (--locations ID,ID | --all-locations) [--scopes "retail.inventory:read"] [--json]\n' +
    '       larder clients list [--json]\n' +
    '       larder clients update CLIENT_ID [--locations ID,ID | --all-locations] [--scopes SCOPES]   (one or both)\n' +
    '       larder clients rename CLIENT_ID --name NAME\n' +
    '       larder clients rotate-secret CLIENT_ID\n' +
    '       larder clients revoke CLIENT_ID | restore CLIENT_ID | delete CLIENT_ID',
  options: {
    ...STORE_OPTIONS,
    name: { type: 'string', placeholder: 'NAME', description: 'Client name (create, rename).' },
    locations: { type: 'string', placeholder: 'ID,ID', description: 'Locations the client may read.' },
    'all-locations': { type: 'boolean', description: 'Grant every location, present and future.' },
    scopes: {
      type: 'string',
      placeholder: 'SCOPES',
      description: 'Space- or comma-separated: retail.inventory:read (default), retail:read.',
    },
    json: { type: 'boolean', description: 'Print JSON.' },
  },
  notes:
    'The secret is printed once, at creation or rotation, and stored only as a keyed hash. Revocations,\n' +
    'restorations and grant changes reach running servers within a second, including tokens already issued.\n' +
    'Granting a location that does not exist (yet) works, with a warning: it may be a typo.',
  run: async (args, io) => {
    const [action, clientId, ...rest] = args.positionals;
    const json = args.flags['json'] === true;
    if (rest.length > 0) throw new UsageError(`Unexpected arguments: ${rest.join(' ')}`);
    const needId = () => {
      if (clientId === undefined) throw new UsageError(`clients ${action} needs a CLIENT_ID.`);
      return clientId;
    };
    const warnUnknown = async (store: Store, client: ClientSummary) => {
      const unknown = await unknownGrantedLocations(store, client);
      if (unknown.length > 0)
        io.stderr(
          `Warning: no location ${unknown.join(', ')} exists yet (a typo? \`larder locations list\` shows them); granted anyway.\n`,
        );
    };
    const secretShown = (client: ClientSummary & { clientSecret: string }) =>
      `${describe(client)}  clientSecret: ${client.clientSecret}\n\nStore the secret now: it cannot be shown again.\n`;
    return withStore(
      args,
      (store) =>
        flagNamesInErrors(async () => {
          switch (action) {
            case 'create': {
              const name = args.strings['name'];
              if (name === undefined) throw new UsageError('--name is required.');
              const grant = grantFrom(args);
              if (!('allLocations' in grant) && !('locations' in grant)) {
                throw new UsageError('Give --locations ID,ID or --all-locations.');
              }
              const created = await createClientCredentials(store, { name, ...grant, ...scopesFrom(args) });
              await warnUnknown(store, created);
              print(io, json, created, secretShown(created));
              return 0;
            }
            case 'list': {
              const clients = await listClientSummaries(store);
              print(
                io,
                json,
                clients,
                clients.length === 0 ? 'No clients yet.\n' : clients.map(describe).join('\n'),
              );
              return 0;
            }
            case 'update': {
              const id = needId();
              const change = { ...grantFrom(args), ...scopesFrom(args) };
              if (Object.keys(change).length === 0)
                throw new UsageError(
                  'Give what to change: --locations ID,ID, --all-locations and/or --scopes (a new name: clients rename; a new secret: clients rotate-secret).',
                );
              const updated = await updateClientGrants(store, id, change);
              await warnUnknown(store, updated);
              print(io, json, updated, describe(updated));
              return 0;
            }
            case 'rename': {
              const id = needId();
              const name = args.strings['name'];
              if (name === undefined) throw new UsageError('clients rename needs --name NAME.');
              const renamed = await renameClient(store, id, name);
              print(io, json, renamed, describe(renamed));
              return 0;
            }
            case 'rotate-secret': {
              const rotated = await rotateClientSecret(store, needId());
              print(io, json, rotated, secretShown(rotated));
              return 0;
            }
            case 'revoke': {
              const revoked = await revokeClient(store, needId());
              print(io, json, revoked, describe(revoked));
              return 0;
            }
            case 'restore': {
              const restored = await restoreClient(store, needId());
              print(io, json, restored, describe(restored));
              return 0;
            }
            default: {
              // delete: parseCommandArgs refused any other action.
              const id = needId();
              await deleteClient(store, id);
              print(io, json, { deleted: id }, `Deleted client ${id}.\n`);
              return 0;
            }
          }
        }),
      (code) => code !== 0,
      { readsOnly: action === 'list' },
    );
  },
};
