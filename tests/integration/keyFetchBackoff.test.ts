/**
 * A failed fetch of Entra's key set is remembered: while the key endpoint fails, tokens are refused at
 * once as invalid, and the refusals cause no further outbound request. The stack starts with a cold key
 * cache and the stand-in's key endpoint failing.
 */
import { startTestStack, call, type TestStack } from '../support/stack';
import { expectScimError } from '../support/scim';
import { DEV_CLIENTS } from '../../devhost/devData';

type Gql = { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> };

describe('key-set fetches back off after a failure', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('three tokens validated while the key endpoint fails cause one fetch; each is refused as invalid', async () => {
    stack.idp.failJwks('common', true);
    try {
      const before = stack.logs.length;
      const tokens = [
        await stack.token(DEV_CLIENTS.scim),
        await stack.token(DEV_CLIENTS.scim2),
        await stack.token(DEV_CLIENTS.admin),
      ];
      const scim = [];
      for (const token of tokens.slice(0, 2)) scim.push(await call(`${stack.base}/scim/v2/Users`, { token }));
      const gql = await call<Gql>(`${stack.base}/graphql`, {
        method: 'POST',
        token: tokens[2],
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ scimIntegrations { id } }' }),
      });
      for (const [i, res] of scim.entries()) {
        expectScimError(res, 401, undefined, tokens[i] ?? '');
        expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      }
      expect(gql.body.errors?.map((e) => e.extensions?.code)).toEqual(['AUTH_NOT_AUTHENTICATED']);
      expect(stack.idp.jwksRequests('common')).toBe(1);
      // One log line for the outage, not one per token.
      expect(stack.logs.slice(before).filter((l) => l.includes('signing keys'))).toHaveLength(1);
    } finally {
      stack.idp.failJwks('common', false);
    }
  });

  it('the endpoint back within the back-off: tokens are still refused without a fetch until it ends', async () => {
    const res = await call(`${stack.base}/scim/v2/Users`, { token: await stack.token(DEV_CLIENTS.scim) });
    expect(res.status).toBe(401);
    expect(stack.idp.jwksRequests('common')).toBe(1);
  });
});
