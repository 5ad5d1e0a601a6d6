package brokerconfig

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// ParseValue is the JSON value of a spec.clusterConfig entry: the text itself when it is valid
// JSON ("true", "134217728", "[\"SCRAM\"]", "\"text\""), otherwise the text as a JSON string.
// The chart's extraClusterConfiguration likewise carries values as strings
// (charts/redpanda/values.go, ClusterConfiguration).
func ParseValue(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// ConfigDiff is what a PUT /v1/cluster_config must carry to bring the brokers to the spec.
type ConfigDiff struct {
	// Upsert are the properties whose desired value the brokers do not have.
	Upsert map[string]json.RawMessage
	// Remove are properties the operator set before and the spec no longer names: they go back
	// to their defaults.
	Remove []string
	// Unchanged are the desired properties the brokers have already, sorted.
	Unchanged []string
}

// Empty reports whether nothing needs writing.
func (d ConfigDiff) Empty() bool { return len(d.Upsert) == 0 && len(d.Remove) == 0 }

// Current is the brokers' cluster configuration as GET /v1/cluster_config answers it.
type Current struct {
	// All is the answer with include_defaults: every property's value in effect.
	All map[string]json.RawMessage
	// Set is the answer without: the properties whose value is not their default. Redpanda
	// filters on the value, not on whether it was ever written (config/property.h,
	// is_default), so a property written with its default value is not in Set.
	Set map[string]json.RawMessage
}

// Diff compares the desired properties with the brokers' current configuration. A desired
// value the brokers have in effect, default or not, is unchanged: writing it again would only
// raise config_version. previous are the properties the operator applied before
// (status.clusterConfig.managed): only those are removed when they leave the desired set, and
// only when they are away from their default, so a property set with rpk is left alone.
func Diff(desired map[string]string, current Current, previous []string) ConfigDiff {
	d := ConfigDiff{Upsert: map[string]json.RawMessage{}}
	for _, name := range slices.Sorted(maps.Keys(desired)) {
		want := ParseValue(desired[name])
		have, ok := current.All[name]
		if !ok {
			have, ok = current.Set[name]
		}
		if ok && SameValue(want, have) {
			d.Unchanged = append(d.Unchanged, name)
			continue
		}
		d.Upsert[name] = want
	}
	for _, name := range slices.Sorted(slices.Values(previous)) {
		if _, wanted := desired[name]; wanted || slices.Contains(d.Remove, name) {
			continue
		}
		if _, set := current.Set[name]; set {
			d.Remove = append(d.Remove, name)
		}
	}
	return d
}

// SameValue reports whether two JSON values are the same property value to Redpanda, which
// decodes each as YAML (src/v/redpanda/admin/server.cc, patch_cluster_config_handler): equal
// JSON, or scalars with the same text ("128" and 128, "true" and true).
func SameValue(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	if reflect.DeepEqual(x, y) {
		return true
	}
	sx, okx := scalarText(x)
	sy, oky := scalarText(y)
	return okx && oky && sx == sy
}

func scalarText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case bool:
		return strconv.FormatBool(t), true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	}
	return "", false
}

// Desired is every cluster property the operator brings the brokers to: spec.clusterConfig and
// the properties it derives from the rest of the spec (ClusterProperties), as JSON text. The
// CRD refuses the derived names in spec.clusterConfig, so the two never collide.
func Desired(bc *v1alpha1.BrokerCluster) map[string]string {
	out := maps.Clone(bc.Spec.ClusterConfig)
	if out == nil {
		out = map[string]string{}
	}
	for name, v := range ClusterProperties(bc) {
		b, err := json.Marshal(v)
		if err != nil {
			panic(fmt.Sprintf("brokerconfig: marshal %s: %v", name, err)) // bools and string lists always marshal
		}
		out[name] = string(b)
	}
	return out
}

// DesiredNames are the names of every property the operator brings the brokers to: Desired's
// and the cloud storage keys bc's Secret sets (CredentialProperties), sorted.
func DesiredNames(bc *v1alpha1.BrokerCluster) []string {
	names := slices.Collect(maps.Keys(Desired(bc)))
	names = append(names, CredentialProperties(bc)...)
	slices.Sort(names)
	return slices.Compact(names)
}
