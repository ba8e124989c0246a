/**
 * Work a SCIM request does not repeat: a token verified once is remembered until it expires (the
 * registration and integration checks still run on every request), and LOG_LEVEL=warn writes no
 * line per successful request.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { expectScimError } from '../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';

const SYSTEM = { tenantId: DEV_TENANT_ID, kind: 'system' as const, id: 'request-cost-test' };

describe('per-request work', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { LOG_LEVEL: 'warn' } });
  });
  afterAll(async () => stack?.stop());

  it('LOG_LEVEL=warn: successful requests write no line', async () => {
    const token = await stack.token(DEV_CLIENTS.scim);
    for (let i = 0; i < 3; i++) expect((await call(`${stack.base}/scim/v2/Users?count=1`, { token })).status).toBe(200);
    expect(stack.logs.filter((l) => l.includes('"scim request"'))).toEqual([]);
    expect(stack.logs.filter((l) => l.includes('"level":"info"'))).toEqual([]);
  });

  it('a remembered token of a disabled integration is refused at once, and accepted again when re-enabled', async () => {
    const token = await stack.token(DEV_CLIENTS.scim2);
    expect((await call(`${stack.base}/scim/v2/Users?count=1`, { token })).status).toBe(200);
    const integration = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim2.clientId))!;
    await services().integrations.setEnabled(DEV_TENANT_ID, integration.id, false, SYSTEM);
    try {
      expectScimError(await call(`${stack.base}/scim/v2/Users?count=1`, { token }), 403, undefined);
    } finally {
      await services().integrations.setEnabled(DEV_TENANT_ID, integration.id, true, SYSTEM);
    }
    expect((await call(`${stack.base}/scim/v2/Users?count=1`, { token })).status).toBe(200);
  });
});
