// Package v1alpha1 is the v1alpha1 version of the broker-operator.dev API.
//
// +k8s:deepcopy-gen=package
// +groupName=broker-operator.dev
// +groupGoName=Brokers
// +k8s:openapi-gen=true
package v1alpha1
