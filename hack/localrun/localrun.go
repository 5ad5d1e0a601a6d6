package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
	"github.com/broker-operator/broker-operator/pkg/generated/clientset/versioned"
	"github.com/broker-operator/broker-operator/test/brokersim"
	"github.com/broker-operator/broker-operator/test/framework"
)

// operatorTokenLifetime is how long the operator's ServiceAccount token lasts: a working day.
const operatorTokenLifetime = 24 * time.Hour

// localRun is everything started, in order, so that stop can undo it in reverse.
type localRun struct {
	cp          *framework.ControlPlane
	sim         *admintest.Server
	kafka       *kfake.Cluster
	pods        *brokersim.PodSync
	volumes     *brokersim.VolumeBinder
	operator    *operatorProcess
	metricsAddr string
	// movePatch moves the example's brokers to pool blue (docs/pools.md), for printHowTo.
	movePatch string
}

// start brings everything up. On error it returns what it started, for the caller to stop.
func start(ctx context.Context, root string, o options) (*localRun, error) {
	l := &localRun{}
	cp, err := framework.Start(ctx, framework.Options{StartTimeout: o.startTimeout, Logf: progress})
	if err != nil {
		return nil, err
	}
	l.cp = cp
	admin := cp.AdminConfig()
	kube, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return l, err
	}
	brokers, err := versioned.NewForConfig(admin)
	if err != nil {
		return l, err
	}

	progress("installing deploy/'s namespace, CRD and RBAC")
	if err := brokersim.Install(ctx, root, cp.KubeconfigPath); err != nil {
		return l, err
	}
	operatorKubeconfig, err := cp.ServiceAccountKubeconfig(ctx, brokersim.OperatorNamespace, brokersim.OperatorServiceAccount, operatorTokenLifetime)
	if err != nil {
		return l, err
	}

	// The secure path is the one people see first: the simulated brokers serve TLS with a CA made
	// now and require a superuser, whose credentials the operator reads from Secrets.
	password, err := randomPassword()
	if err != nil {
		return l, err
	}
	if l.sim, err = admintest.Start(admintest.Options{DrainTime: o.drainTime, TLS: true, Username: adminUser, Password: password}); err != nil {
		return l, err
	}
	progress("broker simulator up, each broker on its own 127.0.0.1 port with TLS and auth (brokers drain for %s)", o.drainTime)
	if l.kafka, err = startKafka(password); err != nil {
		return l, err
	}
	kafkaAddr := l.kafka.ListenAddrs()[0]
	progress("in-process Kafka (kfake) up on %s with SCRAM-SHA-256, for the example's topics, users and ACLs", kafkaAddr)
	if l.pods, err = brokersim.StartPodSync(context.Background(), kube, l.sim, ""); err != nil {
		return l, err
	}
	if l.volumes, err = brokersim.StartVolumeBinder(context.Background(), kube, ""); err != nil {
		return l, err
	}

	ports, err := freeLoopbackAddrs(2)
	if err != nil {
		return l, err
	}
	l.metricsAddr = ports[0]
	bc, err := exampleCluster(root, o.namespace, o.readyDelay)
	if err != nil {
		return l, err
	}
	// The simulator serves pool blue of the example, declared before the operator's address
	// template is rendered, so that a move to it can be tried (docs/pools.md).
	l.sim.Cluster(o.namespace, bc.Name).Pool(examplePool)
	if l.movePatch, err = movePatch(bc); err != nil {
		return l, err
	}
	progress("starting the operator as ServiceAccount %s/%s, -v=%d", brokersim.OperatorNamespace, brokersim.OperatorServiceAccount, o.verbosity)
	l.operator, err = startOperator(operatorBinary(root), []string{
		"--kubeconfig=" + operatorKubeconfig,
		"--leader-elect-lease-namespace=" + brokersim.OperatorNamespace,
		"--admin-address-template=" + l.sim.BrokerAddressTemplate(),
		// Every broker's internal Kafka listener is the one in-process Kafka.
		"--kafka-address-template=" + kafkaAddr,
		"--drain-poll-interval=1s",
		"--metrics-bind-address=" + ports[0],
		"--health-probe-bind-address=" + ports[1],
		fmt.Sprintf("-v=%d", o.verbosity),
	})
	if err != nil {
		return l, err
	}

	// Each simulated broker has its own port: the operator reaches broker O at this port plus O.
	bc.Spec.AdminAPI.Port = int32(l.sim.Cluster(o.namespace, bc.Name).AdminPort())
	if err := secureAdminAPI(ctx, kube, bc, l.sim.CACertPEM(), password); err != nil {
		return l, err
	}
	saslKafka(bc)
	if _, err := brokers.BrokersV1alpha1().BrokerClusters(o.namespace).Create(ctx, bc, metav1CreateOptions); err != nil {
		return l, fmt.Errorf("create the example BrokerCluster: %w", err)
	}
	progress("created BrokerCluster %s/%s with %d brokers", o.namespace, bc.Name, bc.Spec.Replicas)
	if err := createExampleTopicAndUser(ctx, root, o.namespace, brokers); err != nil {
		return l, err
	}
	return l, nil
}

// stop undoes start in reverse order. The control plane's logs are kept if asked.
func (l *localRun) stop(keepLogs bool) error {
	var errs []error
	if l.operator != nil {
		errs = append(errs, l.operator.stop())
	}
	if l.volumes != nil {
		l.volumes.Stop()
	}
	if l.pods != nil {
		l.pods.Stop()
	}
	if l.kafka != nil {
		l.kafka.Close()
	}
	if l.sim != nil {
		l.sim.Close()
	}
	if l.cp != nil {
		if keepLogs {
			errs = append(errs, l.cp.StopKeepingLogs())
			progress("control plane logs kept in %s", l.cp.LogDir)
		} else {
			errs = append(errs, l.cp.Stop())
		}
	}
	return errors.Join(errs...)
}

// freeLoopbackAddrs finds n free ports on 127.0.0.1 by listening on port 0. They are free for a
// moment only; nothing else on a developer machine races for them in practice.
func freeLoopbackAddrs(n int) ([]string, error) {
	var (
		addrs     []string
		listeners []net.Listener
	)
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

func printHowTo(l *localRun, o options) {
	kubectl := "KUBECONFIG=" + l.cp.KubeconfigPath + " kubectl"
	if o.namespace != "default" {
		kubectl += " -n " + o.namespace
	}
	fmt.Fprintf(os.Stderr, `
================================================================================
The operator runs against a local control plane; BrokerCluster %[2]s/example is starting.
In another terminal:

  %[1]s get bc -w
  %[1]s scale bc/example --replicas=5
  %[1]s scale bc/example --replicas=2
  %[1]s get pods -w
  %[1]s describe bc/example
  %[1]s patch bc/example --type=merge -p '%[6]s'
                                  # move every broker to pool blue (docs/pools.md)
  %[1]s get bc -o wide -w         # the POOLS column follows the move
  %[1]s patch bc/example --type=merge -p '{"spec":{"schemaRegistry":{},"httpProxy":{}}}'
                                  # Schema Registry and HTTP Proxy on; the brokers restart onto it
  %[1]s get svc example -o jsonpath='{range .spec.ports[*]}{.name}={.port}{"\n"}{end}'
                                  # where each is reached (docs/schema-registry-and-http-proxy.md)
  %[1]s get bt,bu                 # the example topic and user (docs/topics-and-users.md)
  %[1]s describe bt/orders        # its Ready condition and events: TopicCreated
  %[1]s describe bu/orders-app    # UserCreated, ACLsUpdated
  %[1]s get secret orders-app-credentials -o jsonpath='{.data.password}' | base64 -d; echo
  %[1]s patch bt/orders --type=merge -p '{"spec":{"partitions":6}}'
                                  # partitions only grow: PartitionsIncreased

Topics, users' ACLs and SASL are served by franz-go's in-process Kafka (kfake) on %[7]s;
users are made through the simulated admin API.
Brokers are simulated: a Pod's broker joins when the Pod is Ready (after %[3]s) and a
decommissioned broker drains for %[4]s, so scaling down shows the DECOMMISSIONING column.
Operator metrics: http://%[5]s/metrics
The operator's decisions are logged below. Ctrl-C stops everything.
================================================================================

`, kubectl, o.namespace, o.readyDelay, o.drainTime, l.metricsAddr, l.movePatch, l.kafka.ListenAddrs()[0])
}
