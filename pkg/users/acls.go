package users

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	corev1 "k8s.io/api/core/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// ACL is one Kafka ACL of the user's principal: one operation, allowed or denied, on one
// resource, from one host.
type ACL struct {
	Permission kmsg.ACLPermissionType
	Resource   kmsg.ACLResourceType
	Name       string
	Pattern    kmsg.ACLResourcePatternType
	Host       string
	Operation  kmsg.ACLOperation
}

// clusterResourceName is the one name of the cluster resource in Kafka's ACLs.
const clusterResourceName = "kafka-cluster"

// Principal is the Kafka principal of a SCRAM user.
func Principal(user string) string { return "User:" + user }

// desiredACLs expands the spec's rules into one ACL per operation, sorted and without repeats.
func desiredACLs(a *v1alpha1.UserAuthorization) []ACL {
	var out []ACL
	for _, r := range a.ACLs {
		base := ACL{
			Permission: kmsg.ACLPermissionTypeAllow,
			Resource:   resourceTypes[r.Resource.Type],
			Name:       r.Resource.Name,
			Pattern:    kmsg.ACLResourcePatternTypeLiteral,
			Host:       cmp.Or(r.Host, "*"),
		}
		if r.Type == v1alpha1.ACLDeny {
			base.Permission = kmsg.ACLPermissionTypeDeny
		}
		if r.Resource.PatternType == v1alpha1.ACLPrefixed {
			base.Pattern = kmsg.ACLResourcePatternTypePrefixed
		}
		if r.Resource.Type == v1alpha1.ACLCluster {
			base.Name = clusterResourceName
		}
		for _, op := range r.Operations {
			a := base
			a.Operation = operations[op]
			out = append(out, a)
		}
	}
	slices.SortFunc(out, compareACLs)
	return slices.Compact(out)
}

// planACLs is what to create and what to delete so that the principal holds exactly want.
func planACLs(want, have []ACL) (create, remove []ACL) {
	for _, a := range want {
		if !slices.Contains(have, a) {
			create = append(create, a)
		}
	}
	for _, a := range have {
		if !slices.Contains(want, a) {
			remove = append(remove, a)
		}
	}
	return create, remove
}

func compareACLs(a, b ACL) int {
	return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Pattern, b.Pattern),
		cmp.Compare(a.Host, b.Host), cmp.Compare(a.Permission, b.Permission), cmp.Compare(a.Operation, b.Operation))
}

var resourceTypes = map[v1alpha1.ACLResourceType]kmsg.ACLResourceType{
	v1alpha1.ACLTopic:           kmsg.ACLResourceTypeTopic,
	v1alpha1.ACLGroup:           kmsg.ACLResourceTypeGroup,
	v1alpha1.ACLCluster:         kmsg.ACLResourceTypeCluster,
	v1alpha1.ACLTransactionalID: kmsg.ACLResourceTypeTransactionalId,
}

// operations maps the CRD's names to Kafka's (apache/kafka AclOperation).
var operations = map[v1alpha1.ACLOperation]kmsg.ACLOperation{
	"All":             kmsg.ACLOperationAll,
	"Read":            kmsg.ACLOperationRead,
	"Write":           kmsg.ACLOperationWrite,
	"Create":          kmsg.ACLOperationCreate,
	"Delete":          kmsg.ACLOperationDelete,
	"Alter":           kmsg.ACLOperationAlter,
	"Describe":        kmsg.ACLOperationDescribe,
	"ClusterAction":   kmsg.ACLOperationClusterAction,
	"DescribeConfigs": kmsg.ACLOperationDescribeConfigs,
	"AlterConfigs":    kmsg.ACLOperationAlterConfigs,
	"IdempotentWrite": kmsg.ACLOperationIdempotentWrite,
}

// syncACLs makes the principal's ACLs exactly spec.authorization's, reading them from Kafka
// right before: ACLs of other principals are never in a request. Unset, nothing is read or
// changed.
func (r *reconcile) syncACLs(ctx context.Context) error {
	if r.bu.Spec.Authorization == nil {
		r.status.ACLs = 0
		return nil
	}
	want := desiredACLs(r.bu.Spec.Authorization)
	created, deleted, err := r.applyACLs(ctx, want)
	if err != nil {
		return r.kafkaFailed(err)
	}
	if created+deleted > 0 {
		r.event(corev1.EventTypeNormal, EventACLsUpdated, "Created %d and deleted %d ACLs of %s", created, deleted, Principal(r.bu.Name))
	}
	r.status.ACLs = int32(len(want))
	return nil
}

// applyACLs creates what want adds and deletes what it lacks, the creates first so that a
// changed rule never leaves the principal with less than both.
func (r *reconcile) applyACLs(ctx context.Context, want []ACL) (created, deleted int, err error) {
	k, err := r.c.cfg.Kafka(ctx, r.bc)
	if err != nil {
		return 0, 0, err
	}
	defer k.Close()
	adm := kadm.NewClient(k)
	principal := Principal(r.bu.Name)
	have, err := describeACLs(ctx, adm, principal)
	if err != nil {
		return 0, 0, err
	}
	add, remove := planACLs(want, have)
	if err := createACLs(ctx, adm, principal, add); err != nil {
		return 0, 0, err
	}
	return len(add), len(remove), deleteACLs(ctx, adm, principal, remove)
}

// kafkaFailed records a failed Kafka call in Ready and returns it for a retry with backoff.
func (r *reconcile) kafkaFailed(err error) error {
	var ke *kerr.Error
	if errors.As(err, &ke) && !ke.Retriable {
		r.notReady(ReasonRequestRefused, fmt.Sprintf("ACLs of %s: %v", Principal(r.bu.Name), err))
	} else {
		r.notReady(ReasonKafkaUnavailable, fmt.Sprintf("ACLs of %s on cluster %s: %v", Principal(r.bu.Name), r.bc.Name, err))
	}
	return fmt.Errorf("ACLs of %s: %w", Principal(r.bu.Name), err)
}
