import { matchRoute, parseRouteTemplate } from '../../../devhost/routeTemplate';
import { parseNcrontab, resolveAppSettingExpression } from '../../../devhost/ncrontab';

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

describe('NCRONTAB', () => {
  it('matches six-field schedules', () => {
    const every5 = parseNcrontab('0 */5 * * * *');
    expect(every5.matches(new Date(2026, 0, 1, 10, 5, 0))).toBe(true);
    expect(every5.matches(new Date(2026, 0, 1, 10, 6, 0))).toBe(false);
    expect(every5.matches(new Date(2026, 0, 1, 10, 5, 1))).toBe(false);
    const daily = parseNcrontab('0 0 2 * * *');
    expect(daily.matches(new Date(2026, 0, 1, 2, 0, 0))).toBe(true);
    expect(parseNcrontab('0 0 9 * * 1-5').matches(new Date(2026, 10, 22, 9, 0, 0))).toBe(false); // a Sunday
    expect(parseNcrontab('0 0 9 * * 1,3').matches(new Date(2026, 10, 23, 9, 0, 0))).toBe(true); // a Monday
  });

  it('rejects malformed expressions', () => {
    for (const bad of ['* * * * *', '61 * * * * *', '*/0 * * * * *', 'a * * * * *'])
      expect(() => parseNcrontab(bad)).toThrow();
  });

  it('resolves %SETTING% binding expressions', () => {
    expect(resolveAppSettingExpression('%S%', { S: '0 0 1 * * *' })).toBe('0 0 1 * * *');
    expect(() => resolveAppSettingExpression('%MISSING%', {})).toThrow(/MISSING/);
  });
});
