package brokers

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// The membership an irreversible step relies on ("every other broker up", "no other broker
// draining") is read from the controller leader: the leader applies every membership change
// first, so a follower's GET /v1/brokers may still show a broker alive or not draining that the
// leader knows better about. Redpanda's operator pins the same reads to the controller leader
// (redpanda-data/redpanda-operator operator/internal/controller/redpanda/maintenance_mode.go,
// "the broker list and the writes must be served by the controller leader"); the leader is
// health_overview's controller_id (common-go rpadmin/api_cluster.go, ClusterHealthOverview).
// When the leader is unknown, runs no pod of this cluster that a broker ID is known for, or does
// not answer, any broker answers, and the source says so.

// readMembers lists the brokers for a fresh fact check, from the controller leader when it
// can, and records where the list came from for status.membershipReadFrom.
func (a *Admin) readMembers(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, view *View) ([]admin.Broker, error) {
	list, source, err := membersFromLeader(ctx, client, bc, view)
	if err != nil {
		list, err = client.Brokers(ctx)
		if err != nil {
			return nil, err
		}
		source = "any broker: " + source
	}
	a.sources.set(bc.Namespace+"/"+bc.Name, source)
	return list, nil
}

// membersFromLeader asks the controller leader for the brokers list; when it cannot, source
// says why.
func membersFromLeader(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, view *View) ([]admin.Broker, string, error) {
	h, err := client.HealthOverview(ctx)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("health_overview did not name the controller leader (%v)", err), err
	case h.ControllerID < 0:
		return nil, "the cluster has no controller leader", errors.New("no controller leader")
	}
	index, pod, ok := view.urlOf(bc, int32(h.ControllerID))
	if !ok {
		err := fmt.Errorf("controller leader %d runs no known pod", h.ControllerID)
		return nil, fmt.Sprintf("the controller leader, broker %d, runs no pod of this cluster known by its broker ID", h.ControllerID), err
	}
	list, err := client.BrokersFrom(ctx, index)
	if err != nil {
		return nil, fmt.Sprintf("the controller leader, broker %d, did not answer (%v)", h.ControllerID, err), err
	}
	return list, fmt.Sprintf("broker %d, the controller leader (pod %s)", h.ControllerID, pod), nil
}

// MembershipReadFrom is where the last fresh fact check of bc read its membership, "" if none
// has yet.
func (a *Admin) MembershipReadFrom(bc *v1alpha1.BrokerCluster) string {
	return a.sources.get(bc.Namespace + "/" + bc.Name)
}

// sourceTracker keeps, by cluster, where the last fresh fact check read its membership.
type sourceTracker struct {
	mu      sync.Mutex
	sources map[string]string
}

func (t *sourceTracker) set(key, source string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sources[key] = source
}

func (t *sourceTracker) get(key string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sources[key]
}

func (t *sourceTracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.sources, key)
}
