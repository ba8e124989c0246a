/*
 * Reference client for a scheduled custom integration:
 *   npm run import -- --service https://<app> --source HR --file people.csv --tenant <tenantId> \
 *     --client-id <appId> --client-secret-env HR_IMPORT_SECRET [--authority https://login.microsoftonline.com] [--scope api://business-identity-service/.default]
 *     [--association-chunk 10000]
 * Gets a token, imports the complete set, then associates the rows that carry a userPrincipalName
 * (in parts of --association-chunk pairs),
 * prints the counts, and exits non-zero on any error. CSV files are read line by line.
 */
import fs from 'node:fs';
import readline from 'node:readline';

interface Row {
  externalId: string;
  affiliationType: string;
  firstName: string;
  lastName: string;
  birthDate?: string;
  nationality?: string;
  personalEmail?: string;
  personalPhone?: string;
  personalNumbers?: Array<{ type: string; value: string }>;
  identityDocumentReferences?: Array<{ type: string; issuingCountry: string; documentNumber: string }>;
  userPrincipalName?: string;
}

function args(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    out[a.slice(2)] = argv[++i] ?? '';
  }
  return out;
}

/** Splits one CSV line (RFC 4180 quoting). */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** CSV columns: externalId, affiliationType, firstName, lastName, birthDate, nationality, personalEmail, personalPhone, cpr, passportNumber, passportCountry, userPrincipalName. */
async function readCsv(file: string): Promise<Row[]> {
  const rl = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let header: string[] | undefined;
  const rows: Row[] = [];
  for await (const line of rl) {
    if (!line.trim()) continue;
    const fields = csvFields(line);
    if (!header) {
      header = fields.map((h) => h.trim());
      continue;
    }
    const get = (name: string) => {
      const v = fields[header?.indexOf(name) ?? -1]?.trim();
      return v ? v : undefined;
    };
    const row: Row = { externalId: get('externalId') ?? '', affiliationType: (get('affiliationType') ?? '').toUpperCase(), firstName: get('firstName') ?? '', lastName: get('lastName') ?? '' };
    for (const k of ['birthDate', 'nationality', 'personalEmail', 'personalPhone', 'userPrincipalName'] as const) {
      const v = get(k);
      if (v) row[k] = v;
    }
    const cpr = get('cpr');
    if (cpr) row.personalNumbers = [{ type: 'DK_CPR', value: cpr }];
    const passport = get('passportNumber');
    if (passport) row.identityDocumentReferences = [{ type: 'PASSPORT', issuingCountry: get('passportCountry') ?? '', documentNumber: passport }];
    rows.push(row);
    if (rows.length % 50_000 === 0) process.stderr.write(`read ${rows.length} rows\n`);
  }
  return rows;
}

async function token(authority: string, tenant: string, clientId: string, secret: string, scope: string): Promise<string> {
  const res = await fetch(`${authority}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope }).toString(),
  });
  if (!res.ok) throw new Error(`token request failed (HTTP ${res.status})`);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function graphql(service: string, accessToken: string, query: string, variables: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${service}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: { code?: string; problems?: Array<{ field: string; problem: string }> } }> };
  if (body.errors?.length) {
    const first = body.errors[0];
    const problems = (first?.extensions?.problems ?? []).slice(0, 20).map((p) => `  ${p.field}: ${p.problem}`);
    throw new Error([`${first?.extensions?.code ?? 'ERROR'}: ${first?.message}`, ...problems].join('\n'));
  }
  return body.data ?? {};
}

async function main(): Promise<void> {
  const a = args(process.argv.slice(2));
  for (const required of ['service', 'source', 'file', 'tenant', 'client-id', 'client-secret-env']) if (!a[required]) throw new Error(`--${required} is required`);
  const secret = process.env[a['client-secret-env'] ?? ''];
  if (!secret) throw new Error(`the environment variable named by --client-secret-env is not set`);
  const result = await runImport({
    service: a.service ?? '',
    source: a.source ?? '',
    file: a.file ?? '',
    tenant: a.tenant ?? '',
    clientId: a['client-id'] ?? '',
    secret,
    authority: a.authority ?? 'https://login.microsoftonline.com',
    scope: a.scope ?? 'api://business-identity-service/.default',
    associationChunk: a['association-chunk'] ? Number(a['association-chunk']) : undefined,
  });
  console.log('import', JSON.stringify(result.import));
  if (result.associate) console.log('associate', JSON.stringify(result.associate));
}

export interface ImportRun {
  service: string;
  source: string;
  file: string;
  tenant: string;
  clientId: string;
  secret: string;
  authority: string;
  scope: string;
  /** Pairs per associateBusinessIdentities call (default 10,000). */
  associationChunk?: number;
}

export const DEFAULT_ASSOCIATION_CHUNK = 10_000;

export async function runImport(o: ImportRun): Promise<{ import: unknown; associate?: Record<string, number> }> {
  const a = { source: o.source };
  const secret = o.secret;
  const file = o.file;
  const rows: Row[] = file.endsWith('.csv') ? await readCsv(file) : (JSON.parse(await fs.promises.readFile(file, 'utf8')) as Row[]);
  process.stderr.write(`read ${rows.length} identities from ${file}\n`);
  const accessToken = await token(o.authority, o.tenant, o.clientId, secret, o.scope);
  const service = o.service.replace(/\/+$/, '');
  const identities = rows.map(({ userPrincipalName: _upn, ...identity }) => identity);
  const imported = await graphql(service, accessToken, 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged } }', { i: { source: a.source, identities } });
  const associations = rows.filter((r) => r.userPrincipalName).map((r) => ({ externalId: r.externalId, userPrincipalName: r.userPrincipalName }));
  if (associations.length > 0) {
    // In parts: each pair is processed on its own, and a part stays well inside the HTTP time limit
    // and the service's ASSOCIATION_MAX_PAIRS.
    const part = o.associationChunk ?? DEFAULT_ASSOCIATION_CHUNK;
    const totals = { associated: 0, unchanged: 0, unknownExternalIds: 0, unknownUserPrincipalNames: 0, conflictingUserPrincipalNames: 0 };
    const count = (v: unknown[] | number | undefined) => (Array.isArray(v) ? v.length : (v ?? 0));
    for (let i = 0; i < associations.length; i += part) {
      const associated = await graphql(service, accessToken, 'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated unchanged unknownExternalIds unknownUserPrincipalNames conflictingUserPrincipalNames } }', { i: { source: a.source, associations: associations.slice(i, i + part) } });
      const r = associated.associateBusinessIdentities as Record<keyof typeof totals, unknown[] | number>;
      for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += count(r[k]);
    }
    return { import: imported.importBusinessIdentities, associate: totals };
  }
  return { import: imported.importBusinessIdentities };
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : 'failed');
    process.exit(1);
  });
}
