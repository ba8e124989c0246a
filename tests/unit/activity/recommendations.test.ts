/**
 * Every refusal the service can answer has a recommended action for the connector's owner: each SCIM error
 * kind (every factory of ScimError that answers 4xx but 401, which is not recorded), each error code of
 * lib/util/errorCodes.ts, a store failure's code and a minute's counted refusals. A new kind or code fails
 * here until it has one.
 */
import { ScimError } from '../../../lib/scim/errors';
import { ERROR_CODES } from '../../../lib/util/errorCodes';
import { describeFailure } from '../../../lib/imports/runHistory';
import { StoreError } from '../../../lib/store/errors';
import { COUNTED_CODE } from '../../../lib/activity/refusals';
import { SCIM_TYPE_ACTIONS, STATUS_ACTIONS, recommendedAction } from '../../../lib/activity/recommendations';

/** Each factory of ScimError called with a detail (and what else it takes). */
function scimRefusals(): ScimError[] {
  const factories = Object.getOwnPropertyNames(ScimError).filter(
    (name) => typeof (ScimError as unknown as Record<string, unknown>)[name] === 'function',
  );
  expect(factories.length).toBeGreaterThan(10);
  return factories.map((name) =>
    (ScimError as unknown as Record<string, (...a: unknown[]) => ScimError>)[name]!('detail', ['GET'], 1),
  );
}

describe('recommended actions', () => {
  it('exist for every SCIM refusal kind (its scimType, or its status without one)', () => {
    const missing = scimRefusals()
      .filter((e) => e.status >= 400 && e.status < 500 && e.status !== 401)
      .filter(
        (e) =>
          recommendedAction({
            outcome: 'refused',
            code: null,
            scimType: e.scimType ?? null,
            httpStatus: e.status,
          }) === null,
      )
      .map((e) => `${e.status} ${e.scimType ?? ''}`);
    expect(missing).toEqual([]);
  });

  it("are each kind's own: a scimType never falls back to its status's general text", () => {
    const refused = scimRefusals().filter((e) => e.status >= 400 && e.status < 500 && e.status !== 401);
    const general = refused
      .filter((e) => e.scimType !== undefined)
      .filter(
        (e) =>
          !Object.prototype.hasOwnProperty.call(SCIM_TYPE_ACTIONS, e.scimType!) ||
          recommendedAction({ outcome: 'refused', code: null, scimType: e.scimType!, httpStatus: e.status }) !==
            SCIM_TYPE_ACTIONS[e.scimType!],
      )
      .map((e) => `${e.status} ${e.scimType!}`);
    expect(general).toEqual([]);
    const byStatus = refused
      .filter((e) => e.scimType === undefined)
      .filter((e) => !Object.prototype.hasOwnProperty.call(STATUS_ACTIONS, e.status))
      .map((e) => String(e.status));
    expect(byStatus).toEqual([]);
  });

  it('exist for every error code, a store failure and counted refusals', () => {
    const codes = [
      ...Object.keys(ERROR_CODES),
      COUNTED_CODE,
      describeFailure(new StoreError('throttled', 'x')).failure.code,
    ];
    const missing = codes.filter(
      (code) => recommendedAction({ outcome: 'failed', code, scimType: null, httpStatus: null }) === null,
    );
    expect(missing).toEqual([]);
  });

  it('are none for an entry that succeeded, and never repeat a value of the request', () => {
    expect(recommendedAction({ outcome: 'succeeded', code: null, scimType: null, httpStatus: null })).toBeNull();
    const text = recommendedAction({ outcome: 'refused', code: null, scimType: 'uniqueness', httpStatus: 409 });
    expect(text).toMatch(/externalId/);
    expect(text).not.toMatch(/\d{6}-?\d{4}/);
  });
});
