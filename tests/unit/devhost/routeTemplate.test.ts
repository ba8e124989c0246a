import { matchRoute, parseRouteTemplate } from '../../../devhost/routeTemplate';

describe('route templates', () => {
  it('matches literals case-insensitively and captures parameters', () => {
    const t = parseRouteTemplate('scim/v2/Users/{id}');
    expect(matchRoute(t, '/scim/v2/users/abc')).toEqual({ id: 'abc' });
    expect(matchRoute(t, '/scim/v2/Users/a%20b')).toEqual({ id: 'a b' });
    expect(matchRoute(t, '/scim/v2/Users')).toBeUndefined();
    expect(matchRoute(t, '/scim/v2/Users/a/b')).toBeUndefined();
  });

  it('supports optional parameters, constraints and catch-alls', () => {
    expect(matchRoute(parseRouteTemplate('scim/v2/Schemas/{id?}'), '/scim/v2/Schemas')).toEqual({});
    const g = parseRouteTemplate('x/{id:guid}');
    expect(matchRoute(g, '/x/11111111-1111-4111-8111-111111111111')).toBeDefined();
    expect(matchRoute(g, '/x/nope')).toBeUndefined();
    expect(matchRoute(parseRouteTemplate('files/{*rest}'), '/files/a/b/c')).toEqual({ rest: 'a/b/c' });
  });

  it('ranks literal routes above parameter routes', () => {
    expect(parseRouteTemplate('scim/v2/Users/.search').specificity).toBeGreaterThan(
      parseRouteTemplate('scim/v2/Users/{id}').specificity,
    );
    // The SCIM catch-all (functions/scimFallback.ts) must lose against every served SCIM route.
    const fallback = parseRouteTemplate('scim/v2/{*path}').specificity;
    for (const served of [
      'scim/v2/Users',
      'scim/v2/Users/{id}',
      'scim/v2/ServiceProviderConfig',
      'scim/v2/Schemas/{id?}',
      'scim/v2/ResourceTypes/{id?}',
    ]) {
      expect(parseRouteTemplate(served).specificity).toBeGreaterThan(fallback);
    }
  });
});
