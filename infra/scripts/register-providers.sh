#!/bin/sh
# azd preprovision hook (posix): registers the resource providers the template deploys to, so the first
# `azd provision` succeeds on a subscription that never used them. The portal and the Azure CLI register a
# provider on first use; an ARM (Bicep) deployment does not. Microsoft.App in particular: the app subnet of
# VNET_ENABLED=true is delegated to Microsoft.App/environments (Flex Consumption virtual network integration).
# Idempotent: a registered provider is left alone. Needs the Azure CLI signed in (`az login`) with a role that
# may register providers on the subscription (Contributor or Owner). tests/unit/infra checks the list against
# every resource type of infra/.
set -eu
PROVIDERS="Microsoft.App Microsoft.Cdn Microsoft.DocumentDB Microsoft.Insights Microsoft.KeyVault Microsoft.ManagedIdentity Microsoft.Network Microsoft.OperationalInsights Microsoft.Storage Microsoft.Web"
subscription="${AZURE_SUBSCRIPTION_ID:-}"
for namespace in $PROVIDERS; do
  if [ -n "$subscription" ]; then
    state=$(az provider show --namespace "$namespace" --subscription "$subscription" --query registrationState -o tsv 2>/dev/null || echo NotRegistered)
  else
    state=$(az provider show --namespace "$namespace" --query registrationState -o tsv 2>/dev/null || echo NotRegistered)
  fi
  if [ "$state" = "Registered" ]; then
    continue
  fi
  echo "Registering resource provider $namespace (state: $state)..."
  if [ -n "$subscription" ]; then
    az provider register --namespace "$namespace" --subscription "$subscription" --wait
  else
    az provider register --namespace "$namespace" --wait
  fi
done
