/**
 * The route templates an Express app serves, read once from its router: for a request refused before
 * the router reached its route (a body that is not JSON, too large, not UTF-8), the template its
 * method and path would have taken, so its log line and metrics carry the same label as the route's
 * other answers. Reads the router's stack (its layers' `route`, `rawPath` and nested `stack`); a
 * layer of another shape is skipped, and a path no template takes is undefined (`unmatched`).
 */
import type { Application } from 'express';

interface LayerShape {
  rawPath?: unknown;
  route?: { path?: unknown; methods?: Record<string, boolean> };
  handle?: { stack?: LayerShape[] };
}

interface Template {
  template: string;
  methods: Set<string>;
  pattern: RegExp;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/agents/:agent/limits` matches `/agents/a-1/limits` (and a trailing slash), case-insensitively. */
const patternOf = (template: string): RegExp =>
  new RegExp(
    `^${template
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : escape(segment)))
      .join('/')}/?$`,
    'i',
  );

function collect(stack: LayerShape[], base: string, into: Template[]): void {
  for (const layer of stack) {
    if (layer.route && typeof layer.route.path === 'string') {
      const template = `${base}${layer.route.path}`;
      into.push({
        template,
        methods: new Set(Object.keys(layer.route.methods ?? {}).map((m) => m.toUpperCase())),
        pattern: patternOf(template),
      });
    } else if (Array.isArray(layer.handle?.stack)) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      collect(layer.handle.stack, `${base}${mount}`, into);
    }
  }
}

const tables = new WeakMap<Application, Template[]>();

/** The template `method` and `path` would take in `app`, or undefined. */
export function templateFor(app: Application, method: string, path: string): string | undefined {
  let table = tables.get(app);
  if (!table) {
    table = [];
    const stack = (app as unknown as { router?: { stack?: LayerShape[] } }).router?.stack;
    if (Array.isArray(stack)) collect(stack, '', table);
    tables.set(app, table);
  }
  const verb = method === 'HEAD' ? 'GET' : method;
  return table.find((t) => (t.methods.has(verb) || t.methods.has('_ALL')) && t.pattern.test(path))?.template;
}
