package users

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"k8s.io/client-go/kubernetes"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
	"github.com/broker-operator/broker-operator/pkg/topics"
)

// KafkaFunc opens a Kafka client for a cluster. Tests pass one that reaches kfake.
type KafkaFunc func(ctx context.Context, bc *v1alpha1.BrokerCluster) (*kgo.Client, error)

// requestRetries is how often kgo retries a request that failed in a retriable way: a few, so
// that an unreachable cluster fails a reconcile in seconds, as in pkg/topics.
const requestRetries = 2

// ClusterKafka connects as the BrokerTopic controller does (topics.ClientOptions): the
// internal listener's seeds, its TLS, and SCRAM as the cluster's superuser, who may change any
// principal's ACLs. addrs renders the brokers' addresses.
func ClusterKafka(kube kubernetes.Interface, addrs *topics.AddressTemplate) KafkaFunc {
	return func(ctx context.Context, bc *v1alpha1.BrokerCluster) (*kgo.Client, error) {
		opts, err := topics.ClientOptions(ctx, kube, bc, addrs)
		if err != nil {
			return nil, err
		}
		return kgo.NewClient(append([]kgo.Opt{kgo.RequestRetries(requestRetries)}, opts...)...)
	}
}

// describeACLs reads every ACL of the principal, whatever its resource, host or operation, with
// a request of its own.
func describeACLs(ctx context.Context, adm *kadm.Client, principal string) ([]ACL, error) {
	b := kadm.NewACLs().Allow(principal).Deny(principal).AllowHosts().DenyHosts().
		AnyResource().ResourcePatternType(kadm.ACLPatternAny).Operations(kadm.OpAny)
	rs, err := adm.DescribeACLs(ctx, b)
	if err != nil {
		return nil, err
	}
	var out []ACL
	for _, r := range rs {
		if r.Err != nil {
			return nil, withMessage(r.Err, r.ErrMessage)
		}
		for _, d := range r.Described {
			if d.Principal != principal {
				continue // a filter matches only the principal; checked, since nothing else may change
			}
			out = append(out, ACL{Permission: d.Permission, Resource: d.Type, Name: d.Name, Pattern: d.Pattern, Host: d.Host, Operation: d.Operation})
		}
	}
	return out, nil
}

// createACLs creates each ACL for the principal.
func createACLs(ctx context.Context, adm *kadm.Client, principal string, acls []ACL) error {
	for _, a := range acls {
		rs, err := adm.CreateACLs(ctx, exactly(principal, a))
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Err != nil {
				return fmt.Errorf("create ACL %s: %w", describe(a), withMessage(r.Err, r.ErrMessage))
			}
		}
	}
	return nil
}

// deleteACLs deletes each ACL of the principal with a filter that names every field, so that it
// matches that ACL and no other.
func deleteACLs(ctx context.Context, adm *kadm.Client, principal string, acls []ACL) error {
	for _, a := range acls {
		rs, err := adm.DeleteACLs(ctx, exactly(principal, a))
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Err != nil {
				return fmt.Errorf("delete ACL %s: %w", describe(a), withMessage(r.Err, r.ErrMessage))
			}
		}
	}
	return nil
}

// exactly is the kadm builder of one ACL of the principal: as a creation it makes that ACL, as a
// filter it matches that ACL alone.
func exactly(principal string, a ACL) *kadm.ACLBuilder {
	b := kadm.NewACLs().ResourcePatternType(a.Pattern).Operations(a.Operation)
	if a.Permission == kmsg.ACLPermissionTypeDeny {
		b.Deny(principal).DenyHosts(a.Host)
	} else {
		b.Allow(principal).AllowHosts(a.Host)
	}
	switch a.Resource {
	case kmsg.ACLResourceTypeTopic:
		b.Topics(a.Name)
	case kmsg.ACLResourceTypeGroup:
		b.Groups(a.Name)
	case kmsg.ACLResourceTypeCluster:
		b.Clusters()
	case kmsg.ACLResourceTypeTransactionalId:
		b.TransactionalIDs(a.Name)
	}
	return b
}

func describe(a ACL) string {
	return fmt.Sprintf("%s %s on %s %q (%s) from %s", a.Permission, a.Operation, a.Resource, a.Name, a.Pattern, a.Host)
}

// withMessage adds the broker's error message to its error code.
func withMessage(err error, msg string) error {
	if err == nil || msg == "" {
		return err
	}
	return fmt.Errorf("%w: %s", err, msg)
}
