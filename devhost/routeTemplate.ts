/**
 * Azure Functions route templates: literal segments, `{name}`, `{name?}`,
 * `{name:constraint}` and a trailing catch-all `{*name}`. Matching is case-insensitive
 * on literals, as in the Functions host.
 */

type Segment =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string; optional: boolean; constraint?: string }
  | { kind: 'catchAll'; name: string };

export interface RouteTemplate {
  source: string;
  segments: Segment[];
  /** Higher is more specific: literals beat parameters beat catch-alls. */
  specificity: number;
}

const PARAM = /^\{(\*)?([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z]+))?(\?)?\}$/;

export function parseRouteTemplate(source: string): RouteTemplate {
  const segments: Segment[] = source
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => {
      const m = PARAM.exec(s);
      if (!m) return { kind: 'literal', text: s.toLowerCase() };
      const [, star, name = '', constraint, optional] = m;
      return star ? { kind: 'catchAll', name } : { kind: 'param', name, optional: Boolean(optional), constraint };
    });
  const specificity = segments.reduce((acc, s) => acc * 3 + (s.kind === 'literal' ? 2 : s.kind === 'param' ? 1 : 0), 1);
  return { source, segments, specificity };
}

const CONSTRAINTS: Record<string, RegExp> = {
  guid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  int: /^-?\d+$/,
  alpha: /^[A-Za-z]+$/,
};

/** Returns the route parameters when the path matches, otherwise undefined. */
export function matchRoute(template: RouteTemplate, pathname: string): Record<string, string> | undefined {
  const parts = pathname.split('/').filter((s) => s.length > 0);
  const params: Record<string, string> = {};
  let i = 0;
  for (const seg of template.segments) {
    if (seg.kind === 'catchAll') {
      params[seg.name] = parts.slice(i).map(safeDecode).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) {
      if (seg.kind === 'param' && seg.optional) continue;
      return undefined;
    }
    if (seg.kind === 'literal') {
      if (safeDecode(part).toLowerCase() !== seg.text) return undefined;
    } else {
      const value = safeDecode(part);
      const check = seg.constraint ? CONSTRAINTS[seg.constraint.toLowerCase()] : undefined;
      if (check && !check.test(value)) return undefined;
      params[seg.name] = value;
    }
    i++;
  }
  return i === parts.length ? params : undefined;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
