// Package brokers holds the API group name shared by all versions.
package brokers

// GroupName is the API group of the BrokerCluster resource.
const GroupName = "broker-operator.dev"
