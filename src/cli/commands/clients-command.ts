import {
  type ClientSummary,
  createClientCredentials,
  listClientSummaries,
  revokeClient,
  updateClientGrants,
} from '../../auth/clients.js';
import { splitScope } from '../../auth/scopes.js';
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

const print = (io: CommandIo, json: boolean, value: unknown, text: string) =>
  io.stdout(json ? `${JSON.stringify(value, null, 2)}\n` : text);

export const clientsCommand: Command = {
  name: 'clients',
  summary: 'Create, list, update and revoke API clients (clientId / clientSecret).',
  usage:
    'larder clients create --name NAME (--locations ID,ID | --all-locations) [--scopes "retail.inventory:read"] [--json]\n' +
    '       larder clients list [--json]\n' +
    '       larder clients update CLIENT_ID (--locations ID,ID | --all-locations) [--scopes SCOPES]\n' +
    '       larder clients revoke CLIENT_ID',
  options: {
    ...STORE_OPTIONS,
    name: { type: 'string', placeholder: 'NAME', description: 'Client name (create).' },
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
    'The secret is printed once, at creation, and stored only as a keyed hash. Revocations and grant\n' +
    'changes reach running servers within a second, including tokens already issued.',
  run: async (args, io) => {
    const [action, clientId, ...rest] = args.positionals;
    const json = args.flags['json'] === true;
    if (rest.length > 0) throw new UsageError(`Unexpected arguments: ${rest.join(' ')}`);
    const needId = () => {
      if (clientId === undefined) throw new UsageError(`clients ${action} needs a CLIENT_ID.`);
      return clientId;
    };
    return withStore(args, async (store) => {
      switch (action) {
        case 'create': {
          const name = args.strings['name'];
          if (name === undefined) throw new UsageError('--name is required.');
          const grant = grantFrom(args);
          if (!('allLocations' in grant) && !('locations' in grant)) {
            throw new UsageError('Give --locations ID,ID or --all-locations.');
          }
          const created = await createClientCredentials(store, { name, ...grant, ...scopesFrom(args) });
          print(
            io,
            json,
            created,
            `${describe(created)}  clientSecret: ${created.clientSecret}\n\nStore the secret now: it cannot be shown again.\n`,
          );
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
          const updated = await updateClientGrants(store, needId(), {
            ...grantFrom(args),
            ...scopesFrom(args),
          });
          print(io, json, updated, describe(updated));
          return 0;
        }
        case 'revoke': {
          const revoked = await revokeClient(store, needId());
          print(io, json, revoked, describe(revoked));
          return 0;
        }
        default:
          throw new UsageError(
            `Unknown clients action '${action ?? ''}': use create, list, update or revoke.`,
          );
      }
    });
  },
};
