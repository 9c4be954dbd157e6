// Cosmos DB for NoSQL, serverless, keys off: one database with a container per aggregate.
// The data-plane role for the function app is assigned in roles.bicep.

@description('Name of the Cosmos DB account (3-44 lowercase letters, digits and hyphens, globally unique).')
@minLength(3)
@maxLength(44)
param accountName string

@description('Name of the SQL (NoSQL API) database.')
param databaseName string

@description('Azure region of the account (serverless accounts have a single region).')
param location string

@description('Tags applied to the account.')
param tags { *: string } = {}

// Partition keys make the hot reads point reads or single-partition queries (docs/architecture.md).
// perItemTtl turns on TTL with defaultTtl -1: nothing expires unless a document sets its own ttl
// (rate-limit windows and idempotency keys in counters).
var containers = [
  {
    name: 'portfolios'
    partitionKey: '/id'
    perItemTtl: false
  }
  {
    name: 'securities'
    partitionKey: '/id'
    perItemTtl: false
  }
  {
    name: 'prices'
    partitionKey: '/securityId'
    perItemTtl: false
  }
  {
    name: 'fxRates'
    partitionKey: '/pair'
    perItemTtl: false
  }
  {
    name: 'positions'
    partitionKey: '/portfolioId'
    perItemTtl: false
  }
  {
    name: 'transactions'
    partitionKey: '/portfolioId'
    perItemTtl: false
  }
  // Closed versions of investment records (time travel): /key is `<kind>|<the record's partition key>`.
  {
    name: 'versions'
    partitionKey: '/key'
    perItemTtl: false
  }
  {
    name: 'jobs'
    partitionKey: '/id'
    perItemTtl: false
  }
  {
    name: 'exceptions'
    partitionKey: '/id'
    perItemTtl: false
  }
  {
    name: 'settings'
    partitionKey: '/kind'
    perItemTtl: false
  }
  // The settings audit trail: /resourceKey is `<item type>|<item id>`, so an item's page reads one partition.
  {
    name: 'audit'
    partitionKey: '/resourceKey'
    perItemTtl: false
  }
  {
    name: 'events'
    partitionKey: '/id'
    perItemTtl: false
  }
  {
    name: 'deliveries'
    partitionKey: '/webhookId'
    perItemTtl: false
  }
  {
    name: 'runs'
    partitionKey: '/ownerId'
    perItemTtl: false
  }
  {
    name: 'counters'
    partitionKey: '/key'
    perItemTtl: true
  }
  // Checkpoints of the replica's change-feed triggers (the Functions host's leases, partitioned by id).
  {
    name: 'leases'
    partitionKey: '/id'
    perItemTtl: false
  }
]

var perItemTtlOn = {
  defaultTtl: -1
}

resource account 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' = {
  name: accountName
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    locations: [
      {
        locationName: location
        failoverPriority: 0
        isZoneRedundant: false
      }
    ]
    consistencyPolicy: {
      defaultConsistencyLevel: 'Session'
    }
    capabilities: [
      {
        name: 'EnableServerless'
      }
    ]
    // Microsoft Entra ID only: no account keys, and keys could not change metadata anyway.
    disableLocalAuth: true
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
    publicNetworkAccess: 'Enabled'
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-11-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: {
      id: databaseName
    }
  }
}

// Serverless: no throughput options on the database or the containers.
resource sqlContainers 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15' = [
  for container in containers: {
    parent: database
    name: container.name
    properties: {
      resource: union(
        {
          id: container.name
          partitionKey: {
            paths: [
              container.partitionKey
            ]
            kind: 'Hash'
            version: 2
          }
          indexingPolicy: {
            indexingMode: 'consistent'
            automatic: true
            includedPaths: [
              {
                path: '/*'
              }
            ]
            excludedPaths: [
              {
                path: '/"_etag"/?'
              }
            ]
          }
        },
        container.perItemTtl ? perItemTtlOn : {}
      )
    }
  }
]

@description('Name of the Cosmos DB account.')
output accountName string = account.name

@description('Document endpoint, e.g. https://<account>.documents.azure.com:443/.')
output endpoint string = account.properties.documentEndpoint

@description('Name of the SQL database.')
output databaseName string = database.name
