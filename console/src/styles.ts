import { makeStyles, tokens } from '@fluentui/react-components';

export const useStyles = makeStyles({
  center: {
    display: 'flex',
    flexDirection: 'column',
    alignItems: 'flex-start',
    gap: '16px',
    maxWidth: '40rem',
    margin: '10vh auto',
    padding: '0 16px',
  },
  shell: { display: 'flex', flexDirection: 'column', minHeight: '100vh' },
  header: {
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'space-between',
    flexWrap: 'wrap',
    gap: '8px',
    padding: '8px 16px',
    backgroundColor: tokens.colorBrandBackground,
    color: tokens.colorNeutralForegroundOnBrand,
  },
  headerUser: { display: 'flex', alignItems: 'center', gap: '8px', flexWrap: 'wrap' },
  body: {
    display: 'flex',
    flexGrow: 1,
    '@media (max-width: 700px)': { flexDirection: 'column' },
  },
  nav: {
    minWidth: '200px',
    padding: '8px',
    borderRight: `1px solid ${tokens.colorNeutralStroke2}`,
    '@media (max-width: 700px)': {
      borderRight: 'none',
      borderBottom: `1px solid ${tokens.colorNeutralStroke2}`,
      overflowX: 'auto',
    },
  },
  main: { flexGrow: 1, padding: '16px 24px', minWidth: 0, display: 'flex', flexDirection: 'column', gap: '16px' },
  row: { display: 'flex', gap: '8px', alignItems: 'flex-end', flexWrap: 'wrap' },
  tableWrap: { overflowX: 'auto', maxWidth: '100%' },
  cards: { display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(260px, 1fr))', gap: '12px' },
  mono: { fontFamily: tokens.fontFamilyMonospace, wordBreak: 'break-all' },
  trend: { display: 'flex', flexDirection: 'column', gap: '8px', alignItems: 'stretch' },
  chart: { width: '100%', maxWidth: '60rem', minHeight: '260px' },
  // The chart takes the height of its frame.
  smallChart: { width: '100%', height: '130px' },
  standsOut: { margin: 0, paddingLeft: '20px' },
  dl: { display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '4px 16px', margin: 0 },
});
