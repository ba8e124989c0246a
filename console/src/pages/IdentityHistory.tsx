/** An identity's changes, newest first: when, who (integration, import run, administrator, background work), what and which attributes. */
import {
  Table,
  TableBody,
  TableCell,
  TableHeader,
  TableHeaderCell,
  TableRow,
  Text,
  Title3,
} from '@fluentui/react-components';
import type { IdentityChange } from '../api';
import { when } from '../data';
import { useStyles } from '../styles';
import { TableWrap } from '../TableWrap';

const ACTOR: Record<IdentityChange['actor']['kind'], string> = {
  INTEGRATION: 'SCIM integration',
  IMPORT_RUN: 'Import run',
  ADMINISTRATOR: 'Administrator',
  BACKGROUND: 'Background work',
};

export function IdentityHistory({ history, omitted }: { history: IdentityChange[]; omitted: number }) {
  const styles = useStyles();
  return (
    <>
      <Title3 as="h2">History</Title3>
      {history.length === 0 ? (
        <Text role="status">No changes recorded.</Text>
      ) : (
        <TableWrap label="History">
          <Table aria-label="History" size="small">
            <TableHeader>
              <TableRow>
                <TableHeaderCell>When</TableHeaderCell>
                <TableHeaderCell>By</TableHeaderCell>
                <TableHeaderCell>Operation</TableHeaderCell>
                <TableHeaderCell>Attributes changed</TableHeaderCell>
              </TableRow>
            </TableHeader>
            <TableBody>
              {history.map((h, n) => (
                <TableRow key={n}>
                  <TableCell>{when(h.at)}</TableCell>
                  <TableCell>
                    {ACTOR[h.actor.kind]}: {h.actor.displayName ?? <span className={styles.mono}>{h.actor.id}</span>}
                  </TableCell>
                  <TableCell className={styles.mono}>{h.operation}</TableCell>
                  <TableCell className={styles.mono}>{h.changedAttributes.join(', ') || '—'}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableWrap>
      )}
      {omitted > 0 && (
        <Text>
          {omitted} older {omitted === 1 ? 'change is' : 'changes are'} no longer kept one by one.
        </Text>
      )}
    </>
  );
}
