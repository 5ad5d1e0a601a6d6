//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
)

// fakeKafka is franz-go's in-process Kafka (kfake), one broker on 127.0.0.1, standing for a
// BrokerCluster's internal listener, and the test's own admin client to it: what a user
// checks with rpk.
type fakeKafka struct {
	cluster *kfake.Cluster
	rpk     *kadm.Client
	// flag points the operator's BrokerTopic and BrokerUser controllers at it.
	flag string
}

// kfakeSuperuser and kfakePassword are the superuser of a fakeKafka with SASL.
const (
	kfakeSuperuser = "admin"
	kfakePassword  = "kfake-pw"
)

// startKafka starts a fakeKafka for one test; with sasl it asks for SCRAM-SHA-256 and knows
// only its superuser.
func startKafka(t *testing.T, sasl bool) *fakeKafka {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(1)}
	if sasl {
		opts = append(opts, kfake.EnableSASL(), kfake.Superuser("SCRAM-SHA-256", kfakeSuperuser, kfakePassword))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	addr := c.ListenAddrs()[0]
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("kfake listens on %s, not on 127.0.0.1", addr)
	}
	clientOpts := []kgo.Opt{kgo.SeedBrokers(addr)}
	if sasl {
		clientOpts = append(clientOpts, kgo.SASL(scram.Auth{User: kfakeSuperuser, Pass: kfakePassword}.AsSha256Mechanism()))
	}
	cl, err := kgo.NewClient(clientOpts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	// Every broker of every cluster renders to this one address: the operator gets one seed.
	return &fakeKafka{cluster: c, rpk: kadm.NewClient(cl), flag: "--kafka-address-template=" + addr}
}

// topicView is what rpk topic describe shows: the partition count and the keys set on the topic.
type topicView struct {
	exists     bool
	partitions int
	config     map[string]string
}

func (k *fakeKafka) topic(ctx context.Context, name string) (topicView, error) {
	details, err := k.rpk.ListTopics(ctx, name)
	if err != nil {
		return topicView{}, err
	}
	d, ok := details[name]
	if !ok || d.Err != nil {
		return topicView{}, nil // absent: UNKNOWN_TOPIC_OR_PARTITION
	}
	v := topicView{exists: true, partitions: len(d.Partitions), config: map[string]string{}}
	rcs, err := k.rpk.DescribeTopicConfigs(ctx, name)
	if err != nil {
		return topicView{}, err
	}
	for _, rc := range rcs {
		if rc.Err != nil {
			return topicView{}, rc.Err
		}
		for _, c := range rc.Configs {
			if c.Source == kmsg.ConfigSourceDynamicTopicConfig && c.Value != nil {
				v.config[c.Key] = *c.Value
			}
		}
	}
	return v, nil
}

// awaitTopic waits until rpk shows the topic as ok accepts it, and returns what it showed.
func (k *fakeKafka) awaitTopic(t *testing.T, name, what string, ok func(topicView) bool) topicView {
	t.Helper()
	var last topicView
	var lastErr error
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		last, lastErr = k.topic(ctx, name)
		return lastErr == nil && ok(last), nil
	})
	if err != nil {
		t.Fatalf("topic %s in Kafka: want %s; last seen %+v (error %v)", name, what, last, lastErr)
	}
	return last
}

// acls are the principal's ACLs as rpk acl list shows them, one string each, sorted.
func (k *fakeKafka) acls(ctx context.Context, principal string) ([]string, error) {
	b := kadm.NewACLs().Allow(principal).Deny(principal).AllowHosts().DenyHosts().
		AnyResource().ResourcePatternType(kadm.ACLPatternAny).Operations(kadm.OpAny)
	rs, err := k.rpk.DescribeACLs(ctx, b)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rs {
		if r.Err != nil {
			return nil, r.Err
		}
		for _, d := range r.Described {
			out = append(out, strings.Join([]string{d.Principal, d.Permission.String(), d.Operation.String(), d.Type.String(), d.Name, d.Pattern.String(), d.Host}, " "))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// awaitCondition waits until get's object has observed its generation and its condition cond
// has status and reason, and returns the object's conditions then.
func awaitCondition(t *testing.T, what, cond string, status metav1.ConditionStatus, reason string, get func(context.Context) (metav1.Object, []metav1.Condition, int64, error)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		obj, conds, observed, err := get(ctx)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		c := meta.FindStatusCondition(conds, cond)
		if c == nil {
			last = "no " + cond + " condition"
			return false, nil
		}
		last = string(c.Status) + "/" + c.Reason + ": " + c.Message
		return observed == obj.GetGeneration() && c.Status == status && c.Reason == reason, nil
	})
	if err != nil {
		t.Fatalf("%s: want %s %s/%s; last %s", what, cond, status, reason, last)
	}
}

// awaitEventAbout waits for an event of reason about the object kind/name.
func awaitEventAbout(t *testing.T, ns, kind, name, reason string) {
	t.Helper()
	awaitEventWhere(t, ns, reason+" event about "+kind+" "+name, func(e corev1.Event) bool {
		return e.Reason == reason && e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name
	})
}

// awaitGone waits until get reports the object is not found.
func awaitGone(t *testing.T, what string, gone func(context.Context) bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, convergeLimit, true, func(ctx context.Context) (bool, error) {
		return gone(ctx), nil
	}); err != nil {
		t.Fatalf("%s is still there after %s", what, convergeLimit)
	}
}

// retryUpdate runs a read-modify-write as kubectl edit would, again when it conflicts with
// the operator's own status writes.
func retryUpdate(t *testing.T, what string, readModifyWrite func(context.Context) error) {
	t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error { return readModifyWrite(t.Context()) }); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// equalSet reports whether a and b hold the same strings, in any order.
func equalSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
