/**
 * The administrator console in a real browser (headless Chromium) against the in-process stack: sign-in
 * through the identity-provider stand-in (authorization code + PKCE), every page, accessibility (axe-core),
 * both viewport sizes, and that no GraphQL response the console receives carries a personal or document number.
 */
import fs from 'node:fs';
import type { Page, Response } from 'playwright-core';
import { startTestStack, call, type TestStack } from '../support/stack';
import { scim, userBody } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { launchBrowser, screenshot, seriousViolations, type Browser } from './browser';

const CPR = '0101901234';
const CPR_DASHED = '010190-1234';
const PASSPORT = 'P1234567';
const MANUAL_CPR = '0202805678';
const BAD_CPR = '3213901234'; // refused: no 32nd day of a 13th month
const SECRETS = [CPR, CPR_DASHED, PASSPORT, MANUAL_CPR, BAD_CPR];
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

describe('administrator console (browser)', () => {
  let stack: TestStack;
  let browser: Browser;
  let integrationId: string;
  const graphqlBodies: string[] = [];
  const cspViolations: string[] = [];

  const watch = (page: Page) => {
    page.on('response', (res: Response) => {
      if (new URL(res.url()).pathname === '/graphql')
        void res.text().then(
          (t) => graphqlBodies.push(t),
          () => undefined,
        );
    });
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  };

  /** Opens the console in a new tab and signs in as the named dev user on the stand-in's sign-in page. */
  const signIn = async (who: 'Dev Admin' | 'Dev Reader (no role)', viewport = DESKTOP, path = '/console/') => {
    const page = await browser.page(viewport);
    watch(page);
    await page.goto(`${stack.base}${path}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: new RegExp(`^${who.replace(/[()]/g, '\\$&')}`) }).click();
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).waitFor();
    // A deep link survives the sign-in round trip.
    await page.waitForURL(`${stack.base}${path}`);
    return page;
  };
  const graphql = async (query: string, variables: Record<string, unknown>) =>
    (
      await call<{ data?: unknown; errors?: unknown[] }>(`${stack.base}/graphql`, {
        method: 'POST',
        token: await stack.token(DEV_CLIENTS.admin),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      })
    ).body;
  const go = async (page: Page, section: string) => {
    await page.getByRole('tab', { name: section, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: section }).waitFor();
  };

  beforeAll(async () => {
    stack = await startTestStack();
    browser = await launchBrowser();
    integrationId = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim.clientId))!.id;
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('serves the console under a strict CSP: no inline or third-party script or style, a nonce per page, hashed assets cached, index.html never stored', async () => {
    const res = await call(`${stack.base}/console/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*(unsafe-inline|unsafe-eval|https?:)/);
    expect(csp).toContain(`connect-src 'self' ${new URL(stack.idp.url).origin}`);
    // No inline style either: Fluent UI's style elements carry the page's nonce, new with every page.
    const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{24})'(;|$)/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(res.text).toContain(`<meta name="csp-nonce" content="${nonce}"`);
    const again = (await call(`${stack.base}/console/`)).headers.get('content-security-policy') ?? '';
    expect(again).not.toContain(`'nonce-${nonce}'`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const scripts = [...res.text.matchAll(/src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src).toMatch(/^\/console\/assets\/[\w-]+-[\w-]{8}\.js$/);
      const asset = await call(`${stack.base}${src}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    expect((await call(`${stack.base}/console/assets/missing-00000000.js`)).status).toBe(404);
    expect((await call(`${stack.base}/console/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
    expect((await call(`${stack.base}/console/%E0%A4%A`)).status).toBe(404);
  });

  it('signs the dev admin in with the authorization-code flow and shows the overview; no token in localStorage', async () => {
    const page = await signIn('Dev Admin');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByText('Dev SCIM', { exact: true }).first().waitFor();
    const local = await page.evaluate(() => JSON.stringify({ ...window.localStorage }));
    expect(local).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    const session = await page.evaluate(() => JSON.stringify({ ...window.sessionStorage }));
    expect(session).toMatch(/accesstoken/i);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('refuses the user without the Admin role with a clear page', async () => {
    const page = await signIn('Dev Reader (no role)');
    await page.getByRole('heading', { name: 'You are not an administrator of this service' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Overview' }).count()).toBe(0);
    await screenshot(page, 'console-refused');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('creates a SCIM integration, disables and enables it', async () => {
    const page = await signIn('Dev Admin');
    await go(page, 'SCIM integrations');
    await page.getByLabel('Display name').fill('Payroll SCIM');
    await page.getByLabel('Client (application) id').fill('dddddddd-0000-4000-8000-000000000001');
    await page.getByRole('button', { name: 'Create integration' }).click();
    const row = page.getByRole('row', { name: /Payroll SCIM/ });
    await row.getByText('Enabled').waitFor();
    await page.getByRole('button', { name: 'Disable Payroll SCIM' }).click();
    await row.getByText('Disabled').waitFor();
    await page.getByRole('button', { name: 'Enable Payroll SCIM' }).click();
    await row.getByText('Enabled').waitFor();
    const created = (await services().integrations.list(DEV_TENANT_ID)).find((i) => i.displayName === 'Payroll SCIM');
    expect(created?.enabled).toBe(true);
    await screenshot(page, 'console-integrations');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('shows a SCIM User as it arrives, found by its UPN, with only the kinds of its numbers', async () => {
    const upn = 'alice@dev.example.com';
    const created = await scim(stack, await stack.token(DEV_CLIENTS.scim)).create(
      userBody(
        { externalId: 'HR-ALICE' },
        {
          directoryUserPrincipalName: upn,
          personalNumbers: [{ type: 'DkCpr', value: CPR_DASHED }],
          identityDocumentReferences: [{ type: 'Passport', issuingCountry: 'DK', documentNumber: PASSPORT }],
        },
      ),
    );
    expect(created.status).toBe(201);
    const page = await signIn('Dev Admin', DESKTOP, `/console/identities?source=${integrationId}`);
    await page.getByRole('heading', { level: 1, name: 'Identities' }).waitFor();
    await page.getByLabel('externalId or UPN').fill(upn.toUpperCase());
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'HR-ALICE' }).click();
    await page.getByRole('heading', { level: 1, name: 'Anna Berg' }).waitFor();
    await page.getByText('Danish CPR number').waitFor();
    await page.getByText('Passport').first().waitFor();
    const text = await page.locator('main').innerText();
    for (const s of SECRETS) expect(text).not.toContain(s);
    await screenshot(page, 'console-identity');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it("links and unlinks an identity manually, with confirmation, and shows the link history and the user's name in its history", async () => {
    const imported = await graphql(
      'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
      {
        i: {
          source: 'HR-nightly',
          identities: [{ externalId: 'N-1', affiliationType: 'EMPLOYMENT', firstName: 'Bo', lastName: 'Bak' }],
        },
      },
    );
    expect(imported.errors).toBeUndefined();
    const page = await signIn('Dev Admin', DESKTOP, '/console/identities?source=HR-nightly');
    await page.getByRole('link', { name: 'N-1' }).click();
    await page.getByRole('heading', { level: 1, name: 'Bo Bak' }).waitFor();
    await page.getByLabel('Directory user (UPN)').fill('bob@dev.example.com');
    await page.getByRole('button', { name: 'Link', exact: true }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('Link N-1 to bob@dev.example.com?').waitFor();
    await dialog.getByRole('button', { name: 'Link' }).click();
    await page.getByText('bob@dev.example.com', { exact: false }).first().waitFor();
    await page.getByRole('table', { name: 'Link history' }).getByText('link.manualLinked').waitFor();
    await page.getByText('Linked', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Unlink' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Unlink' }).click();
    await page.getByRole('table', { name: 'Link history' }).getByText('link.unlinked').waitFor();
    await page.getByText('Not asserted', { exact: true }).first().waitFor();
    // The signed-in user's changes are recorded under the name the token carried.
    await page.reload();
    const history = page.getByRole('table', { name: 'History', exact: true });
    await history.getByRole('row', { name: /UNLINK/ }).waitFor();
    expect(await history.getByRole('row', { name: /UNLINK/ }).innerText()).toContain('Administrator: Dev Admin');
    expect(await history.getByRole('row', { name: /\bLINK\b/ }).innerText()).toContain('Administrator: Dev Admin');
    await page.close();
  });

  it('shows a conflict: which identity holds the directory user, and when it is checked next', async () => {
    const client = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const holder = await client.create(
      userBody({ externalId: 'HOLDS-CAROL' }, { directoryUserPrincipalName: 'carol@dev.example.com' }),
    );
    const second = await client.create(
      userBody({ externalId: 'WANTS-CAROL' }, { directoryUserPrincipalName: 'carol@dev.example.com' }),
    );
    expect([holder.status, second.status]).toEqual([201, 201]);
    const page = await signIn('Dev Admin', DESKTOP, `/console/identities?source=${integrationId}`);
    await page.getByLabel('Link status').selectOption('CONFLICT');
    await page.getByRole('link', { name: 'WANTS-CAROL' }).click();
    await page.getByText('Conflict', { exact: true }).first().waitFor();
    await page.getByRole('link', { name: /HOLDS-CAROL in/ }).waitFor();
    await page.getByText('Checked next').waitFor();
    await screenshot(page, 'console-conflict');
    await page.getByRole('link', { name: /HOLDS-CAROL in/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Anna Berg' }).waitFor();
    await page.getByText('carol@dev.example.com').first().waitFor();
    await page.close();
  });

  it('shows a run after an import, with its counts', async () => {
    const imported = await graphql(
      'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created runId } }',
      {
        i: {
          source: 'Payroll',
          identities: [
            {
              externalId: 'P-1',
              affiliationType: 'EMPLOYMENT',
              firstName: 'Ida',
              lastName: 'Holm',
              personalNumbers: [{ type: 'DK_CPR', value: CPR }],
            },
            { externalId: 'P-2', affiliationType: 'OTHER', firstName: 'Ole', lastName: 'Lund' },
          ],
        },
      },
    );
    expect(imported.errors).toBeUndefined();
    const page = await signIn('Dev Admin', DESKTOP, '/console/runs?source=Payroll');
    const runs = page.getByRole('table', { name: 'Runs' });
    await runs.getByText('COMPLETED').waitFor();
    await runs.getByText('created 2, updated 0, deleted 0, unchanged 0').waitFor();
    await page.getByRole('figure', { name: /Created, updated and deleted identities per import run/ }).waitFor();
    await screenshot(page, 'console-runs');
    await go(page, 'Overview');
    await page.getByRole('link', { name: 'Payroll', exact: true }).waitFor();
    const chart = page.getByRole('img', { name: /per import run, last 90 days, Payroll$/ });
    await chart.locator('svg rect').first().waitFor();
    const summary = await chart.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${summary}"]`).innerText()).toBe('1 import run; none stands out.');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('creates, edits, deactivates and deletes a Manual identity', async () => {
    const page = await signIn('Dev Admin', DESKTOP, '/console/manual');
    await page.getByRole('heading', { level: 1, name: 'Manual identities' }).waitFor();
    await page.getByLabel('externalId').fill('M-CONSULTANT');
    await page.getByLabel('First name').fill('Kim');
    await page.getByLabel('Last name').fill('Vang');
    await page.getByLabel('CPR number (write-only)').fill(MANUAL_CPR);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('row', { name: /M-CONSULTANT/ }).waitFor();
    await page.getByRole('button', { name: 'Edit M-CONSULTANT' }).click();
    await page.getByLabel('Last name').fill('Vangsgaard');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /Kim Vangsgaard/ }).waitFor();
    await page.getByRole('button', { name: 'Deactivate M-CONSULTANT' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Deactivate' }).click();
    await page.getByText('M-CONSULTANT deactivated').waitFor();
    const stored = (
      await services()
        .store.collection<{ id: string; pk: string; externalId: string; active: boolean; inactiveSince?: string }>(
          'identities',
        )
        .queryPage({
          query: "SELECT * FROM c WHERE c.externalIdKey = 'M-CONSULTANT'",
        })
    ).items[0];
    expect(stored?.active).toBe(false);
    expect(stored?.inactiveSince).toEqual(expect.any(String));
    await screenshot(page, 'console-manual');
    await page.getByRole('button', { name: 'Delete M-CONSULTANT' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('M-CONSULTANT deleted').waitFor();
    expect(await page.getByRole('row', { name: /M-CONSULTANT/ }).count()).toBe(0);
    await page.close();
  });

  it("lists a refused POST on the source's Activity page with its externalId, never the personal number, and links to the identity", async () => {
    const client = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const refused = await client.create(
      userBody({ externalId: 'ACT-BADCPR' }, { personalNumbers: [{ type: 'DkCpr', value: BAD_CPR }] }),
    );
    expect([refused.status, refused.body.scimType]).toEqual([400, 'invalidValue']);
    const kept = await client.create(
      userBody({ externalId: 'ACT-DUP' }, { personalNumbers: [{ type: 'DkCpr', value: CPR }] }),
    );
    expect(kept.status).toBe(201);
    expect((await client.create(userBody({ externalId: 'ACT-DUP' }))).status).toBe(409);
    const stale = await client.patch(
      kept.body.id,
      {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'name.familyName', value: 'Holm' }],
      },
      { 'if-match': 'W/"99"' },
    );
    expect(stale.status).toBe(412);

    // From the source's page to its activity.
    const page = await signIn('Dev Admin', DESKTOP, `/console/identities?source=${integrationId}`);
    await page.getByRole('link', { name: /^Activity of this source/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
    const table = page.getByRole('table', { name: 'Activity' });
    const badRow = table.getByRole('row', { name: /ACT-BADCPR/ });
    await badRow.waitFor();
    expect(await badRow.innerText()).toMatch(/Refused[\s\S]*POST \/Users[\s\S]*400 invalidValue[\s\S]*ACT-BADCPR/);
    await table.getByRole('row', { name: /409 uniqueness/ }).waitFor();
    const text = await page.locator('main').innerText();
    for (const s of SECRETS) expect(text).not.toContain(s);
    await screenshot(page, 'console-activity');
    expect(await seriousViolations(page)).toEqual([]);
    // The refused PATCH names its User: the entry links to the identity.
    await table
      .getByRole('row', { name: /PATCH \/Users\/\{id\} 412/ })
      .getByRole('link', { name: `Identity ${kept.body.id}` })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Anna Berg' }).waitFor();
    await page.close();
  });

  it('filters the Activity page by outcome, externalId and time, and shows a custom source’s runs', async () => {
    // A custom source with a run, listed by the source picker.
    const imported = await graphql(
      'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
      {
        i: {
          source: 'Activity-HR',
          identities: [{ externalId: 'A-1', affiliationType: 'OTHER', firstName: 'Al', lastName: 'Bo' }],
        },
      },
    );
    expect(imported.errors).toBeUndefined();
    const page = await signIn('Dev Admin', DESKTOP, `/console/activity?source=${integrationId}`);
    const table = page.getByRole('table', { name: 'Activity' });
    await table.getByRole('row', { name: /ACT-BADCPR/ }).waitFor();
    await page.getByLabel('externalId').fill('ACT-DUP');
    await page.getByRole('button', { name: 'Filter' }).click();
    await table.getByRole('row', { name: /ACT-BADCPR/ }).waitFor({ state: 'detached' });
    await table.getByRole('row', { name: /409 uniqueness/ }).waitFor();
    // The header, the duplicate POST and the create of the User it duplicated.
    expect(await table.getByRole('row').count()).toBe(3);
    // The kept ACT-DUP's create is recorded in its history: the one succeeded entry of that externalId.
    await page.getByLabel('Outcome').selectOption('SUCCEEDED');
    const created = table.getByRole('row', { name: /Succeeded/ });
    await created.waitFor();
    expect(await table.getByRole('row').count()).toBe(2);
    expect(await created.innerText()).toMatch(/Succeeded\s+CREATE[\s\S]*ACT-DUP[\s\S]*Changed [\s\S]*personalNumbers/);
    await table.getByRole('row', { name: /409 uniqueness/ }).waitFor({ state: 'detached' });
    await page.getByLabel('Outcome').selectOption('REFUSED');
    await page.getByLabel('externalId').fill('');
    await page.getByLabel('From').fill('2099-01-01T00:00');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No activity matches.').waitFor();
    await page.getByLabel('From').fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await table.getByRole('row', { name: /ACT-BADCPR/ }).waitFor();

    await page.getByLabel('Source').selectOption('Activity-HR');
    await page.getByLabel('Outcome').selectOption({ label: 'Any' });
    const run = table.getByRole('row', { name: /import/ });
    await run.getByText('Succeeded').waitFor();
    await run.getByText('created 1, updated 0, deleted 0, unchanged 0').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('shows a run as one row with a drill-in, narrows by action and until, opens the details and downloads the selection', async () => {
    const imported = await graphql(
      'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
      {
        i: {
          source: 'Activity-Runs',
          identities: ['R-1', 'R-2', 'R-3'].map((externalId) => ({
            externalId,
            affiliationType: 'OTHER',
            firstName: 'Run',
            lastName: externalId,
          })),
        },
      },
    );
    expect(imported.errors).toBeUndefined();
    const page = await signIn('Dev Admin', DESKTOP, '/console/activity?source=Activity-Runs');
    const table = page.getByRole('table', { name: 'Activity' });
    // The run is one row with its counts; its three creates are not interleaved.
    const run = table.getByRole('row', { name: /import/ });
    await run.getByText('created 3, updated 0, deleted 0, unchanged 0').waitFor();
    expect(await table.getByRole('row').count()).toBe(2);
    await screenshot(page, 'console-activity-runs');
    expect(await seriousViolations(page)).toEqual([]);
    await run.getByRole('button', { name: 'View changes' }).click();
    await page.getByText(/Changes of the import run of/).waitFor();
    await table.getByRole('row', { name: /R-3/ }).waitFor();
    expect(await table.getByRole('row', { name: /IMPORT_CREATE/ }).count()).toBe(3);
    await table
      .getByRole('row', { name: /R-2/ })
      .getByRole('button', { name: /^Details/ })
      .click();
    const panel = page.getByRole('region', { name: 'Entry details' });
    await panel.getByText('Run: Activity-Runs').waitFor();
    expect(await panel.innerText()).toMatch(/Operation\s+IMPORT_CREATE[\s\S]*Attributes\s+[\s\S]*name\.givenName/);
    await page.getByRole('button', { name: 'Back to all activity' }).click();
    await table.getByRole('row', { name: /import/ }).waitFor();

    // Every source, the source as a column; an action and an until narrow it.
    await page.getByLabel('Source').selectOption({ label: 'All sources' });
    await page.getByRole('columnheader', { name: 'Source' }).waitFor();
    await table.getByRole('row', { name: /ACT-BADCPR/ }).waitFor();
    await page.getByLabel('Action').selectOption('CREATE');
    await table.getByRole('row', { name: /import/ }).waitFor({ state: 'detached' });
    await table.getByRole('row', { name: /ACT-BADCPR/ }).waitFor();
    await page.getByLabel('Until').fill('2000-01-01T00:00');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No activity matches.').waitFor();
    await page.getByLabel('Until').fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    const refusedRow = table.getByRole('row', { name: /ACT-BADCPR/ });
    await refusedRow.waitFor();
    await refusedRow.getByRole('button', { name: /^Details/ }).click();
    await panel.getByText('Recommended action').waitFor();
    expect(await panel.innerText()).toMatch(/invalidValue[\s\S]*Recommended action\s+Correct the connector/);
    // The integration is named in the source column.
    expect(await refusedRow.innerText()).toContain('Dev SCIM');
    await panel.evaluate((e) => e.scrollIntoView({ block: 'end' }));
    await screenshot(page, 'console-activity-details');
    expect(await seriousViolations(page)).toEqual([]);

    // The selection downloads as CSV: the creates of every source, never a number.
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(file.suggestedFilename()).toBe('activity.csv');
    const csv = fs.readFileSync((await file.path())!, 'utf8');
    const lines = csv.trim().split('\n');
    expect(lines[0]).toMatch(/^at,source,action,outcome,operation,/);
    expect(lines.slice(1).every((l) => l.split(',')[2] === 'create')).toBe(true);
    expect(csv).toContain('ACT-BADCPR');
    for (const s of SECRETS) expect(csv).not.toContain(s);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it("shows an identity's history on its page: who changed it and which attributes, by name, never a value", async () => {
    const client = scim(stack, await stack.token(DEV_CLIENTS.scim));
    const created = await client.create(
      userBody({ externalId: 'HIST-1' }, { personalNumbers: [{ type: 'DkCpr', value: CPR }] }),
    );
    expect(created.status).toBe(201);
    const patched = await client.patch(created.body.id, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'name.givenName', value: 'Annika' }],
    });
    expect(patched.status).toBe(200);
    const page = await signIn('Dev Admin', DESKTOP, `/console/identity/${integrationId}/${created.body.id}`);
    await page.getByRole('heading', { level: 1, name: 'Annika Berg' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'History', exact: true }).waitFor();
    const table = page.getByRole('table', { name: 'History', exact: true });
    // Newest first: the PATCH naming the attribute it changed, then the create naming the personal numbers by
    // name; both by the integration, named.
    const rows = table.getByRole('row');
    await rows.nth(2).waitFor();
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(1).innerText()).toMatch(/^.+\s+SCIM integration: Dev SCIM\s+PATCH\s+name\.givenName$/);
    expect(await rows.nth(2).innerText()).toMatch(/^.+\s+SCIM integration: Dev SCIM\s+CREATE\s+[\s\S]*personalNumbers/);
    expect(await page.getByText('No changes recorded.').count()).toBe(0);
    const text = await page.locator('main').innerText();
    for (const s of SECRETS) expect(text).not.toContain(s);
    await page.getByRole('heading', { level: 2, name: 'History', exact: true }).evaluate((e) => e.scrollIntoView());
    await screenshot(page, 'console-activity-history');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it("charts a custom source's import runs and names the runs whose deletions stand out, with the reason in text", async () => {
    const people = (n: number) =>
      Array.from({ length: n }, (_, k) => ({
        externalId: `T-${k + 1}`,
        affiliationType: 'EMPLOYMENT',
        firstName: 'Tove',
        lastName: `Trend ${k + 1}`,
      }));
    const importSet = async (n: number, maxDeletedRatio?: number) =>
      graphql('mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { deleted } }', {
        i: { source: 'Trend-HR', identities: people(n), ...(maxDeletedRatio !== undefined ? { maxDeletedRatio } : {}) },
      });
    // 20 created; 1 of 20 deleted (5 %); nothing deleted; 9 of 19 deleted (47.4 %, over 3 × the median 5 %);
    // then a set that would delete 8 of 10, refused by the request's delete guard.
    for (const n of [20, 19, 19, 10]) expect((await importSet(n)).errors).toBeUndefined();
    const refused = (await importSet(2, 0.5)) as { errors?: Array<{ extensions?: { code?: string } }> };
    expect(refused.errors?.[0]?.extensions?.code).toBe('IMPORT_DELETE_LIMIT_EXCEEDED');

    // From the source's card on the overview to its runs.
    const page = await signIn('Dev Admin');
    await page.getByRole('link', { name: 'Runs of Trend-HR, with their chart' }).click();
    await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    const figure = page.getByRole('figure', { name: /Created, updated and deleted identities per import run/ });
    await figure.waitFor();
    await figure.locator('svg rect').first().waitFor();
    // Each bar is focusable and named with its run and count.
    await figure.locator('[tabindex="0"][aria-label^="⚠"][aria-label$=": deleted 9"]').waitFor();
    await page.getByText(/^5 import runs; median deleted share 5 %; 2 stand out \(marked ⚠\)\.$/).waitFor();
    const marked = page.getByRole('list', { name: 'Runs that stand out' }).getByRole('listitem');
    expect(await marked.count()).toBe(2);
    expect(await marked.nth(0).innerText()).toContain(
      'Deleted 47.4 % of the source (9 of 19), more than 3 times the median of 5 % over the last 90 days.',
    );
    expect(await marked.nth(1).innerText()).toMatch(
      /Refused by the delete guard \(IMPORT_DELETE_LIMIT_EXCEEDED\): The import would delete 8 of 10 identities/,
    );
    await page
      .getByRole('heading', { level: 2, name: 'Import runs, last 90 days' })
      .evaluate((e) => e.scrollIntoView());
    await screenshot(page, 'console-runs-chart');
    expect(await seriousViolations(page)).toEqual([]);

    // The table alternative, from the keyboard: every run with its counts and whether it stands out.
    await page.getByRole('button', { name: 'Show as table' }).focus();
    await page.keyboard.press('Enter');
    const table = page.getByRole('table', { name: /Created, updated and deleted identities per import run/ });
    await table.waitFor();
    const rows = table.getByRole('row');
    expect(await rows.count()).toBe(6);
    expect(await rows.nth(4).innerText()).toMatch(/^⚠[\s\S]*completed\s+0\s+0\s+9\s+47\.4 %\s+Deleted 47\.4 %/);
    expect(await rows.nth(2).innerText()).toMatch(/completed\s+0\s+0\s+1\s+5 %\s+No$/);
    expect(await seriousViolations(page)).toEqual([]);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(DESKTOP.width);
    // Fluent's chart draws and styles under the console's CSP (the browser reports any refusal on the console).
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it("draws each custom source's runs small on its overview card, the runs that stand out named in text, linked to the full chart", async () => {
    const page = await signIn('Dev Admin');
    const chart = page.getByRole('img', {
      name: 'Created, updated and deleted identities per import run, last 90 days, Trend-HR',
    });
    await chart.locator('svg rect').first().waitFor();
    // The picture takes no focus (its bars are on the Runs page); its summary and the runs that stand out are text.
    expect(await chart.locator('[inert]').count()).toBe(1);
    const summary = await chart.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${summary}"]`).innerText()).toBe(
      '5 import runs; median deleted share 5 %; 2 stand out (marked ⚠).',
    );
    const marked = page.getByRole('list', { name: 'Runs of Trend-HR that stand out' }).getByRole('listitem');
    expect(await marked.count()).toBe(2);
    expect(await marked.nth(0).innerText()).toMatch(
      /^⚠ .+: Deleted 47\.4 % of the source \(9 of 19\), more than 3 times the median of 5 % over the last 90 days\.$/,
    );
    expect(await marked.nth(1).innerText()).toMatch(
      /^⚠ .+: Refused by the delete guard \(IMPORT_DELETE_LIMIT_EXCEEDED\)/,
    );
    // The whole overview in one picture: a tall window for the screenshot only.
    await page.setViewportSize({ width: DESKTOP.width, height: 1600 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'console-overview');
    await page.setViewportSize(DESKTOP);
    expect(await seriousViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
    // The card's link, from the keyboard, opens the full chart and its table.
    await page.getByRole('link', { name: 'Runs of Trend-HR, with their chart' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    expect(new URL(page.url()).search).toBe('?source=Trend-HR');
    await page.getByRole('figure', { name: /Created, updated and deleted identities per import run/ }).waitFor();
    await page.close();
  });

  it('shows the run chart on a phone without horizontal overflow', async () => {
    const page = await signIn('Dev Admin', PHONE, '/console/runs?source=Trend-HR');
    await page.getByRole('figure', { name: /Created, updated and deleted identities per import run/ }).waitFor();
    await page.getByRole('list', { name: 'Runs that stand out' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  it('is usable on a phone (390×844) and at 1280×800: navigation reachable, no serious accessibility violation', async () => {
    for (const [name, viewport] of [
      ['phone', PHONE],
      ['desktop', DESKTOP],
    ] as const) {
      const page = await signIn('Dev Admin', viewport);
      for (const section of ['SCIM integrations', 'Identities', 'Runs', 'Activity', 'Manual identities', 'Overview']) {
        await go(page, section);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(width).toBeLessThanOrEqual(viewport.width);
        expect(await seriousViolations(page)).toEqual([]);
      }
      if (name === 'phone') await screenshot(page, 'console-phone');
      await page.close();
    }
  });

  it('can be driven from the keyboard: sign in and move between sections without a mouse', async () => {
    const page = await browser.page(DESKTOP);
    watch(page);
    await page.goto(`${stack.base}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sign in');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: /^Dev Admin/ }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('tab', { name: 'Overview' }).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'SCIM integrations' }).waitFor();
    await page.close();
  });

  it("opens GraphiQL from /graphql: the service's own files, signed in like the console, under the CSP", async () => {
    const page = await browser.page(DESKTOP);
    watch(page);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const introspection = page.waitForResponse(
      async (r) =>
        new URL(r.url()).pathname === '/graphql' &&
        r.request().method() === 'POST' &&
        (await r.text()).includes('__schema'),
    );
    await page.goto(`${stack.base}/graphql`);
    await page.getByRole('button', { name: /^Dev Admin/ }).click();
    await page.waitForURL(`${stack.base}/console/graphiql.html`);
    await page.locator('.graphiql-container').waitFor();
    expect((await introspection).status()).toBe(200);
    const csp = (await call(`${stack.base}/console/graphiql.html`)).headers.get('content-security-policy');
    expect(csp).toContain("script-src 'self'");
    const origins = new Set(requested.map((u) => new URL(u).origin));
    expect([...origins].sort()).toEqual([new URL(stack.base).origin, new URL(stack.idp.url).origin].sort());
    await screenshot(page, 'console-graphiql');
    await page.close();
  });

  it('GraphiQL keeps nothing in the browser: a query with a CPR number in its variables leaves no trace in storage', async () => {
    const cpr = '010190-4321';
    const page = await browser.page(DESKTOP);
    watch(page);
    await page.goto(`${stack.base}/graphql`);
    await page.getByRole('button', { name: /^Dev Admin/ }).click();
    await page.waitForURL(`${stack.base}/console/graphiql.html`);
    await page.locator('.graphiql-container').waitFor();
    await page.locator('.graphiql-query-editor .CodeMirror').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(
      'query Find($q: String) { businessIdentities(source: "Manual", filter: { search: $q }) { nodes { externalId } } }',
    );
    await page.locator('.graphiql-editor-tools').getByText('Variables', { exact: true }).click();
    await page.locator('.graphiql-editor-tool .CodeMirror').first().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(`{ "q": "${cpr}" }`);
    const answered = page.waitForResponse(
      async (r) => new URL(r.url()).pathname === '/graphql' && (await r.text()).includes('businessIdentities'),
    );
    await page.getByRole('button', { name: /Execute query/ }).click();
    expect((await answered).status()).toBe(200);
    await page.locator('.graphiql-response').getByText('"nodes"').waitFor();
    await screenshot(page, 'console-graphiql-query');
    const stored = await page.evaluate(() => ({
      local: { ...window.localStorage },
      session: { ...window.sessionStorage },
    }));
    for (const area of [stored.local, stored.session]) {
      expect(Object.keys(area).filter((k) => k.startsWith('graphiql'))).toEqual([]);
      const text = JSON.stringify(area);
      for (const digits of [cpr, cpr.replace('-', ''), '010190', '4321']) expect(text).not.toContain(digits);
    }
    // A reload starts empty: nothing was kept to restore.
    await page.reload();
    await page.locator('.graphiql-container').waitFor();
    expect(await page.locator('.graphiql-container').innerText()).not.toContain(cpr);
    await page.close();
  });

  it('never receives a personal number or document number in a GraphQL response, and breaks no CSP rule', () => {
    expect(graphqlBodies.length).toBeGreaterThan(20);
    expect(graphqlBodies.some((b) => b.includes('DK_CPR'))).toBe(true); // the kinds are there
    for (const body of graphqlBodies) for (const s of SECRETS) expect(body).not.toContain(s);
    expect(cspViolations).toEqual([]);
  });
});
