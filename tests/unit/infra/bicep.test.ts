import { SETTING_NAMES } from '../../../lib/config/settings';
import { CONTAINERS } from '../../../lib/store/containers';
import { allBicep, missingSettings, outputs, readInfra } from './bicepText';

describe('infrastructure template', () => {
  const bicep = allBicep();
  const functionApp = readInfra('modules/functionapp.bicep');

  it('sets every app setting the code reads on the Function App', () => {
    expect(missingSettings(functionApp, SETTING_NAMES)).toEqual([]);
  });

  it('the setting check fails for a missing setting (negative cases)', () => {
    expect(missingSettings(functionApp, [...SETTING_NAMES, 'NOT_A_SETTING_XYZ'])).toEqual(['NOT_A_SETTING_XYZ']);
    const withoutCosmos = functionApp.replace(/^.*name: 'COSMOS_ENDPOINT'.*$/m, '');
    expect(missingSettings(withoutCosmos, SETTING_NAMES)).toEqual(['COSMOS_ENDPOINT']);
  });

  it('creates exactly the containers of the code, with their keys and indexing', () => {
    expect(JSON.parse(readInfra('cosmos-containers.json'))).toEqual(JSON.parse(JSON.stringify(Object.values(CONTAINERS))));
    expect(readInfra('modules/cosmos.bicep')).toContain("loadJsonContent('../cosmos-containers.json')");
  });

  it('uses identity-based access only: no local auth, no shared keys, RBAC Key Vault, no keys fetched', () => {
    expect(readInfra('modules/cosmos.bicep')).toMatch(/disableLocalAuth:\s*true/);
    expect(readInfra('modules/storage.bicep')).toMatch(/allowSharedKeyAccess:\s*false/);
    expect(readInfra('modules/keyvault.bicep')).toMatch(/enableRbacAuthorization:\s*true/);
    expect(readInfra('modules/monitoring.bicep')).toMatch(/DisableLocalAuth:\s*true/);
    expect(bicep).not.toMatch(/listKeys\(|listConnectionStrings\(|primaryMasterKey|AccountKey=/);
    expect(readInfra('modules/roles.bicep')).toContain('00000000-0000-0000-0000-000000000002');
  });

  it('runs on Flex Consumption with Node.js 22 and a system-assigned identity', () => {
    expect(functionApp).toMatch(/tier:\s*'FlexConsumption'/);
    expect(functionApp).toMatch(/runtime:\s*\{\s*name:\s*'node',\s*version:\s*'22'\s*\}/);
    expect(functionApp).toMatch(/type:\s*'SystemAssigned'/);
    expect(functionApp).toMatch(/'azd-service-name': 'api'/);
  });

  it('has no secret in settings or outputs', () => {
    const names = outputs(bicep);
    expect(names).toContain('COSMOS_ENDPOINT');
    for (const name of names) expect(name).not.toMatch(/secret|password|connection_?string|(account|primary|master|access)_?key|_KEY$/i);
    expect(functionApp).toMatch(/name: 'GRAPH_CLIENT_SECRET', value: ''/);
    expect(functionApp).toMatch(/name: 'COSMOS_KEY', value: ''/);
  });
});
