package v1alpha1

// DisruptionPreview is what the changes pending on a BrokerCluster will disrupt: the broker pods
// the operator will restart or remove, in the order it will take them, and why. It is written
// with every status the operator writes, and while the cluster is paused too, so that a change
// can be previewed before it starts.
type DisruptionPreview struct {
	// ObservedGeneration is the generation of the spec the preview was made from. While the
	// cluster is paused, status.observedGeneration stays where it was; this one follows the spec,
	// so a preview of a change is ready once it equals metadata.generation.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Disruptions are the broker pods the pending changes restart or remove, first to go first:
	// the restart or decommission under way, then a scale-down's brokers (highest ordinal
	// first), then the restarts (a restart asked for on a pod first, then the highest ordinal,
	// the controller leader last). A held scale-down or change of version lists none of its
	// brokers (Notes say why). Empty when nothing is pending.
	// +optional
	// +listType=atomic
	Disruptions []PlannedDisruption `json:"disruptions,omitempty"`

	// ControllerLeader is the node ID of the controller leader (controller_id in
	// GET /v1/cluster/health_overview) as last read; its pod is restarted last. Absent while it
	// has not been read: a steady or paused cluster does not ask the brokers.
	// +optional
	ControllerLeader *int32 `json:"controllerLeader,omitempty"`

	// Notes say what holds the listed steps or leaves some out (a held scale-down or change of
	// version, a maintenance window not open), what the preview cannot know yet, and what may
	// still change its order.
	// +optional
	// +listType=atomic
	Notes []string `json:"notes,omitempty"`
}

// PlannedDisruption is one broker pod a pending change restarts or removes.
type PlannedDisruption struct {
	// Pod is the broker pod's name.
	Pod string `json:"pod"`
	// Ordinal is the pod's ordinal.
	Ordinal int32 `json:"ordinal"`
	// BrokerID is the broker's node ID, when known (from the admin API, or as recorded on the
	// pod).
	// +optional
	BrokerID *int32 `json:"brokerID,omitempty"`
	// Action is Restart (the pod is deleted and made again, its broker in maintenance mode
	// meanwhile) or Decommission (the broker leaves the cluster and its pod goes).
	Action DisruptionAction `json:"action"`
	// Reason says why, in the words of the restart's and the decommission's events: the image
	// from and to, the pod template fields, the cluster properties that take effect on restart,
	// a restart asked for on the pod (and by whom), a scale-down from one count to another.
	Reason string `json:"reason"`
	// UnderWay: the operator is taking this one now (status.restart or
	// status.decommissioningBroker names it).
	// +optional
	UnderWay bool `json:"underWay,omitempty"`
}

// DisruptionAction is what a planned disruption does to its broker.
// +kubebuilder:validation:Enum=Restart;Decommission
type DisruptionAction string

const (
	// DisruptionRestart: the broker's pod is deleted and made again, as a rollout restarts it.
	DisruptionRestart DisruptionAction = "Restart"
	// DisruptionDecommission: the broker is decommissioned and its pod removed by a scale-down.
	DisruptionDecommission DisruptionAction = "Decommission"
)
