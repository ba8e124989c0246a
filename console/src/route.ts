/** Pages are paths under /console/ (the URL fragment belongs to the sign-in redirect). */
import { useEffect, useState } from 'react';

export interface Route {
  page: 'overview' | 'integrations' | 'identities' | 'identity' | 'runs' | 'manual' | 'activity';
  source?: string;
  id?: string;
}

const PAGES = new Set(['integrations', 'identities', 'identity', 'runs', 'manual', 'activity']);

export function parseRoute(pathname: string, search: string): Route {
  const [first = '', ...rest] = pathname
    .replace(/^\/console\/?/, '')
    .split('/')
    .filter(Boolean);
  const source = new URLSearchParams(search).get('source') ?? undefined;
  if (first === 'identity')
    return {
      page: 'identity',
      source: rest[0] && decodeURIComponent(rest[0]),
      id: rest[1] && decodeURIComponent(rest[1]),
    };
  if (PAGES.has(first)) return { page: first as Route['page'], source };
  return { page: 'overview' };
}

export function hrefOf(r: Route): string {
  if (r.page === 'identity')
    return `/console/identity/${encodeURIComponent(r.source ?? '')}/${encodeURIComponent(r.id ?? '')}`;
  const base = r.page === 'overview' ? '/console/' : `/console/${r.page}`;
  return r.source ? `${base}?source=${encodeURIComponent(r.source)}` : base;
}

export function navigate(r: Route): void {
  window.history.pushState(null, '', hrefOf(r));
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): Route {
  const read = () => parseRoute(window.location.pathname, window.location.search);
  const [route, setRoute] = useState<Route>(read);
  useEffect(() => {
    const on = () => setRoute(read());
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  return route;
}
