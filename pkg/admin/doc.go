// Package admin is a client for the brokers' admin API (the Redpanda Admin API v1 paths
// the operator needs), with no dependency on Kubernetes packages.
package admin
