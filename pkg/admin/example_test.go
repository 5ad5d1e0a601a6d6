package admin_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// The controller's view: render the brokers' URLs from the address template, find the broker
// of the highest ordinal, decommission it, and poll until it is gone.
func Example() {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	cluster := sim.Cluster("team-a", "redpanda")
	for ordinal := range 3 {
		cluster.Join(ordinal)
	}

	// Each simulated broker listens on its own port from the cluster's AdminPort on, so the
	// BrokerCluster's admin port is AdminPort and the template adds the ordinal.
	tmpl, err := admin.ParseAddressTemplate(sim.BrokerAddressTemplate(), admin.DefaultClusterDomain)
	if err != nil {
		panic(err)
	}
	urls, err := tmpl.URLs("team-a", "redpanda", 3, cluster.AdminPort())
	if err != nil {
		panic(err)
	}
	client, err := admin.NewClient(admin.Config{URLs: urls, Timeout: 5 * time.Second})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	brokers, err := client.Brokers(ctx)
	if err != nil {
		panic(err)
	}
	victim := -1
	for _, b := range brokers {
		if ordinal, ok := admin.OrdinalFromAddress(b.InternalRPCAddress, "redpanda"); ok && ordinal == 2 {
			victim = b.NodeID
		}
	}
	fmt.Println("pod 2 runs broker", victim)

	if err := client.Decommission(ctx, victim); err != nil {
		panic(err)
	}
	cluster.FinishDrains()
	status, err := client.DecommissionStatus(ctx, victim)
	fmt.Println("finished:", status.Finished, err)

	err = client.Decommission(ctx, victim)
	fmt.Println("again is not found:", errors.Is(err, admin.ErrBrokerNotFound))
	fmt.Println("double decommissions recorded:", len(sim.DoubleDecommissions()))
	// Output:
	// pod 2 runs broker 102
	// finished: true <nil>
	// again is not found: true
	// double decommissions recorded: 1
}
