module github.com/broker-operator/broker-operator

go 1.26.0

require (
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	k8s.io/api v0.37.2 // indirect
	k8s.io/apimachinery v0.37.2 // indirect
	k8s.io/client-go v0.37.2 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
