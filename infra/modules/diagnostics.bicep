// Diagnostic settings to the Log Analytics workspace and the alerts docs/operations.md describes.
// The alerts that must not go blind read metrics, which the workspace's daily cap does not stop: the Cosmos DB
// 429s (platform metric) and the background queue (the custom metrics functions/measureBackgroundQueue.ts sends
// every minute). The 5xx alert reads the requests table and the cap alert says when logs stopped.
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
@description('The workspace\'s daily cap in GB (named in the cap alert).')
param logDailyCapGb int
@description('An availability test of the public address\'s /health from three locations, and its alert: sees a host that does not run at all, which neither the queue metric (its timer stops too) nor the request log can show.')
param availabilityTest bool
@description('The address tenants call (custom domain, Front Door endpoint or the app\'s host name), without a trailing slash.')
param publicUrl string
param webTestName string

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
// window and frequency. requests is never sampled (host.json excludes Request from sampling); the Operation
// table holds the workspace's own events, among them the one written when the daily cap is reached
// (Microsoft's query, "Set daily cap on Log Analytics workspace").
var alerts = [
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
    name: 'log-daily-cap'
    description: 'The workspace reached its daily cap of ${logDailyCapGb} GB: logs (and the 5xx alert) stop until its reset hour; the background and Cosmos DB alerts read metrics and go on (docs/operations.md, Logs and metrics).'
    severity: 2
    scope: workspace.id
    query: '_LogOperation | where Category =~ "Ingestion" | where Detail contains "OverQuota"'
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

// The background-work queue, measured every minute by functions/measureBackgroundQueue.ts (it peeks the queues)
// and sent as custom metrics to the component's metrics store (namespace background-work). A custom metric
// exists once first sent, so the criteria skip metric validation.
var backgroundAlerts = [
  {
    name: 'background-stall'
    description: 'Background work waits and nothing takes it: at every measurement of the last 15 minutes the oldest visible message of background-work was more than 15 minutes old (docs/operations.md, Background-work queues).'
    severity: 1
    metric: 'OldestMessageAgeSeconds'
    aggregation: 'Minimum'
    threshold: 900
  }
  {
    name: 'background-poison'
    description: 'A background unit failed 5 times and is on background-work-poison (docs/operations.md, Background-work queues).'
    severity: 1
    metric: 'PoisonMessages'
    aggregation: 'Maximum'
    threshold: 0
  }
  {
    // A peek that fails (the app identity lost its queue role, storage unreachable) stops the consumer too, and
    // leaves the stall metric missing rather than high: the measurement sends a failure instead.
    name: 'background-unmeasured'
    description: 'The background queue could not be read at more than 5 of the last 15 measurements: the stall alert cannot see, and the consumer most likely cannot read either (a lost queue role; docs/operations.md, Background-work queues).'
    severity: 1
    metric: 'MeasurementFailures'
    aggregation: 'Total'
    threshold: 5
  }
]

resource backgroundMetricAlerts 'Microsoft.Insights/metricAlerts@2018-03-01' = [
  for alert in backgroundAlerts: {
    name: '${metricAlertPrefix}-${alert.name}'
    location: 'global'
    tags: tags
    properties: {
      description: alert.description
      severity: alert.severity
      enabled: true
      scopes: [
        applicationInsights.id
      ]
      evaluationFrequency: 'PT5M'
      windowSize: 'PT15M'
      autoMitigate: true
      criteria: {
        'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
        allOf: [
          {
            criterionType: 'StaticThresholdCriterion'
            name: alert.metric
            metricNamespace: 'background-work'
            metricName: alert.metric
            timeAggregation: alert.aggregation
            operator: 'GreaterThan'
            threshold: alert.threshold
            skipMetricValidation: true
          }
        ]
      }
      actions: empty(alertEmail) ? [] : [{ actionGroupId: actionGroup.id }]
    }
  }
]

// A host that does not run at all stops the queue measurement with it and may log no request: an Application
// Insights standard test calls /health (anonymous, no store call) every 5 minutes from three locations, and the
// alert fires when two of them fail. Billed per run (docs/operations.md, "What it costs").
resource webTest 'Microsoft.Insights/webtests@2022-06-15' = if (availabilityTest) {
  name: webTestName
  location: applicationInsights.location
  // Links the test to the component (the portal's Availability view).
  tags: union(tags, { 'hidden-link:${applicationInsights.id}': 'Resource' })
  kind: 'standard'
  properties: {
    SyntheticMonitorId: webTestName
    Name: 'health'
    Description: 'GET /health of the public address.'
    Enabled: true
    Frequency: 300
    Timeout: 30
    Kind: 'standard'
    RetryEnabled: true
    Locations: [
      { Id: 'emea-nl-ams-azr' }
      { Id: 'emea-gb-db3-azr' }
      { Id: 'emea-ru-msa-edge' }
    ]
    Request: {
      RequestUrl: '${publicUrl}/health'
      HttpVerb: 'GET'
      ParseDependentRequests: false
    }
    ValidationRules: {
      ExpectedHttpStatusCode: 200
      SSLCheck: true
      SSLCertRemainingLifetimeCheck: 7
    }
  }
}

resource availabilityAlert 'Microsoft.Insights/metricAlerts@2018-03-01' = if (availabilityTest) {
  name: '${metricAlertPrefix}-availability'
  location: 'global'
  tags: tags
  properties: {
    description: 'GET /health failed from 2 of 3 locations: the service does not answer (docs/operations.md, Logs and metrics).'
    severity: 0
    enabled: true
    scopes: [
      webTest.id
      applicationInsights.id
    ]
    evaluationFrequency: 'PT1M'
    windowSize: 'PT5M'
    autoMitigate: true
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.WebtestLocationAvailabilityCriteria'
      webTestId: webTest.id
      componentId: applicationInsights.id
      failedLocationCount: 2
    }
    actions: empty(alertEmail) ? [] : [{ actionGroupId: actionGroup.id }]
  }
}
