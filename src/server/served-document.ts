import { ADMIN_PREFIX } from '../shared/limits.js';
import { CONSOLE_PATH } from '../shared/own-paths.js';
import type { OpenApiDocument } from './openapi.js';

/** A path that only an instance with the admin API serves: the sandbox controls and the console. */
export const isSandboxPath = (path: string): boolean =>
  path.startsWith(ADMIN_PREFIX) || path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);

const REF = /"#\/components\/(schemas|responses|headers)\/([^"/]+)"/g;
type Section = 'schemas' | 'responses' | 'headers';

/**
 * The document as an instance without the admin API serves it: no sandbox path, tag or security scheme, and no
 * component that only they used. A production-style start names nothing it does not serve, not even by shape.
 */
export const withoutSandbox = (document: OpenApiDocument): OpenApiDocument => {
  const { admin: _admin, ...securitySchemes } = document.components.securitySchemes;
  const served = {
    ...document,
    tags: document.tags.filter((tag) => tag.name !== 'sandbox'),
    paths: Object.fromEntries(Object.entries(document.paths).filter(([path]) => !isSandboxPath(path))),
  };
  const sections = document.components as unknown as Record<Section, Record<string, unknown>>;
  const reachable: Record<Section, Set<string>> = {
    schemas: new Set(),
    responses: new Set(),
    headers: new Set(),
  };
  // Components refer to each other, so references are followed until none is new.
  const follow = (value: unknown) => {
    for (const [, section, name] of JSON.stringify(value).matchAll(REF)) {
      const seen = reachable[section as Section];
      if (seen.has(name!)) continue;
      seen.add(name!);
      follow(sections[section as Section][name!]);
    }
  };
  follow({ ...served, components: undefined });
  const kept = (section: Section) =>
    Object.fromEntries(Object.entries(sections[section]).filter(([name]) => reachable[section].has(name)));
  return {
    ...served,
    components: {
      ...document.components,
      schemas: kept('schemas'),
      responses: kept('responses'),
      headers: kept('headers'),
      securitySchemes,
    },
  } as OpenApiDocument;
};
