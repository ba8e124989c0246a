// Optional edge (frontDoorSku != 'None'): an Azure Front Door Standard or Premium profile in front of the
// Function App, with a WAF policy attached to its endpoint:
// - a rate-limit rule per client address (the socket address Front Door sees): one address sending more than
//   rateLimitPerMinute requests in a minute is blocked for the rest of it, before any request reaches the app;
// - Premium only: Microsoft's managed rule sets (Default Rule Set 2.1 and the Bot Manager rule set), which
//   Azure offers on Premium and not on Standard.
// The app accepts only this profile (functionapp.bicep: service tag AzureFrontDoor.Backend and the profile's
// id in X-Azure-FDID). Nothing is cached: every request goes to the app (SCIM and GraphQL answers are
// per caller). Cost per month in docs/operations.md, "What it costs".
param tags object
@allowed([
  'Standard_AzureFrontDoor'
  'Premium_AzureFrontDoor'
])
param sku string
param profileName string
param endpointName string
@description('WAF policy name: letters and digits only, starting with a letter.')
param wafPolicyName string
@description('The app\'s default host name (<name>.azurewebsites.net).')
param originHostName string
param rateLimitPerMinute int

// Microsoft's managed rule sets: Premium only. Body inspection is on; SCIM and GraphQL bodies are JSON.
var managedRuleSets = sku == 'Premium_AzureFrontDoor' ? [
  { ruleSetType: 'Microsoft_DefaultRuleSet', ruleSetVersion: '2.1', ruleSetAction: 'Block' }
  { ruleSetType: 'Microsoft_BotManagerRuleSet', ruleSetVersion: '1.1', ruleSetAction: 'Block' }
] : []

resource profile 'Microsoft.Cdn/profiles@2024-09-01' = {
  name: profileName
  location: 'global'
  tags: tags
  sku: {
    name: sku
  }
  properties: {
    originResponseTimeoutSeconds: 240
  }
}

resource endpoint 'Microsoft.Cdn/profiles/afdEndpoints@2024-09-01' = {
  parent: profile
  name: endpointName
  location: 'global'
  tags: tags
  properties: {
    enabledState: 'Enabled'
  }
}

resource originGroup 'Microsoft.Cdn/profiles/originGroups@2024-09-01' = {
  parent: profile
  name: 'function-app'
  properties: {
    loadBalancingSettings: {
      sampleSize: 4
      successfulSamplesRequired: 3
      additionalLatencyInMilliseconds: 50
    }
    // The service's own health endpoint (functions/health.ts), anonymous and cheap.
    healthProbeSettings: {
      probePath: '/health'
      probeRequestType: 'GET'
      probeProtocol: 'Https'
      probeIntervalInSeconds: 100
    }
  }
}

resource origin 'Microsoft.Cdn/profiles/originGroups/origins@2024-09-01' = {
  parent: originGroup
  name: 'function-app'
  properties: {
    hostName: originHostName
    originHostHeader: originHostName
    httpPort: 80
    httpsPort: 443
    priority: 1
    weight: 1000
    enabledState: 'Enabled'
    enforceCertificateNameCheck: true
  }
}

resource route 'Microsoft.Cdn/profiles/afdEndpoints/routes@2024-09-01' = {
  parent: endpoint
  name: 'all'
  properties: {
    originGroup: {
      id: originGroup.id
    }
    supportedProtocols: [
      'Https'
    ]
    patternsToMatch: [
      '/*'
    ]
    forwardingProtocol: 'HttpsOnly'
    linkToDefaultDomain: 'Enabled'
    httpsRedirect: 'Disabled'
    enabledState: 'Enabled'
  }
  dependsOn: [
    origin
  ]
}

resource wafPolicy 'Microsoft.Network/FrontDoorWebApplicationFirewallPolicies@2024-02-01' = {
  name: wafPolicyName
  location: 'global'
  tags: tags
  sku: {
    name: sku
  }
  properties: {
    policySettings: {
      enabledState: 'Enabled'
      mode: 'Prevention'
      requestBodyCheck: 'Enabled'
    }
    customRules: {
      rules: [
        {
          name: 'RateLimitPerClientAddress'
          priority: 100
          enabledState: 'Enabled'
          ruleType: 'RateLimitRule'
          rateLimitDurationInMinutes: 1
          rateLimitThreshold: rateLimitPerMinute
          groupBy: [
            { variableName: 'SocketAddr' }
          ]
          // Every request: a rate-limit rule needs a condition, and no address is 255.255.255.255.
          matchConditions: [
            {
              matchVariable: 'SocketAddr'
              operator: 'IPMatch'
              negateCondition: true
              matchValue: [
                '255.255.255.255/32'
              ]
            }
          ]
          action: 'Block'
        }
      ]
    }
    managedRules: {
      managedRuleSets: managedRuleSets
    }
  }
}

resource securityPolicy 'Microsoft.Cdn/profiles/securityPolicies@2024-09-01' = {
  parent: profile
  name: 'waf'
  properties: {
    parameters: {
      type: 'WebApplicationFirewall'
      wafPolicy: {
        id: wafPolicy.id
      }
      associations: [
        {
          domains: [
            { id: endpoint.id }
          ]
          patternsToMatch: [
            '/*'
          ]
        }
      ]
    }
  }
}

// The value Front Door sends in X-Azure-FDID; the app admits only requests that carry it.
output frontDoorId string = profile.properties.frontDoorId
output hostName string = endpoint.properties.hostName
