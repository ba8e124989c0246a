# azd postprovision hook (Windows, pwsh): with OPERATOR_COSMOS_DATA_ROLE=false, removes the operator's standing
# Cosmos DB data role assignments (AZURE_PRINCIPAL_ID on the account); a deployment never deletes what an
# earlier one made. Same as operator-data-role.sh.
$ErrorActionPreference = 'Stop'
if ($env:OPERATOR_COSMOS_DATA_ROLE -ne 'false' -or -not $env:AZURE_PRINCIPAL_ID) { exit 0 }
$names = az cosmosdb sql role assignment list --account-name $env:COSMOS_ACCOUNT_NAME --resource-group $env:AZURE_RESOURCE_GROUP `
  --query "[?principalId=='$($env:AZURE_PRINCIPAL_ID)'].name" -o tsv
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
foreach ($name in ($names -split "`n" | Where-Object { $_ })) {
  Write-Host "Removing the operator's standing Cosmos DB data role assignment $name..."
  az cosmosdb sql role assignment delete --account-name $env:COSMOS_ACCOUNT_NAME --resource-group $env:AZURE_RESOURCE_GROUP `
    --role-assignment-id $name --yes
  if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
}
