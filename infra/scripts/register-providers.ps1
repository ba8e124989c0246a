# azd preprovision hook (Windows, pwsh): registers the resource providers the template deploys to, so the
# first `azd provision` succeeds on a subscription that never used them (an ARM deployment does not register
# them; the portal and the Azure CLI do). Same list as register-providers.sh; tests/unit/infra checks both.
# Idempotent. Needs the Azure CLI signed in with a role that may register providers (Contributor or Owner).
$ErrorActionPreference = 'Stop'
$providers = @('Microsoft.App', 'Microsoft.Cdn', 'Microsoft.DocumentDB', 'Microsoft.Insights', 'Microsoft.KeyVault', 'Microsoft.ManagedIdentity', 'Microsoft.Network', 'Microsoft.OperationalInsights', 'Microsoft.Storage', 'Microsoft.Web')
$subscription = @()
if ($env:AZURE_SUBSCRIPTION_ID) { $subscription = @('--subscription', $env:AZURE_SUBSCRIPTION_ID) }
foreach ($namespace in $providers) {
  $state = az provider show --namespace $namespace @subscription --query registrationState -o tsv 2>$null
  if ($LASTEXITCODE -ne 0 -or -not $state) { $state = 'NotRegistered' }
  if ($state -eq 'Registered') { continue }
  Write-Host "Registering resource provider $namespace (state: $state)..."
  az provider register --namespace $namespace @subscription --wait
  if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
}
