import { didYouMean } from '../shared/did-you-mean.js';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** A path with its request's values in place of the template's parameters. */
const fill = (template: string, segments: readonly string[]): string => {
  const parts = template.split('/');
  if (parts.length !== segments.length) return template;
  return parts.map((part, i) => (part.startsWith('{') ? segments[i] : part)).join('/');
};

/**
 * The endpoint an unmatched request most likely meant (`POST /v1/purchaseOrders/search` for
 * `/v1/purchaseOrder/search`), among the documented paths (an OpenAPI `paths` object): each template is compared
 * with the request's own values in its parameters, so only the fixed parts count.
 */
export const createRouteHint = (paths: Readonly<Record<string, object>>) => {
  const parameters = (template: string) => template.split('{').length;
  const routes = Object.entries(paths)
    // The root matches every path by prefix; asset paths are not what anyone meant to call.
    .filter(([template]) => template !== '/' && !template.includes('/assets/'))
    // A fixed path before a template that the request's values turn into the same text (`…/search`).
    .sort(([a], [b]) => parameters(a) - parameters(b))
    .map(([template, operations]) => ({
      template,
      label: `${Object.keys(operations)
        .filter((method) => METHODS.has(method))
        .map((method) => method.toUpperCase())
        .join(', ')} ${template}`,
    }));
  return (path: string): string | undefined => {
    const segments = path.split('/');
    const byPath = new Map<string, string>();
    for (const route of routes) {
      const filled = fill(route.template, segments);
      if (!byPath.has(filled)) byPath.set(filled, route.label);
    }
    const meant = didYouMean(path, [...byPath.keys()], { maxLength: 256, maxDistance: 3 });
    return meant.length === 0 ? undefined : meant.map((filled) => byPath.get(filled)).join(' or ');
  };
};

/**
 * The methods a documented path takes, when the request's path is one (its values in the template's parameters)
 * but its method is none of them: the answer is then a 405 with `Allow`, not a 404. Undefined otherwise.
 */
export const createMethodCheck = (paths: Readonly<Record<string, object>>) => {
  const routes = Object.entries(paths).map(([template, operations]) => ({
    parts: template.split('/'),
    parameters: template.split('{').length - 1,
    methods: Object.keys(operations)
      .filter((method) => METHODS.has(method))
      .map((method) => method.toUpperCase()),
  }));
  return (method: string, path: string): string[] | undefined => {
    const segments = path.split('/');
    // A concrete path is matched before a template it also fills (OpenAPI's rule): `…/search` is the search's,
    // not a record id's, so its Allow is the search's methods alone.
    let fewest = Number.POSITIVE_INFINITY;
    let allowed = new Set<string>();
    for (const { parts, parameters, methods } of routes) {
      if (parts.length !== segments.length || parameters > fewest) continue;
      if (!parts.every((part, i) => (part.startsWith('{') ? segments[i] !== '' : part === segments[i])))
        continue;
      if (parameters < fewest) {
        fewest = parameters;
        allowed = new Set();
      }
      for (const each of methods) allowed.add(each);
    }
    // Every GET route answers HEAD too.
    if (allowed.has('GET')) allowed.add('HEAD');
    return allowed.size === 0 || allowed.has(method) ? undefined : [...allowed];
  };
};
