package controller

import "github.com/broker-operator/broker-operator/pkg/controller/internal/objects"

// Labels and annotations the operator puts on what it owns (internal/objects).
const (
	LabelManagedBy         = objects.LabelManagedBy
	ManagedByValue         = objects.ManagedByValue
	LabelName              = objects.LabelName
	NameValue              = objects.NameValue
	LabelInstance          = objects.LabelInstance
	LabelListener          = objects.LabelListener
	AnnotationNodeID       = objects.AnnotationNodeID
	AnnotationSpecHash     = objects.AnnotationSpecHash
	AnnotationTemplateHash = objects.AnnotationTemplateHash
	// AnnotationRestartRequested on a broker's pod restarts it through the rollout, first.
	AnnotationRestartRequested = objects.AnnotationRestartRequested
	AnnotationSeeds            = objects.AnnotationSeeds
	AnnotationResyncedAt       = objects.AnnotationResyncedAt
	AnnotationExternalAddress  = objects.AnnotationExternalAddress
	// AnnotationHTTPProxyExternalAddress is the address a broker advertises on the HTTP Proxy's
	// external listener.
	AnnotationHTTPProxyExternalAddress = objects.AnnotationHTTPProxyExternalAddress
	AnnotationRack                     = objects.AnnotationRack
)
