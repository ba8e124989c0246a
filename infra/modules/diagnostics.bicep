// Diagnostic settings to the Log Analytics workspace and the alerts docs/operations.md describes.
// Logs go to resource-specific tables (logAnalyticsDestinationType Dedicated): CDBControlPlaneRequests,
// AZKVAuditLogs, StorageQueueLogs. Only what an alert or an investigation reads is collected: no Cosmos DB
// data-plane request log (its 429s come from the TotalRequests metric, free of charge) and no queue reads or
// deletes (StorageRead logs every poll of every instance). With alertEmail set the alerts notify an action
// group, otherwise they show in Azure Monitor only. Every alert resolves itself when its condition clears.
param location string
param tags object
param logAnalyticsName string
param applicationInsightsName string
param storageAccountName string
param cosmosAccountName string
param keyVaultName string
param actionGroupName string
param alertPrefix string
param metricAlertPrefix string
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

resource cosmos 'Microsoft.DocumentDB/databaseAccounts@2025-10-15' existing = {
  name: cosmosAccountName
}

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

// Cosmos DB control plane only (account, database, container and throughput changes): a few rows a day.
resource cosmosDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: cosmos
  properties: {
    workspaceId: workspace.id
    logAnalyticsDestinationType: 'Dedicated'
    logs: [
      { category: 'ControlPlaneRequests', enabled: true }
    ]
  }
}

// Key Vault audit: who wrapped or unwrapped with the field encryption key, or read the Graph certificate, and when.
resource vaultDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
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

// Storage queues: writes only (PutMessage: the planners, continuations and the host's moves to the poison
// queue). Reads (every poll) and deletes (every unit done) are not logged.
resource queueDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: queueService
  properties: {
    workspaceId: workspace.id
    logs: [
      { category: 'StorageWrite', enabled: true }
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

// Log search alerts: name, severity (0 critical … 4 verbose), scope, query (alerts when it returns a row),
// window and frequency. Every table they read is unsampled: StorageQueueLogs (a resource log), requests
// (excluded from sampling in host.json) and traces (kept whole by the Function App's sampling setting).
var alerts = [
  {
    name: 'poison-queue'
    description: 'A background unit failed 5 times and was moved to background-work-poison (docs/operations.md, Background-work queues).'
    severity: 1
    scope: workspace.id
    // A PutMessage's object key ends with the message id (/<account>/<queue>/<id>): match the queue segment.
    query: 'StorageQueueLogs | where OperationName == "PutMessage" and ObjectKey matches regex "/background-work-poison(/|$)" | summarize moved = count() | where moved > 0'
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
    name: 'background-oldest-message'
    description: 'A background unit waited more than 15 minutes on background-work before it was done (queuedMs of background work done|deferred).'
    severity: 2
    scope: applicationInsights.id
    query: 'traces | where message has "background work" | extend e = parse_json(message) | where tostring(e.message) in ("background work done", "background work deferred") | summarize oldestMs = max(todouble(e.queuedMs)) | where oldestMs > 900000'
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
      // A new workspace has none of these tables until their first row: validating the query would refuse it.
      skipQueryValidation: true
      autoMitigate: true
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

// Cosmos DB throttling from the platform metric TotalRequests split by StatusCode (no request log needed):
// more than 1,000 requests answered 429 in 15 minutes. Bulk work is paced on 429s and the SDK retries them,
// so a few are normal; a sustained stream means the throughput is too low (docs/operations.md).
resource cosmosThrottledAlert 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: '${metricAlertPrefix}-cosmos-429'
  location: 'global'
  tags: tags
  properties: {
    description: 'More than 1,000 Cosmos DB requests of the last 15 minutes were throttled (429): raise the throughput or move to autoscale (docs/operations.md).'
    severity: 2
    enabled: true
    scopes: [
      cosmos.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    autoMitigate: true
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'throttled'
          metricNamespace: 'Microsoft.DocumentDB/databaseAccounts'
          metricName: 'TotalRequests'
          dimensions: [
            { name: 'StatusCode', operator: 'Include', values: ['429'] }
          ]
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 1000
        }
      ]
    }
    actions: empty(alertEmail) ? [] : [{ actionGroupId: actionGroup.id }]
  }
}
