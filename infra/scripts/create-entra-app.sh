#!/usr/bin/env bash
# Creates the multi-tenant service application: App ID URI, Admin app role, Graph User.Read.All,
# and a federated credential for the Function App's managed identity.
# Usage: create-entra-app.sh <display-name> <function-app-principal-id> [app-id-uri]
set -euo pipefail
name=${1:?display name}
mi_principal=${2:?managed identity principal (object) id of the Function App}
app_id_uri=${3:-api://business-identity-service}
tenant=$(az account show --query tenantId -o tsv)
role_id=$(cat /proc/sys/kernel/random/uuid)

app_id=$(az ad app create --display-name "$name" --sign-in-audience AzureADMultipleOrgs \
  --identifier-uris "$app_id_uri" \
  --app-roles "[{\"allowedMemberTypes\":[\"Application\",\"User\"],\"description\":\"Full administrator access to the GraphQL API\",\"displayName\":\"Admin\",\"isEnabled\":true,\"value\":\"Admin\",\"id\":\"$role_id\"}]" \
  --required-resource-accesses '[{"resourceAppId":"00000003-0000-0000-c000-000000000000","resourceAccess":[{"id":"df021288-bdef-4463-88db-98f22de89214","type":"Role"}]}]' \
  --query appId -o tsv)
object_id=$(az ad app show --id "$app_id" --query id -o tsv)

az rest --method POST --uri "https://graph.microsoft.com/v1.0/applications/$object_id/federatedIdentityCredentials" \
  --body "{\"name\":\"function-app-managed-identity\",\"issuer\":\"https://login.microsoftonline.com/$tenant/v2.0\",\"subject\":\"$mi_principal\",\"audiences\":[\"api://AzureADTokenExchange\"]}"

az ad sp create --id "$app_id" >/dev/null
echo "Service application created: appId=$app_id"
echo "Set it for the deployment: azd env set GRAPH_CLIENT_ID $app_id && azd provision"
