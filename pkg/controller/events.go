package controller

import (
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// tell records the events of step s (step.Events), which took the BrokerCluster's status from
// before to after.
func (c *Controller) tell(bc *v1alpha1.BrokerCluster, s step.Step, before, after *v1alpha1.BrokerClusterStatus) {
	for _, e := range step.Events(s, before, after) {
		c.cfg.Recorder.Event(bc, e.Type, e.Reason, e.Message)
	}
}
