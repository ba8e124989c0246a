#!/bin/sh
# azd postprovision hook (posix): with OPERATOR_COSMOS_DATA_ROLE=false, removes the operator's standing Cosmos DB
# data role assignments (AZURE_PRINCIPAL_ID on the account). The template only stops creating the assignment:
# a deployment never deletes what an earlier one made, so turning the parameter off would otherwise leave it.
# Operators then get the role just in time (docs/operations.md, "Operator access"). Needs the Azure CLI signed in.
set -eu
if [ "${OPERATOR_COSMOS_DATA_ROLE:-true}" != "false" ] || [ -z "${AZURE_PRINCIPAL_ID:-}" ]; then
  exit 0
fi
names=$(az cosmosdb sql role assignment list --account-name "$COSMOS_ACCOUNT_NAME" --resource-group "$AZURE_RESOURCE_GROUP" \
  --query "[?principalId=='$AZURE_PRINCIPAL_ID'].name" -o tsv)
for name in $names; do
  echo "Removing the operator's standing Cosmos DB data role assignment $name..."
  az cosmosdb sql role assignment delete --account-name "$COSMOS_ACCOUNT_NAME" --resource-group "$AZURE_RESOURCE_GROUP" \
    --role-assignment-id "$name" --yes
done
