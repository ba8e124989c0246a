import { scimMethodsOf } from '../../../lib/scim/endpoints';

describe('SCIM endpoints served (the catch-all answers 404 or 405 from this)', () => {
  it.each([
    ['Users', ['GET', 'POST']],
    ['users/abc', ['GET', 'PUT', 'PATCH', 'DELETE']],
    ['ServiceProviderConfig', ['GET']],
    ['Schemas', ['GET']],
    ['Schemas/urn:x', ['GET']],
    ['ResourceTypes/User', ['GET']],
  ])('%s takes %j', (path, methods) => expect(scimMethodsOf(path)).toEqual(methods));

  it.each(['', 'Groups', 'Bulk', 'Me', '.search', 'Users/.search', 'Users/a/b', 'ServiceProviderConfig/x'])(
    '%j is not served',
    (path) => {
      expect(scimMethodsOf(path)).toBeUndefined();
    },
  );
});
