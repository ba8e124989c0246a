import { ScimError } from '../../lib/scim/errors';

/** The ScimError that `fn` throws; any other outcome fails the test. */
export function errorOf(fn: () => unknown): ScimError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ScimError) return err;
    throw err;
  }
  throw new Error('expected a ScimError');
}
