package chartcheck

import (
	"strings"
	"testing"
)

// The BrokerUser CRD's rules refuse what docs/users.md says they refuse, with its messages, on
// create and on update, evaluated by kube-apiserver's CEL validator.
func TestBrokerUserRules(t *testing.T) {
	check := celChecker(t, "broker-operator.dev_brokerusers.yaml", "BrokerUser")
	acl := func(resource map[string]any, ops ...any) map[string]any {
		return map[string]any{"type": "allow", "host": "*", "resource": resource, "operations": ops}
	}
	spec := func(acls ...any) map[string]any {
		s := map[string]any{"clusterRef": map[string]any{"name": "kafka"}}
		if acls != nil {
			s["authorization"] = map[string]any{"acls": acls}
		}
		return s
	}
	topic := map[string]any{"type": "topic", "name": "orders", "patternType": "literal"}
	withPassword := spec()
	withPassword["authentication"] = map[string]any{"password": map[string]any{"valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "password"}}}}
	for _, tc := range []struct {
		name      string
		metaName  string
		spec, old map[string]any // old nil: a create
		want      string         // "" accepted
	}{
		{"a user without ACLs", "app", spec(), nil, ""},
		{"a topic ACL", "app", spec(acl(topic, "Read", "Write", "Describe")), nil, ""},
		{"a prefixed group ACL", "app", spec(acl(map[string]any{"type": "group", "name": "app-", "patternType": "prefixed"}, "Read")), nil, ""},
		{"a cluster ACL", "app", spec(acl(map[string]any{"type": "cluster"}, "IdempotentWrite", "Describe")), nil, ""},
		{"a transactionalId ACL", "app", spec(acl(map[string]any{"type": "transactionalId", "name": "tx"}, "Write")), nil, ""},
		{"a topic without a name", "app", spec(acl(map[string]any{"type": "topic"}, "Read")), nil, "resource.name is required"},
		{"a cluster with a name", "app", spec(acl(map[string]any{"type": "cluster", "name": "c"}, "Describe")), nil, "resource.name is required"},
		{"a prefixed cluster", "app", spec(acl(map[string]any{"type": "cluster", "patternType": "prefixed"}, "Describe")), nil, "patternType must be literal"},
		{"a topic ACL with IdempotentWrite", "app", spec(acl(topic, "IdempotentWrite")), nil, "a topic ACL's operations are"},
		{"a group ACL with Write", "app", spec(acl(map[string]any{"type": "group", "name": "g"}, "Write")), nil, "a group ACL's operations are"},
		{"a cluster ACL with Read", "app", spec(acl(map[string]any{"type": "cluster"}, "Read")), nil, "a cluster ACL's operations are"},
		{"a transactionalId ACL with Read", "app", spec(acl(map[string]any{"type": "transactionalId", "name": "tx"}, "Read")), nil, "a transactionalId ACL's operations are"},
		{"a name too long for the generated Secret", strings.Repeat("a", 242), spec(), nil, "the generated Secret is named"},
		{"a long name with a password Secret", strings.Repeat("a", 242), withPassword, nil, ""},
		{"clusterRef changed", "app", map[string]any{"clusterRef": map[string]any{"name": "other"}}, spec(), "spec.clusterRef is immutable"},
		{"ACLs changed", "app", spec(acl(topic, "Read")), spec(), ""},
	} {
		check(tc.name, tc.metaName, tc.spec, tc.old, tc.want)
	}
}
