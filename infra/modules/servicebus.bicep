// Service Bus namespace (Standard, Microsoft Entra ID only) with the queues of the asynchronous flows:
// events (outbox -> fan-out), valuations (stale portfolio-dates -> revaluation) and deliveries
// (fan-out -> webhook delivery), exports (claimed export runs), blob-sources (blob source runs) and
// feed-files (inbound files handed to ingestion: a resumed feed's waiting files).
// A message that fails maxDeliveryCount times is dead-lettered.

@description('Name of the Service Bus namespace (6-50 letters, digits and hyphens, globally unique).')
@minLength(6)
@maxLength(50)
param name string

@description('Azure region of the namespace.')
param location string

@description('Tags applied to the namespace.')
param tags { *: string } = {}

@description('Deliveries of a message before Service Bus moves it to the dead-letter queue.')
@minValue(1)
@maxValue(100)
param maxDeliveryCount int = 10

@description('The queues to create (main.bicep lists them: the message bus\'s, each with a trigger).')
param queueNames string[]

resource namespace 'Microsoft.ServiceBus/namespaces@2024-01-01' = {
  name: name
  location: location
  tags: tags
  sku: {
    name: 'Standard'
    tier: 'Standard'
  }
  properties: {
    disableLocalAuth: true
    minimumTlsVersion: '1.2'
    publicNetworkAccess: 'Enabled'
  }
}

resource queues 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' = [
  for queueName in queueNames: {
    parent: namespace
    name: queueName
    properties: {
      maxDeliveryCount: maxDeliveryCount
      deadLetteringOnMessageExpiration: true
      defaultMessageTimeToLive: 'P14D'
      // The Functions host renews a lock while its function runs (host.json maxAutoLockRenewalDuration);
      // a short one brings a crashed instance's messages back sooner.
      lockDuration: 'PT30S'
      maxSizeInMegabytes: 1024
      requiresDuplicateDetection: false
      requiresSession: false
      enablePartitioning: false
    }
  }
]

@description('Name of the namespace.')
output name string = namespace.name

// serviceBusEndpoint is https://<namespace>.servicebus.windows.net:443/ (suffix differs per cloud).
@description('Fully qualified host name of the namespace, e.g. <namespace>.servicebus.windows.net.')
output hostName string = split(split(namespace.properties.serviceBusEndpoint, '/')[2], ':')[0]
