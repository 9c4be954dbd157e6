// Log Analytics workspace and a workspace-based Application Insights component.

@description('Name of the Log Analytics workspace.')
param workspaceName string

@description('Name of the Application Insights component.')
param appInsightsName string

@description('Azure region of both resources.')
param location string

@description('Tags applied to both resources.')
param tags { *: string } = {}

@description('Days the workspace keeps log data.')
@minValue(30)
@maxValue(730)
param retentionInDays int = 30

@description('Accept only Microsoft Entra authenticated telemetry (no ingestion with the instrumentation key alone). The Functions host and the worker\'s Application Insights SDK both authenticate with the app\'s identity (APPLICATIONINSIGHTS_AUTHENTICATION_STRING), which holds Monitoring Metrics Publisher on the component.')
param disableLocalAuth bool = true

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: workspaceName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
    features: {
      enableLogAccessUsingOnlyResourcePermissions: true
    }
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: appInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: workspace.id
    IngestionMode: 'LogAnalytics'
    DisableLocalAuth: disableLocalAuth
  }
}

@description('Name of the Application Insights component.')
output appInsightsName string = appInsights.name

@description('Application Insights connection string (identifies the component; it is not a credential).')
output connectionString string = appInsights.properties.ConnectionString

@description('Resource id of the Log Analytics workspace.')
output workspaceId string = workspace.id
