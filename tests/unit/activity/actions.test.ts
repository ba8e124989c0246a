import { ACTIVITY_ACTIONS, actionOf } from '../../../lib/activity/actions';

describe('actions', () => {
  it("name identity changes, SCIM requests and runs as Entra's provisioning logs do", () => {
    expect(
      ['IMPORT_CREATE', 'POST /Users', 'PATCH /Users/{id}', 'IMPORT_DEACTIVATE', 'LINK', 'UNLINK', 'import'].map(
        actionOf,
      ),
    ).toEqual(['create', 'create', 'update', 'delete', 'link', 'unlink', 'other']);
    expect(actionOf('constructor')).toBe('other');
    expect(ACTIVITY_ACTIONS).toEqual(['create', 'update', 'delete', 'link', 'unlink', 'other']);
  });
});
