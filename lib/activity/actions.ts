/**
 * The action of an entry, as Entra's provisioning logs name them (create, update, delete, link, unlink,
 * other), from what the entry's operation was: the filter `action` and the column read this one table.
 * A deactivation is a `delete` (SCIM's soft delete, what Entra calls disable); a run's summary, a link check,
 * retention and a refused read are `other`.
 */
import type { ActivityAction } from './entries';

const ACTIONS: Record<string, ActivityAction> = {
  CREATE: 'create',
  IMPORT_CREATE: 'create',
  'POST /Users': 'create',
  REPLACE: 'update',
  PATCH: 'update',
  IMPORT_UPDATE: 'update',
  ADMIN_UPDATE: 'update',
  'PUT /Users/{id}': 'update',
  'PATCH /Users/{id}': 'update',
  DEACTIVATE: 'delete',
  IMPORT_DEACTIVATE: 'delete',
  'DELETE /Users/{id}': 'delete',
  LINK: 'link',
  UNLINK: 'unlink',
};

export const ACTIVITY_ACTIONS: readonly ActivityAction[] = ['create', 'update', 'delete', 'link', 'unlink', 'other'];

/** The action of an operation (an identity change's, a SCIM request's, a run's). */
export function actionOf(operation: string): ActivityAction {
  return Object.prototype.hasOwnProperty.call(ACTIONS, operation) ? (ACTIONS[operation] as ActivityAction) : 'other';
}
