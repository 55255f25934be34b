import { retireSigningKey, rotateSigningKey } from '../../auth/signing-keys.js';
import { systemClock } from '../../shared/clock.js';
import {
  DEFAULT_TOKEN_TTL_SECONDS,
  MAX_TOKEN_TTL_SECONDS,
  MIN_TOKEN_TTL_SECONDS,
} from '../../shared/limits.js';
import { type Command, intOption, STORE_OPTIONS, UsageError } from '../command.js';
import { withStore } from '../store-options.js';

export const keysCommand: Command = {
  name: 'keys',
  takesArguments: true,
  actions: { list: [], rotate: ['token-ttl'], retire: [] },
  takesKids: true,
  summary: 'List, rotate or retire the token signing keys.',
  usage: 'larder keys list | rotate | retire <kid>',
  options: {
    ...STORE_OPTIONS,
    'token-ttl': {
      type: 'string',
      env: 'LARDER_TOKEN_TTL',
      default: String(DEFAULT_TOKEN_TTL_SECONDS),
      placeholder: 'SECONDS',
      description: 'The longest token lifetime in use: retired keys older than this are deleted.',
    },
  },
  notes:
    'The new key signs from now on, on every instance within a second; the old public key stays in the\n' +
    'JWKS until every token it signed has expired, and verifies none issued after its retirement.\n' +
    '`retire <kid>` is for a leaked key: it stops verifying at once (within a second on every instance),\n' +
    'so every token it signed is refused; an active key is replaced by a new one first.',
  run: async (args, io) => {
    const [action, kid, ...rest] = args.positionals;
    if (action === 'list' && kid === undefined) {
      const keys = await withStore(args, (store) => store.auth.listSigningKeys(), undefined, {
        readsOnly: true,
      });
      if (keys.length === 0)
        io.stdout(
          'No signing keys yet: `larder serve` makes one at its first start, `larder keys rotate` now.\n',
        );
      for (const key of keys)
        io.stdout(
          `${key.kid}  created ${key.createdAt}  ${key.retiredAt === null ? 'active' : `retired ${key.retiredAt}`}\n`,
        );
      return 0;
    }
    if (action === 'retire' && kid !== undefined && rest.length === 0) {
      const result = await withStore(args, (store) => retireSigningKey(store, systemClock, kid));
      io.stdout(
        `Signing key ${kid} is retired and verifies no token.${result.rotatedTo === undefined ? '' : ` New signing key ${result.rotatedTo} is active.`}\n`,
      );
      return 0;
    }
    if (action === 'retire' && kid === undefined) throw new UsageError('keys retire needs the KID of a key.');
    const unexpected =
      action === 'retire' ? rest[0] : action === 'list' || action === 'rotate' ? kid : undefined;
    if (unexpected !== undefined)
      throw new UsageError(`Unexpected argument '${unexpected}': larder keys list | rotate | retire <kid>.`);
    const ttl = intOption(args, 'token-ttl', MIN_TOKEN_TTL_SECONDS, MAX_TOKEN_TTL_SECONDS);
    const result = await withStore(args, (store) => rotateSigningKey(store, systemClock, ttl));
    io.stdout(
      `New signing key ${result.kid} is active.${result.deleted.length > 0 ? ` Deleted expired keys: ${result.deleted.join(', ')}.` : ''}\n`,
    );
    return 0;
  },
};
