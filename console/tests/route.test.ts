import { describe, expect, it } from 'vitest';
import { hrefOf, parseRoute, type Route } from '../src/route';

describe('console routes', () => {
  it.each<Route>([
    { page: 'overview' },
    { page: 'integrations' },
    { page: 'identities', source: 'HR nightly/2' },
    { page: 'identity', source: 'Manual', id: '0190-abc' },
    { page: 'runs', source: 'Payroll' },
    { page: 'manual' },
    { page: 'activity', source: '0196f2c4-0000-7000-8000-00000000000a' },
  ])('%o survives a round trip through its URL', (route) => {
    const url = new URL(hrefOf(route), 'http://x');
    expect(parseRoute(url.pathname, url.search)).toEqual(route);
  });

  it('an unknown path is the overview', () => {
    expect(parseRoute('/console/nope', '')).toEqual({ page: 'overview' });
  });
});
