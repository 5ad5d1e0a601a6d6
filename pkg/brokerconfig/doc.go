// Package brokerconfig computes, from a BrokerCluster's spec, what its brokers are configured
// with beyond the basic node config: the cluster properties to write through the admin API
// (Diff), each broker's external Kafka address (ExternalAddress), the per-broker external
// Services (ExternalService), the Kafka listener, TLS and rack entries of redpanda.yaml
// (KafkaNodeConfig), a broker's rack (Rack), the Schema Registry and HTTP Proxy as the spec asks
// for them (HTTPAPIs) with their redpanda.yaml sections (HTTPNodeConfig), and the listeners with
// TLS, the Secret each mounts and the names a cert-manager Certificate for it must hold
// (KafkaTLSListeners, TLSListeners, CertificateNames). Every function is pure: it reads no cluster
// state, so the caller reads the facts it passes (a node's labels, a Service's load balancer
// address, the brokers' current configuration) right before it acts on the result.
//
// Values and names follow Redpanda's Helm chart (redpanda-data/redpanda-operator
// charts/redpanda: values.go Listeners, ExternalListener, TLSCert, SASLAuth, RackAwareness;
// service.nodeport.go, service.loadbalancer.go, secrets.go) and Redpanda's node config
// (redpanda-data/redpanda src/v/config/node_config.cc, tls_config.h, broker_endpoint.h).
package brokerconfig
