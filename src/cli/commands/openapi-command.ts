import { openApiDocument } from '../../server/openapi.js';
import type { Command } from '../command.js';
import { parsePublicUrl } from '../serve-config.js';

const DEFAULT_URL = 'http://localhost:8080';

export const openapiCommand: Command = {
  name: 'openapi',
  summary: 'Print the OpenAPI 3.1 document (what GET /openapi.json serves with the admin API on).',
  usage: 'larder openapi [--public-url URL] > openapi.json',
  options: {
    'public-url': {
      type: 'string',
      env: 'LARDER_PUBLIC_URL',
      default: DEFAULT_URL,
      placeholder: 'URL',
      description: 'The server URL the document names (its servers entry and token URL).',
    },
  },
  notes: 'No server or database is needed: the document is generated from the schemas.',
  run: async (args, io) => {
    const url = parsePublicUrl(args) ?? DEFAULT_URL;
    io.stdout(`${JSON.stringify(openApiDocument(url), null, 2)}\n`);
    return 0;
  },
};
