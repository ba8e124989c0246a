import { describe, expect, it } from 'vitest';
import { createMemoryStorage, forgetGraphiQL } from '../src/memoryStorage';

describe("GraphiQL's storage", () => {
  it('keeps items in memory only, with the Web Storage shape GraphiQL uses', () => {
    const before = window.localStorage.length;
    const storage = createMemoryStorage();
    storage.setItem('graphiql:variables', '{"cpr":"0101901234"}');
    storage.setItem('graphiql:tabState', '{}');
    expect(storage.getItem('graphiql:variables')).toBe('{"cpr":"0101901234"}');
    expect(storage.length).toBe(2);
    storage.removeItem('graphiql:tabState');
    expect(storage.getItem('graphiql:tabState')).toBeNull();
    storage.clear();
    expect(storage.length).toBe(0);
    expect(window.localStorage.length).toBe(before);
    expect(JSON.stringify({ ...window.sessionStorage })).not.toContain('0101901234');
  });

  it("removes GraphiQL's keys an earlier page left in localStorage and keeps the others", () => {
    window.localStorage.setItem('graphiql:variables', '{"cpr":"0101901234"}');
    window.localStorage.setItem('graphiql:queries', '[]');
    window.localStorage.setItem('msal.other', 'x');
    forgetGraphiQL(window.localStorage);
    expect(Object.keys({ ...window.localStorage })).toEqual(['msal.other']);
    window.localStorage.clear();
  });
});
