package brokers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/controller/internal/step"
)

// Redpanda's defaults of the free-space floors (src/v/config/configuration.cc), used when the
// cluster configuration does not say.
const (
	defaultMinFreeBytes = 5 << 30
	defaultAlertPercent = 5
)

// readPlacement reads what the scale-down pre-flight (step/preflight.go) rests on, for a
// scale-down to spec.replicas: every partition's replicas (GET /v1/cluster/partitions), and
// from list, the brokers list, the racks and data disks of the brokers the pods below
// spec.replicas run (those that remain) and of those above it (those that leave), as view
// identifies them. A 404 is Redpanda before 23.3, which has no such route: NoRoute.
func readPlacement(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, list []admin.Broker, view *View) (step.Placement, error) {
	p := step.Placement{Target: bc.Spec.Replicas, RackAware: bc.Spec.RackAwareness != nil}
	if view != nil {
		for _, other := range view.elsewhere.Pools {
			p.Target += other.Desired // the brokers every pool keeps remain
			p.Pools = true
		}
	}
	parts, err := client.ClusterPartitions(ctx)
	switch {
	case errors.Is(err, admin.ErrNotFound):
		p.Asked, p.NoRoute = true, true
		return p, nil
	case err != nil:
		return p, err
	}
	p.Asked = true
	for _, part := range parts {
		pr := step.PartitionReplicas{Topic: part.Namespace + "/" + part.Topic, ID: part.ID}
		for _, id := range part.Replicas {
			pr.Replicas = append(pr.Replicas, int32(id))
		}
		p.Partitions = append(p.Partitions, pr)
	}
	if view == nil {
		return p, nil
	}
	byID := map[int32]admin.Broker{}
	for _, b := range list {
		if b.MembershipStatus != admin.MembershipRemoved {
			byID[int32(b.NodeID)] = b
		}
	}
	for ordinal := range int(max(bc.Status.CurrentReplicas, bc.Spec.Replicas)) {
		id := view.identities[ordinal]
		b, listed := byID[id.ID]
		if !id.Known || !listed {
			continue
		}
		disk := step.BrokerDisk{ID: id.ID, Known: b.Disk.Known, Free: b.Disk.Free, Total: b.Disk.Total}
		p.RacksNow = append(p.RacksNow, b.Rack)
		if ordinal < int(bc.Spec.Replicas) {
			p.Remains = append(p.Remains, b.Rack)
			p.Disk.Remaining = append(p.Disk.Remaining, disk)
		} else {
			p.Disk.Leaving = append(p.Disk.Leaving, disk)
		}
	}
	view.placeElsewhere(&p, byID)
	p.Disk.MinFreeBytes, p.Disk.AlertPercent = readFreeSpaceFloors(ctx, client)
	p.Disk.Asked = true
	return p, nil
}

// readFreeSpaceFloors reads storage_min_free_bytes and
// storage_space_alert_free_threshold_percent from the cluster configuration, Redpanda's
// defaults for what it does not say (or when it does not answer: the floors only make the
// check stricter than none).
func readFreeSpaceFloors(ctx context.Context, client admin.Client) (int64, int64) {
	minFree, percent := int64(defaultMinFreeBytes), int64(defaultAlertPercent)
	cc, err := ConfigClient(client)
	if err != nil {
		return minFree, percent
	}
	all, err := cc.ClusterConfig(ctx, true)
	if err != nil {
		return minFree, percent
	}
	if v, ok := configInt(all["storage_min_free_bytes"]); ok {
		minFree = v
	}
	if v, ok := configInt(all["storage_space_alert_free_threshold_percent"]); ok {
		percent = v
	}
	return minFree, percent
}

// configInt reads an integer property's JSON value.
func configInt(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil && n >= 0
}

// checkDataFits reads the placement afresh and judges FactDataFits.
func checkDataFits(ctx context.Context, client admin.Client, bc *v1alpha1.BrokerCluster, list []admin.Broker, view *View) error {
	p, err := readPlacement(ctx, client, bc, list, view)
	if err != nil {
		return fmt.Errorf("scale-down pre-flight of %s/%s: %w", bc.Namespace, bc.Name, err)
	}
	if why := p.Refused(); why != "" {
		return &step.FactError{Fact: step.FactDataFits, Why: why}
	}
	return nil
}

// placeElsewhere counts the other pools' brokers in p (a cluster with pools): those below
// their pool's D remain, those from D up to C leave.
func (v *View) placeElsewhere(p *step.Placement, byID map[int32]admin.Broker) {
	pools := map[string]step.OtherPool{}
	for _, o := range v.elsewhere.Pools {
		pools[o.Name] = o
	}
	for _, pod := range v.elsewhere.Pods {
		pool, ok := pools[pod.Pool]
		b, listed := byID[pod.ID]
		if !ok || !pod.IDKnown || !listed || pod.Ordinal >= pool.Current {
			continue
		}
		disk := step.BrokerDisk{ID: pod.ID, Known: b.Disk.Known, Free: b.Disk.Free, Total: b.Disk.Total}
		p.RacksNow = append(p.RacksNow, b.Rack)
		if pod.Ordinal < pool.Desired {
			p.Remains = append(p.Remains, b.Rack)
			p.Disk.Remaining = append(p.Disk.Remaining, disk)
		} else {
			p.Disk.Leaving = append(p.Disk.Leaving, disk)
		}
	}
}
