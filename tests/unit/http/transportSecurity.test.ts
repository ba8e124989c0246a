import fs from 'node:fs';
import path from 'node:path';
import { HttpResponse, type HttpHandler, type HttpRequest, type InvocationContext } from '@azure/functions';
import { STRICT_TRANSPORT_SECURITY, inAzure, withTransportSecurity } from '../../../lib/http/transportSecurity';

const FUNCTIONS = path.resolve(__dirname, '..', '..', '..', 'functions');
const request = {} as HttpRequest;
const context = {} as InvocationContext;

describe('Strict-Transport-Security', () => {
  it.each([
    ['an Azure instance', { WEBSITE_SITE_NAME: 'func-abc', WEBSITE_INSTANCE_ID: 'abc' }],
    ['an Azure site', { WEBSITE_SITE_NAME: 'func-abc' }],
    ['NODE_ENV=production', { NODE_ENV: 'production' }],
  ])('is on every answer on %s, beside the other headers in any form', async (_where, env) => {
    expect(inAzure(env)).toBe(true);
    for (const headers of [{ 'x-a': '1' }, new Headers({ 'x-a': '1' }), [['x-a', '1']] as Array<[string, string]>]) {
      const handler: HttpHandler = () => Promise.resolve({ status: 201, headers, body: 'b' });
      const answer = await withTransportSecurity(handler, env)(request, context);
      expect(answer).toMatchObject({ status: 201, body: 'b' });
      expect((answer as { headers: Record<string, string> }).headers).toEqual({
        'x-a': '1',
        'strict-transport-security': STRICT_TRANSPORT_SECURITY,
      });
    }
    const noHeaders = await withTransportSecurity(() => Promise.resolve({ status: 204 }), env)(request, context);
    expect((noHeaders as { headers: Record<string, string> }).headers).toEqual({
      'strict-transport-security': STRICT_TRANSPORT_SECURITY,
    });
    const response = await withTransportSecurity(() => Promise.resolve(new HttpResponse({ status: 200 })), env)(
      request,
      context,
    );
    expect((response as HttpResponse).headers.get('strict-transport-security')).toBe(STRICT_TRANSPORT_SECURITY);
  });

  it('is not sent on the local stack (plain HTTP)', async () => {
    expect(inAzure({})).toBe(false);
    const answer = { status: 200, headers: { 'x-a': '1' } };
    expect(await withTransportSecurity(() => Promise.resolve(answer), {})(request, context)).toBe(answer);
  });

  it('wraps the handler of every HTTP function', () => {
    const registrations = fs
      .readdirSync(FUNCTIONS)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        [...fs.readFileSync(path.join(FUNCTIONS, f), 'utf8').matchAll(/app\.http\([^]*?handler:\s*([^\n]+)/g)].map(
          (m) => `${f}: ${m[1]}`,
        ),
      );
    expect(registrations.length).toBeGreaterThanOrEqual(13);
    expect(registrations.filter((r) => !/: withTransportSecurity\(\w+\),$/.test(r))).toEqual([]);
  });
});
