#!/usr/bin/env bash
# Creates (or brings up to date) the service's multi-tenant Entra application in the operator's tenant:
#   - sign-in audience AzureADMultipleOrgs, App ID URI (the token audience), v2.0 access tokens
#   - the optional claim idtyp in access tokens, user tokens included (include_user_token): the service tells
#     application tokens from user tokens by it, and refuses a token without it in production
#   - app role Admin (allowedMemberTypes Application and User, value Admin)
#   - Microsoft Graph application permission User.Read.All (consented by each customer's administrator)
#   - federated identity credential trusting the deployment's user-assigned Graph identity (created by the
#     template, attached to the Function App), so the service gets Graph tokens in customer tenants with no
#     secret or certificate (GRAPH_CREDENTIAL=managedIdentity). The identity outlives the Function App, so
#     re-creating the app needs no new run of this script.
#   - the administrator console: delegated scope Console.Admin, the SPA redirect URI <console url>/console/
#     (authorization code + PKCE; the console's client id is this application's), and optionally the Admin
#     role assigned to a first administrator (user)
#   - optionally a certificate credential (GRAPH_CREDENTIAL=certificate) and a web redirect URI
# Safe to run again: it finds the application (by --app-id, the azd environment's GRAPH_CLIENT_ID, its App ID
# URI or its display name) before it creates one, and updates it; the Admin role keeps its id. When the
# tenant refuses the default App ID URI api://<tenant id>/business-identity-service, it uses api://<appId>.
# Needs: Azure CLI signed in (`az login`) to the operator's tenant as a user allowed to register applications.
# See infra/entra-app.md.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: infra/scripts/create-entra-app.sh [options]
  --mi-principal-id <id>   object (principal) id of the user-assigned Graph identity
                           (default: `azd env get-value GRAPH_IDENTITY_PRINCIPAL_ID`)
  --app-id-uri <uri>       App ID URI (default: api://<operator tenant id>/business-identity-service, or
                           api://<appId> when the tenant refuses it; a multi-tenant app needs a
                           tenant-unique URI, see infra/entra-app.md)
  --app-id <appId>         the application to update (default: the azd environment's GRAPH_CLIENT_ID,
                           else the one with the App ID URI or, failing that, the display name)
  --name <display name>    (default: Business Identity Provisioning Service)
  --certificate <file>     also add this PEM/CER public certificate as a credential (certificate mode)
  --redirect-uri <url>     web redirect URI the admin-consent page returns to (e.g. the service URL)
  --console-url <url>      public base URL of the service; registers <url>/console/ as the console's SPA
                           redirect URI (default: the azd environment's PUBLIC_BASE_URL, else
                           FRONT_DOOR_ENDPOINT, else SERVICE_API_URI)
  --admin-user <upn>       assign the Admin app role to this user of the operator's tenant (console sign-in)
  --dry-run                print the az commands instead of running them
USAGE
}

GRAPH_APP_ID=00000003-0000-0000-c000-000000000000      # Microsoft Graph
USER_READ_ALL=df021288-bdef-4463-88db-98f22de89214     # User.Read.All (application permission)
FIC_NAME=function-app-managed-identity

name='Business Identity Provisioning Service'
app_id_uri=''
given_app_id=''
mi_principal=''
certificate=''
redirect_uri=''
console_url=''
admin_user=''
dry_run=false

while [ $# -gt 0 ]; do
  case "$1" in
    --mi-principal-id) mi_principal=${2:?}; shift 2 ;;
    --app-id-uri) app_id_uri=${2:?}; shift 2 ;;
    --app-id) given_app_id=${2:?}; shift 2 ;;
    --name) name=${2:?}; shift 2 ;;
    --certificate) certificate=${2:?}; shift 2 ;;
    --redirect-uri) redirect_uri=${2:?}; shift 2 ;;
    --console-url) console_url=${2:?}; shift 2 ;;
    --admin-user) admin_user=${2:?}; shift 2 ;;
    --dry-run) dry_run=true; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
done

# az, or its echo under --dry-run (which then answers queries with placeholders).
az_() {
  if $dry_run; then
    printf 'az' >&2; printf ' %q' "$@" >&2; printf '\n' >&2
    case " $* " in
      *" account show "*) echo '<operator-tenant-id>' ;;
      *" ad app list "*) : ;;
      *" ad app create "*) echo '<app-id>' ;;
      *"identifierUris"*) : ;;
      *"appRoles"*) : ;;
      *"oauth2PermissionScopes"*) : ;;
      *" ad user show "*) echo '<admin-user-object-id>' ;;
      *" ad app show "*) echo '<app-object-id>' ;;
      *" ad sp show "*) echo '<service-principal-id>' ;;
      *" GET "*"/federatedIdentityCredentials"*) echo '0' ;;
      *) : ;;
    esac
  else
    az "$@"
  fi
}

new_uuid() {
  if command -v uuidgen >/dev/null 2>&1; then uuidgen | tr '[:upper:]' '[:lower:]'
  elif [ -r /proc/sys/kernel/random/uuid ]; then cat /proc/sys/kernel/random/uuid
  else python3 -c 'import uuid; print(uuid.uuid4())'
  fi
}

if [ -z "$mi_principal" ] && command -v azd >/dev/null 2>&1; then
  mi_principal=$(azd env get-value GRAPH_IDENTITY_PRINCIPAL_ID 2>/dev/null || true)
fi
if [ -z "$mi_principal" ]; then
  if $dry_run; then mi_principal='<graph-identity-principal-id>'
  else echo 'The Graph identity is unknown: run `azd provision` first or pass --mi-principal-id.' >&2; exit 2
  fi
fi
# The address browsers reach: a custom domain, else the Front Door endpoint (the app's own host name answers
# 403 behind a Front Door), else the app's host name.
if [ -z "$console_url" ] && command -v azd >/dev/null 2>&1; then
  for name in PUBLIC_BASE_URL FRONT_DOOR_ENDPOINT SERVICE_API_URI; do
    [ -n "$console_url" ] || console_url=$(azd env get-value "$name" 2>/dev/null || true)
  done
fi
if [ -n "$certificate" ] && [ ! -r "$certificate" ] && ! $dry_run; then
  echo "Cannot read certificate file $certificate" >&2; exit 2
fi

tenant=$(az_ account show --query tenantId -o tsv)
# The application must live in the tenant the deployment trusts (azd's AZURE_TENANT_ID, the issuer of the
# federated credential and of the Graph identity): `az login` may be signed in to another one.
azd_tenant=''
if command -v azd >/dev/null 2>&1; then
  azd_tenant=$(azd env get-value AZURE_TENANT_ID 2>/dev/null || true)
fi
if [ -n "$azd_tenant" ] && [ "$azd_tenant" != "$tenant" ] && ! $dry_run; then
  echo "The Azure CLI is signed in to tenant $tenant, but the azd environment deploys to tenant $azd_tenant." >&2
  echo "Sign in to the deployment's tenant first: az login --tenant $azd_tenant" >&2
  exit 2
fi
uri_given=false
if [ -n "$app_id_uri" ]; then uri_given=true; else app_id_uri="api://$tenant/business-identity-service"; fi
if [ "$app_id_uri" = 'api://business-identity-service' ]; then
  echo 'api://business-identity-service is the local stack audience; any application can claim it. Use a tenant-unique App ID URI.' >&2; exit 2
fi

# 1. The application, looked up before one is created: a re-run (also after the tenant refused the App ID
#    URI, when the application has none) updates it instead of registering a second one.
app_id=$given_app_id
if [ -z "$app_id" ] && command -v azd >/dev/null 2>&1; then
  known=$(azd env get-value GRAPH_CLIENT_ID 2>/dev/null || true)
  if [ -n "$known" ] && [ -n "$(az_ ad app show --id "$known" --query appId -o tsv 2>/dev/null || true)" ]; then
    app_id=$known
  fi
fi
[ -n "$app_id" ] || app_id=$(az_ ad app list --identifier-uri "$app_id_uri" --query '[0].appId' -o tsv)
if [ -z "$app_id" ]; then
  named=$(az_ ad app list --display-name "$name" --query "[?displayName=='$name'].appId" -o tsv)
  if [ "$(printf '%s\n' "$named" | grep -c .)" -gt 1 ]; then
    echo "Several applications are named '$name': pass --app-id <appId> of the one to update." >&2
    exit 2
  fi
  app_id=$named
fi
if [ -z "$app_id" ]; then
  app_id=$(az_ ad app create --display-name "$name" --sign-in-audience AzureADMultipleOrgs --query appId -o tsv)
  echo "Created application $app_id" >&2
else
  echo "Updating application $app_id" >&2
fi
object_id=$(az_ ad app show --id "$app_id" --query id -o tsv)

# 1b. The App ID URI: an explicit --app-id-uri is set (or the run stops when the tenant refuses it); otherwise
#     the application keeps the URI it has, and one without gets the default, or api://<appId> when the
#     tenant's identifier-URI policy refuses api://<tenant id>/… (api://<appId> is always accepted).
current_uri=$(az_ ad app show --id "$app_id" --query 'identifierUris[0]' -o tsv)
if $uri_given; then
  if [ "$current_uri" != "$app_id_uri" ] && ! az_ ad app update --id "$app_id" --identifier-uris "$app_id_uri"; then
    echo "The tenant refused the App ID URI $app_id_uri; run again without --app-id-uri to use api://$app_id." >&2
    exit 2
  fi
elif [ -n "$current_uri" ]; then
  app_id_uri=$current_uri
elif ! az_ ad app update --id "$app_id" --identifier-uris "$app_id_uri"; then
  echo "The tenant refused the App ID URI $app_id_uri; using api://$app_id instead." >&2
  app_id_uri="api://$app_id"
  az_ ad app update --id "$app_id" --identifier-uris "$app_id_uri"
fi

# 2. The Admin app role; an existing role keeps its id (assignments refer to it).
role_id=$(az_ ad app show --id "$app_id" --query "appRoles[?value=='Admin'].id | [0]" -o tsv)
[ -n "$role_id" ] || role_id=$(new_uuid)
az_ ad app update --id "$app_id" --app-roles "[{\"allowedMemberTypes\":[\"Application\",\"User\"],\"description\":\"Administrator of the Business Identity Provisioning Service: GraphQL API, SCIM integrations, imports and links of the tenant.\",\"displayName\":\"Admin\",\"isEnabled\":true,\"value\":\"Admin\",\"id\":\"$role_id\"}]"

# 3. Microsoft Graph User.Read.All (application permission). Each customer's admin consents in their tenant.
az_ ad app update --id "$app_id" --required-resource-accesses "[{\"resourceAppId\":\"$GRAPH_APP_ID\",\"resourceAccess\":[{\"id\":\"$USER_READ_ALL\",\"type\":\"Role\"}]}]"

# 4. v2.0 access tokens (issuer https://login.microsoftonline.com/<tid>/v2.0, audience = the client id,
#    the only audience the service accepts in Azure, through SERVICE_CLIENT_ID); optional redirect URI for the admin-consent page.
az_ rest --method PATCH --uri "https://graph.microsoft.com/v1.0/applications/$object_id" \
  --headers Content-Type=application/json --body '{"api":{"requestedAccessTokenVersion":2}}'
if [ -n "$redirect_uri" ]; then
  az_ ad app update --id "$app_id" --web-redirect-uris "$redirect_uri"
fi

# 4a. The idtyp optional claim in access tokens, for user tokens too (include_user_token; without it Entra
#     puts idtyp in app-only tokens only). The service decides app or user by it, and in production refuses
#     a token without it. This sets the application's whole optionalClaims: the service asks for no other.
az_ rest --method PATCH --uri "https://graph.microsoft.com/v1.0/applications/$object_id" \
  --headers Content-Type=application/json \
  --body '{"optionalClaims":{"accessToken":[{"name":"idtyp","source":null,"essential":false,"additionalProperties":["include_user_token"]}]}}'

# 4b. The administrator console: the delegated scope Console.Admin (an existing scope keeps its id), and the
#     console's SPA redirect URI (a public client: authorization code with PKCE, no secret).
scope_id=$(az_ ad app show --id "$app_id" --query "api.oauth2PermissionScopes[?value=='Console.Admin'].id | [0]" -o tsv)
[ -n "$scope_id" ] || scope_id=$(new_uuid)
az_ rest --method PATCH --uri "https://graph.microsoft.com/v1.0/applications/$object_id" \
  --headers Content-Type=application/json \
  --body "{\"api\":{\"requestedAccessTokenVersion\":2,\"oauth2PermissionScopes\":[{\"id\":\"$scope_id\",\"value\":\"Console.Admin\",\"type\":\"Admin\",\"isEnabled\":true,\"adminConsentDisplayName\":\"Administer business identities (console)\",\"adminConsentDescription\":\"Lets the administrator console call the service as the signed-in user; the user also needs the Admin app role.\",\"userConsentDisplayName\":\"Administer business identities (console)\",\"userConsentDescription\":\"Use the administrator console as you.\"}]}}"
if [ -n "$console_url" ]; then
  az_ rest --method PATCH --uri "https://graph.microsoft.com/v1.0/applications/$object_id" \
    --headers Content-Type=application/json --body "{\"spa\":{\"redirectUris\":[\"${console_url%/}/console/\"]}}"
fi

# 5. Federated identity credential: the user-assigned Graph identity may act as this application.
fic_body="{\"name\":\"$FIC_NAME\",\"issuer\":\"https://login.microsoftonline.com/$tenant/v2.0\",\"subject\":\"$mi_principal\",\"audiences\":[\"api://AzureADTokenExchange\"],\"description\":\"User-assigned Graph identity of the deployment\"}"
fic_uri="https://graph.microsoft.com/v1.0/applications/$object_id/federatedIdentityCredentials"
existing=$(az_ rest --method GET --uri "$fic_uri" --query "length(value[?name=='$FIC_NAME'])" -o tsv)
if [ "${existing:-0}" = "0" ]; then
  az_ rest --method POST --uri "$fic_uri" --headers Content-Type=application/json --body "$fic_body"
else
  # name cannot change; issuer, subject and audiences can.
  az_ rest --method PATCH --uri "$fic_uri/$FIC_NAME" --headers Content-Type=application/json \
    --body "{\"issuer\":\"https://login.microsoftonline.com/$tenant/v2.0\",\"subject\":\"$mi_principal\",\"audiences\":[\"api://AzureADTokenExchange\"]}"
fi

# 6. Optional certificate credential (public part only; the private key stays in Key Vault).
if [ -n "$certificate" ]; then
  az_ ad app credential reset --id "$app_id" --cert "@$certificate" --append >/dev/null
fi

# 7. The service principal in the operator's tenant (customers get theirs through consent).
sp_id=$(az_ ad sp show --id "$app_id" --query id -o tsv 2>/dev/null || true)
if [ -z "$sp_id" ]; then
  sp_id=$(az_ ad sp create --id "$app_id" --query id -o tsv)
fi

# 8. Optional: the Admin app role for a first console administrator (a user of the operator's tenant).
if [ -n "$admin_user" ]; then
  user_id=$(az_ ad user show --id "$admin_user" --query id -o tsv)
  az_ rest --method POST --uri "https://graph.microsoft.com/v1.0/servicePrincipals/$sp_id/appRoleAssignedTo" \
    --headers Content-Type=application/json \
    --body "{\"principalId\":\"$user_id\",\"resourceId\":\"$sp_id\",\"appRoleId\":\"$role_id\"}" >/dev/null || \
    echo "The Admin role may already be assigned to $admin_user" >&2
fi

cat <<EOF

Service application ready.
  appId (GRAPH_CLIENT_ID, SERVICE_CLIENT_ID): $app_id
  App ID URI (scope <App ID URI>/.default):   $app_id_uri
  Admin app role id:                          $role_id
  federated credential subject:               $mi_principal

  console scope:                              $app_id_uri/Console.Admin (id $scope_id)
  console redirect URI:                       ${console_url:-<none: pass --console-url>}${console_url:+/console/}

Point the deployment at it:
  azd env set GRAPH_CLIENT_ID $app_id
  azd env set CONSOLE_CLIENT_ID $app_id
  azd provision
(SERVICE_APP_ID_URI stays empty: v2.0 tokens carry the appId as audience, whichever scope was asked for.)

A customer's administrator consents (User.Read.All) by opening:
  https://login.microsoftonline.com/<customerTenantId>/adminconsent?client_id=$app_id
EOF
