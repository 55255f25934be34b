import { rotateSigningKey } from '../../auth/signing-keys.js';
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
  summary: 'Rotate the token signing key.',
  usage: 'larder keys rotate',
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
    'JWKS until every token it signed has expired.',
  run: async (args, io) => {
    if (args.positionals.join(' ') !== 'rotate') throw new UsageError('Usage: larder keys rotate');
    const ttl = intOption(args, 'token-ttl', MIN_TOKEN_TTL_SECONDS, MAX_TOKEN_TTL_SECONDS);
    const result = await withStore(args, (store) => rotateSigningKey(store, systemClock, ttl));
    io.stdout(
      `New signing key ${result.kid} is active.${result.deleted.length > 0 ? ` Deleted expired keys: ${result.deleted.join(', ')}.` : ''}\n`,
    );
    return 0;
  },
};
