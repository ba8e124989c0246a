/**
 * examples/: the CSV runs through the import client, and every request of requests.http is sent in order
 * (its port variables set to the in-process stack's) and answers the status it documents, never a 5xx.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startTestStack, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_SCOPE } from '../../devhost/devData';
import { runImport } from '../../scripts/importClient';
import { SERVICE_ATTRIBUTES, SERVICE_USER_SCHEMA } from '../../lib/scim/schema';

const EXAMPLES = path.resolve(__dirname, '../../examples');

export interface HttpFileRequest {
  title: string;
  name?: string;
  expect?: number;
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body: string;
}

/** The REST Client format, as far as the file uses it: `@var = value`, `###` between requests, `# @name`, `# expect:`. */
export function parseHttpFile(text: string): { variables: Map<string, string>; requests: HttpFileRequest[] } {
  const variables = new Map<string, string>();
  const requests: HttpFileRequest[] = [];
  text.split(/^###/m).forEach((block, i) => {
    // Every part but the first begins with the rest of its `###` line: the request's title.
    const [first = '', ...rest] = block.split('\n');
    const lines = i === 0 ? [first, ...rest] : rest;
    const title = (i === 0 ? '' : first.trim()) || `request ${i}`;
    let name: string | undefined;
    let expected: number | undefined;
    let requestLine = -1;
    for (let j = 0; j < lines.length; j++) {
      const line = (lines[j] ?? '').trim();
      const variable = /^@(\w+)\s*=\s*(.*)$/.exec(line);
      if (variable && requestLine < 0) {
        variables.set(variable[1]!, variable[2]!.trim());
        continue;
      }
      if (line.startsWith('#')) {
        name = /^#\s*@name\s+(\w+)/.exec(line)?.[1] ?? name;
        const e = /^#\s*expect:\s*(\d{3})/.exec(line)?.[1];
        if (e) expected = Number(e);
        continue;
      }
      if (line && requestLine < 0) {
        requestLine = j;
        break;
      }
    }
    if (requestLine < 0) return;
    const [method, url] = (lines[requestLine] ?? '').trim().split(/\s+/);
    const headers: Array<[string, string]> = [];
    let j = requestLine + 1;
    for (; j < lines.length && (lines[j] ?? '').trim() !== ''; j++) {
      const h = /^([^:]+):\s*(.*)$/.exec((lines[j] ?? '').trim());
      if (h) headers.push([h[1]!, h[2]!]);
    }
    const body = lines
      .slice(j + 1)
      .join('\n')
      .trim();
    requests.push({ title, name, expect: expected, method: method ?? 'GET', url: url ?? '', headers, body });
  });
  return { variables, requests };
}

/** Resolves `{{var}}` and `{{request.response.body.$.path}}` (repeatedly: variables refer to variables). */
function substitute(text: string, variables: Map<string, string>, responses: Map<string, unknown>): string {
  let out = text;
  for (let round = 0; round < 5 && out.includes('{{'); round++) {
    out = out.replace(/\{\{([^}]+)\}\}/g, (whole, ref: string) => {
      // REST Client's dynamic variable: a new GUID at each use.
      if (ref.trim() === '$guid') return randomUUID();
      const response = /^(\w+)\.response\.body\.\$\.(.+)$/.exec(ref.trim());
      if (response) {
        let v: unknown = responses.get(response[1]!);
        for (const key of response[2]!.split('.')) v = (v as Record<string, unknown> | undefined)?.[key];
        if (typeof v !== 'string') throw new Error(`${ref} is not in an earlier response`);
        return v;
      }
      return variables.get(ref.trim()) ?? whole;
    });
  }
  if (out.includes('{{')) throw new Error(`unresolved variable in: ${out.slice(0, 120)}`);
  return out;
}

describe('examples/', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('people.csv has every column the import client reads, and imports and associates through the client', async () => {
    const header = fs.readFileSync(path.join(EXAMPLES, 'people.csv'), 'utf8').split('\n')[0]!.split(',');
    expect(header.sort()).toEqual(
      [
        'externalId',
        'affiliationType',
        'firstName',
        'lastName',
        'birthDate',
        'nationality',
        'personalEmail',
        'personalPhone',
        'cpr',
        'passportNumber',
        'passportCountry',
        'userPrincipalName',
      ].sort(),
    );
    const result = await runImport({
      service: stack.base,
      source: 'ExampleCsv',
      file: path.join(EXAMPLES, 'people.csv'),
      tenant: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      secret: DEV_CLIENTS.admin.secret,
      authority: stack.idp.url,
      scope: SERVICE_SCOPE,
      progress: () => undefined,
    });
    expect(result.import).toEqual({ created: 4, updated: 0, deleted: 0, unchanged: 0 });
    expect(result.associate).toEqual({
      associated: 2,
      unchanged: 0,
      unknownExternalIds: 0,
      unknownUserPrincipalNames: 1,
      conflictingUserPrincipalNames: 0,
    });
    expect(result.notAssociated).toEqual([
      {
        line: 4,
        externalId: 'HR-0003',
        userPrincipalName: 'nobody@dev.example.com',
        reason: 'unknown userPrincipalName',
      },
    ]);
  });

  it('requests.http creates a User with every writable attribute of the service extension, and uses ports as variables', () => {
    const { requests } = parseHttpFile(fs.readFileSync(path.join(EXAMPLES, 'requests.http'), 'utf8'));
    const create = requests.find((r) => r.name === 'created');
    const ext =
      (JSON.parse(create?.body ?? '{}') as Record<string, Record<string, unknown>>)[SERVICE_USER_SCHEMA] ?? {};
    const writable = SERVICE_ATTRIBUTES.filter((a) => a.mutability !== 'readOnly').map((a) => a.name);
    expect(Object.keys(ext).sort()).toEqual(writable.sort());
    for (const r of requests) expect(r.url).not.toMatch(/:\d{2,5}\b/);
  });

  it('requests.http: every request answers its documented status (never 5xx), GraphQL without errors, run after run', async () => {
    const { variables, requests } = parseHttpFile(fs.readFileSync(path.join(EXAMPLES, 'requests.http'), 'utf8'));
    expect(variables.get('hostPort')).toBe('7071');
    expect(variables.get('idpPort')).toBe('7072');
    variables.set('hostPort', new URL(stack.base).port);
    variables.set('idpPort', new URL(stack.idp.url).port);
    expect(requests.length).toBeGreaterThanOrEqual(20);
    // Twice against the same stack, as a developer runs the file again against `npm start`.
    for (const round of [1, 2]) {
      const responses = new Map<string, unknown>();
      const answered: string[] = [];
      let invalid: { scimType?: string; detail?: string } | undefined;
      for (const r of requests) {
        expect({ title: r.title, expect: r.expect }).toEqual({ title: r.title, expect: expect.any(Number) });
        const res = await fetch(substitute(r.url, variables, responses), {
          method: r.method,
          headers: r.headers.map(([k, v]) => [k, substitute(v, variables, responses)] as [string, string]),
          ...(r.body ? { body: substitute(r.body, variables, responses) } : {}),
        });
        const text = await res.text();
        const body: unknown = text ? JSON.parse(text) : undefined;
        answered.push(`${r.title}: ${res.status}`);
        expect(res.status).toBeLessThan(500);
        expect(`round ${round}, ${r.title}: ${res.status}`).toBe(`round ${round}, ${r.title}: ${r.expect}`);
        if (r.url.endsWith('/graphql'))
          expect({ round, title: r.title, errors: (body as { errors?: unknown }).errors }).toEqual({
            round,
            title: r.title,
            errors: undefined,
          });
        if (r.name) responses.set(r.name, body);
        if (r.title.startsWith('An invalid User')) invalid = body as { scimType?: string; detail?: string };
      }
      // The invalid User's answer lists each problem by attribute name, never the values sent.
      expect(answered).toContain('An invalid User: every problem in one answer (attribute names, never values): 400');
      expect(invalid?.scimType).toBe('invalidValue');
      expect(invalid?.detail).toMatch(/^The User has 3 problems: .*affiliationType.*birthDate.*personalPhone/);
      for (const value of ['volunteer', '31-12-1990', '12 34 56 78']) expect(invalid?.detail).not.toContain(value);
    }
  });
});
