import { Badge } from '@fluentui/react-components';
import type { ImportRun } from '../api';

/** A run's status as a badge: completed green, running or queued neutral, anything else (failed, rejected, abandoned) red. */
export function RunStatusBadge({ status }: { status: ImportRun['status'] }) {
  const color =
    status === 'COMPLETED' ? 'success' : status === 'RUNNING' || status === 'QUEUED' ? 'informative' : 'danger';
  return (
    <Badge appearance="tint" color={color}>
      {status}
    </Badge>
  );
}
