package topics

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/brokerconfig"
	"github.com/broker-operator/broker-operator/pkg/secretread"
)

// ConnectFunc opens a Kafka client for a cluster. Tests pass one that reaches kfake.
type ConnectFunc func(ctx context.Context, bc *v1alpha1.BrokerCluster) (Kafka, error)

// maxSeeds bounds the seed brokers a client is given: one that answers is enough, the client
// learns the others from its metadata.
const maxSeeds = 3

// ClusterConnector connects to a cluster's internal Kafka listener (port 9092) the way its
// brokers serve it: the first brokers' addresses as addrs renders them as seeds (by default the
// pods' stable DNS names, which the brokers advertise on that listener), TLS with the
// listener's CA when spec.kafka.tls is set, and SCRAM as the superuser of spec.adminAPI.auth
// when spec.kafka.sasl is set.
func ClusterConnector(kube kubernetes.Interface, addrs *AddressTemplate) ConnectFunc {
	return func(ctx context.Context, bc *v1alpha1.BrokerCluster) (Kafka, error) {
		opts, err := ClientOptions(ctx, kube, bc, addrs)
		if err != nil {
			return nil, err
		}
		return NewKafka(opts...)
	}
}

// ClientOptions are the kgo options ClusterConnector opens a cluster's client with: its seeds,
// TLS and SASL. pkg/users connects with them too.
func ClientOptions(ctx context.Context, kube kubernetes.Interface, bc *v1alpha1.BrokerCluster, addrs *AddressTemplate) ([]kgo.Opt, error) {
	s, err := seeds(bc, addrs)
	if err != nil {
		return nil, err
	}
	sec, err := securityOptions(ctx, kube, bc)
	if err != nil {
		return nil, err
	}
	return append([]kgo.Opt{kgo.SeedBrokers(s...)}, sec...), nil
}

// seeds are the first brokers' internal Kafka addresses, each once: a template that names one
// address for every broker gives one seed.
func seeds(bc *v1alpha1.BrokerCluster, addrs *AddressTemplate) ([]string, error) {
	n := min(max(bc.Status.CurrentReplicas, bc.Spec.Replicas, 1), maxSeeds)
	out := make([]string, 0, n)
	for i := range n {
		a, err := addrs.Address(bc.Namespace, bc.Name, int(i))
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// securityOptions are the TLS and SASL the cluster's internal listener asks for.
func securityOptions(ctx context.Context, kube kubernetes.Interface, bc *v1alpha1.BrokerCluster) ([]kgo.Opt, error) {
	k := bc.Spec.Kafka
	if k == nil {
		return nil, nil
	}
	var opts []kgo.Opt
	if k.TLS != nil {
		tc, err := listenerTLS(ctx, kube, bc, k.TLS)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	if k.SASL != nil {
		mech, err := superuserSCRAM(ctx, kube, bc, k.SASL.Mechanism)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(mech))
	}
	return opts, nil
}

// listenerTLS trusts the CA of the internal listener's Secret (ca.crt) and, when the listener
// requires client certificates, presents that Secret's certificate (tls.crt, tls.key).
func listenerTLS(ctx context.Context, kube kubernetes.Interface, bc *v1alpha1.BrokerCluster, l *v1alpha1.ListenerTLS) (*tls.Config, error) {
	name := brokerconfig.TLSListener{Listener: brokerconfig.InternalListenerName, TLS: l}.SecretName(bc.Name)
	s, err := secretread.Get(ctx, kube.CoreV1(), bc.Namespace, name)
	if err != nil {
		return nil, fmt.Errorf("read the Kafka TLS Secret %s: %w", name, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.Data["ca.crt"]) {
		return nil, fmt.Errorf("the Kafka TLS Secret %s has no CA certificate in ca.crt", name)
	}
	tc := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if l.RequireClientAuth {
		cert, err := tls.X509KeyPair(s.Data["tls.crt"], s.Data["tls.key"])
		if err != nil {
			return nil, fmt.Errorf("the Kafka TLS Secret %s: client certificate: %w", name, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// superuserSCRAM authenticates as the superuser whose Secret spec.adminAPI.auth names; the CRD
// requires that field with spec.kafka.sasl.
func superuserSCRAM(ctx context.Context, kube kubernetes.Interface, bc *v1alpha1.BrokerCluster, m v1alpha1.SASLMechanism) (kgoSASL, error) {
	if bc.Spec.AdminAPI.Auth == nil {
		return nil, errors.New("spec.kafka.sasl is set without spec.adminAPI.auth")
	}
	name := bc.Spec.AdminAPI.Auth.SecretName
	s, err := secretread.Get(ctx, kube.CoreV1(), bc.Namespace, name)
	if err != nil {
		return nil, fmt.Errorf("read the superuser Secret %s: %w", name, err)
	}
	auth := scram.Auth{User: string(s.Data["username"]), Pass: string(s.Data["password"])}
	if auth.User == "" || auth.Pass == "" {
		return nil, fmt.Errorf("the superuser Secret %s has no username or password", name)
	}
	if m == v1alpha1.SCRAMSHA512 {
		return auth.AsSha512Mechanism(), nil
	}
	return auth.AsSha256Mechanism(), nil
}

// clients keeps one Kafka client per cluster, made again when the cluster is re-created or
// its spec changes (a new generation may change TLS or SASL), or after a failed call.
type clients struct {
	connect ConnectFunc
	mu      sync.Mutex
	byKey   map[string]cachedClient
}

type cachedClient struct {
	uid        types.UID
	generation int64
	kafka      Kafka
}

func newClients(connect ConnectFunc) *clients {
	return &clients{connect: connect, byKey: map[string]cachedClient{}}
}

func (c *clients) get(ctx context.Context, bc *v1alpha1.BrokerCluster) (Kafka, error) {
	key := bc.Namespace + "/" + bc.Name
	c.mu.Lock()
	defer c.mu.Unlock()
	if cc, ok := c.byKey[key]; ok {
		if cc.uid == bc.UID && cc.generation == bc.Generation {
			return cc.kafka, nil
		}
		cc.kafka.Close()
		delete(c.byKey, key)
	}
	k, err := c.connect(ctx, bc)
	if err != nil {
		return nil, err
	}
	c.byKey[key] = cachedClient{uid: bc.UID, generation: bc.Generation, kafka: k}
	return k, nil
}

// drop closes a cluster's client, so that the next call reads the Secrets again: a failure
// may come from a rotated password or certificate.
func (c *clients) drop(namespace, name string) {
	key := namespace + "/" + name
	c.mu.Lock()
	defer c.mu.Unlock()
	if cc, ok := c.byKey[key]; ok {
		cc.kafka.Close()
		delete(c.byKey, key)
	}
}

func (c *clients) closeAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, cc := range c.byKey {
		cc.kafka.Close()
		delete(c.byKey, key)
	}
}

// kgoSASL is franz-go's SASL mechanism.
type kgoSASL = sasl.Mechanism
