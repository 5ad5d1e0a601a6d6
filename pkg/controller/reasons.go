package controller

import (
	"github.com/broker-operator/broker-operator/pkg/controller/internal/brokers"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// Condition reasons a BrokerCluster's status can show; internal/step defines them with the
// steps that set them.
const (
	ReasonAllBrokersReady           = step.ReasonAllBrokersReady
	ReasonBrokersNotReady           = step.ReasonBrokersNotReady
	ReasonScalingUp                 = step.ReasonScalingUp
	ReasonScalingDown               = step.ReasonScalingDown
	ReasonSteady                    = step.ReasonSteady
	ReasonAdminAPIUnavailable       = step.ReasonAdminAPIUnavailable
	ReasonAdminAPIUnauthorized      = step.ReasonAdminAPIUnauthorized
	ReasonAdminAPIForbidden         = step.ReasonAdminAPIForbidden
	ReasonAdminAPITLSRefused        = step.ReasonAdminAPITLSRefused
	ReasonBrokerIDUnknown           = step.ReasonBrokerIDUnknown
	ReasonAsExpected                = step.ReasonAsExpected
	ReasonClusterUnhealthy          = step.ReasonClusterUnhealthy
	ReasonRollingOut                = step.ReasonRollingOut
	ReasonAllUpdated                = step.ReasonAllUpdated
	ReasonGhostBrokersFound         = step.ReasonGhostBrokersFound
	ReasonNoGhostBrokers            = step.ReasonNoGhostBrokers
	ReasonDrainStalled              = step.ReasonDrainStalled
	ReasonAdminSecretMissing        = step.ReasonAdminSecretMissing
	ReasonAdminSecretInvalid        = step.ReasonAdminSecretInvalid
	ReasonAdminSecretForbidden      = step.ReasonAdminSecretForbidden
	ReasonUnsupportedVersionChange  = step.ReasonUnsupportedVersionChange
	ReasonBrokerPodCannotStart      = step.ReasonBrokerPodCannotStart
	ReasonBrokerRecoveryStalled     = step.ReasonBrokerRecoveryStalled
	ReasonBrokerPodStuckTerminating = step.ReasonBrokerPodStuckTerminating
	ReasonScaleDownWouldNotFit      = step.ReasonScaleDownWouldNotFit
	ReasonSASLWaitsForSuperuser     = step.ReasonSASLWaitsForSuperuser
)

// Reasons of the ConfigApplied condition (internal/brokers).
const (
	ReasonConfigApplied        = brokers.ReasonConfigApplied
	ReasonConfigApplying       = brokers.ReasonConfigApplying
	ReasonConfigRestartPending = brokers.ReasonConfigRestartPending
	ReasonConfigRejected       = brokers.ReasonConfigRejected
	// The cloud storage keys' Secret (spec.tieredStorage.credentialsSecretRef) cannot be used.
	ReasonConfigCredentialsMissing   = brokers.ReasonConfigCredentialsMissing
	ReasonConfigCredentialsForbidden = brokers.ReasonConfigCredentialsForbidden
	ReasonConfigCredentialsInvalid   = brokers.ReasonConfigCredentialsInvalid
)

// Reasons of the StorageResized condition (internal/step/volumes.go).
const (
	ReasonStorageResizing            = step.ReasonStorageResizing
	ReasonStorageResized             = step.ReasonStorageResized
	ReasonStorageExpansionNotAllowed = step.ReasonStorageExpansionNotAllowed
	ReasonStorageExpansionRefused    = step.ReasonStorageExpansionRefused
)
