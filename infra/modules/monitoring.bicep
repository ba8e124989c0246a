// Log Analytics workspace and workspace-based Application Insights. Local (instrumentation key)
// authentication is off: the app sends telemetry with its managed identity.
param location string
param tags object
param logAnalyticsName string
param applicationInsightsName string
@description('Daily ingestion cap in GB (finite: the log bill has a ceiling; diagnostics.bicep alerts when it is reached).')
param dailyCapGb int

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: 30
    // When the cap is reached, ingestion stops until the workspace's reset hour (and with it the log alerts; the
    // background alerts read metrics). Workspace-based Application Insights has no cap of its own here, so
    // this one is the effective cap.
    workspaceCapping: {
      dailyQuotaGb: dailyCapGb
    }
  }
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: applicationInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
    DisableLocalAuth: true
  }
}

output applicationInsightsName string = applicationInsights.name
output applicationInsightsId string = applicationInsights.id
output logAnalyticsName string = logAnalytics.name
