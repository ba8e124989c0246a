// Diagnostic settings to the Log Analytics workspace and the alerts docs/operations.md recommends.
// Logs go to resource-specific tables (logAnalyticsDestinationType Dedicated): CDBDataPlaneRequests,
// AZKVAuditLogs, StorageQueueLogs. The alerts are log search rules over those tables and Application
// Insights; with alertEmail set they notify an action group, otherwise they show in Azure Monitor only.
param location string
param tags object
param logAnalyticsName string
param applicationInsightsName string
param storageAccountName string
param cosmosAccountName string
param keyVaultName string
param certificateMode bool
param actionGroupName string
param alertPrefix string
@description('Where alerts are sent (an e-mail address of the operations team); empty = no notification.')
param alertEmail string

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' existing = {
  name: logAnalyticsName
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' existing = {
  parent: storage
  name: 'default'
}

resource cosmos 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' existing = {
  name: cosmosAccountName
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

// Cosmos DB data plane: every request with its status code and request charge (429s among them).
resource cosmosDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: cosmos
  properties: {
    workspaceId: workspace.id
    logAnalyticsDestinationType: 'Dedicated'
    logs: [
      { category: 'DataPlaneRequests', enabled: true }
      { category: 'QueryRuntimeStatistics', enabled: true }
      { category: 'ControlPlaneRequests', enabled: true }
    ]
  }
}

// Key Vault audit: who read the Graph certificate, and when (certificate mode only; there is no vault otherwise).
resource vaultDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = if (certificateMode) {
  name: 'to-log-analytics'
  scope: vault
  properties: {
    workspaceId: workspace.id
    logAnalyticsDestinationType: 'Dedicated'
    logs: [
      { category: 'AuditEvent', enabled: true }
    ]
  }
}

// Storage queues: the background-work queue and its poison queue (moves to the poison queue are PutMessage there).
resource queueDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: queueService
  properties: {
    workspaceId: workspace.id
    logs: [
      { category: 'StorageRead', enabled: true }
      { category: 'StorageWrite', enabled: true }
      { category: 'StorageDelete', enabled: true }
    ]
    metrics: [
      { category: 'Transaction', enabled: true }
    ]
  }
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = if (!empty(alertEmail)) {
  name: actionGroupName
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'bips-ops'
    enabled: true
    emailReceivers: [
      { name: 'operations', emailAddress: alertEmail, useCommonAlertSchema: true }
    ]
  }
}

var actions = empty(alertEmail) ? {} : { actionGroups: [actionGroup.id] }

// name, severity (0 critical … 4 verbose), scope, query (alerts when it returns a row), window and frequency.
var alerts = [
  {
    name: 'poison-queue'
    description: 'A background unit failed 5 times and was moved to background-work-poison (docs/operations.md, Background-work queues).'
    severity: 1
    scope: workspace.id
    query: 'StorageQueueLogs | where OperationName == "PutMessage" and ObjectKey endswith "/background-work-poison" | summarize moved = count() | where moved > 0'
    window: 'PT15M'
    frequency: 'PT5M'
  }
  {
    name: 'http-5xx-rate'
    description: 'More than 1% of the requests of the last 5 minutes answered 5xx (at least 20 requests).'
    severity: 1
    scope: applicationInsights.id
    query: 'requests | summarize total = count(), failed = countif(toint(resultCode) >= 500) | where total >= 20 and failed * 100.0 / total > 1'
    window: 'PT5M'
    frequency: 'PT5M'
  }
  {
    name: 'cosmos-429-rate'
    description: 'More than 5% of the Cosmos DB requests of the last 15 minutes were throttled (429): raise the throughput (docs/operations.md).'
    severity: 2
    scope: workspace.id
    query: 'CDBDataPlaneRequests | summarize total = count(), throttled = countif(StatusCode == 429) | where total >= 100 and throttled * 100.0 / total > 5'
    window: 'PT15M'
    frequency: 'PT5M'
  }
  {
    name: 'background-oldest-message'
    description: 'A background unit waited more than 15 minutes on background-work before it was done (queuedMs of background work done|deferred).'
    severity: 2
    scope: applicationInsights.id
    query: 'traces | extend e = parse_json(message) | where tostring(e.message) in ("background work done", "background work deferred") | summarize oldestMs = max(todouble(e.queuedMs)) | where oldestMs > 900000'
    window: 'PT15M'
    frequency: 'PT5M'
  }
]

resource alertRules 'Microsoft.Insights/scheduledQueryRules@2022-06-15' = [
  for alert in alerts: {
    name: '${alertPrefix}-${alert.name}'
    location: location
    tags: tags
    properties: {
      description: alert.description
      severity: alert.severity
      enabled: true
      scopes: [
        alert.scope
      ]
      evaluationFrequency: alert.frequency
      windowSize: alert.window
      criteria: {
        allOf: [
          {
            query: alert.query
            timeAggregation: 'Count'
            operator: 'GreaterThan'
            threshold: 0
            failingPeriods: {
              numberOfEvaluationPeriods: 1
              minFailingPeriodsToAlert: 1
            }
          }
        ]
      }
      actions: actions
    }
  }
]
