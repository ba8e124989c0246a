/** A table's sideways-scrolling box: focusable and named, so a keyboard user can scroll a table wider than the page. */
import type { ReactNode } from 'react';
import { useStyles } from './styles';

export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  const styles = useStyles();
  return (
    <div className={styles.tableWrap} role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
