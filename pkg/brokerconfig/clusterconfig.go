package brokerconfig

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
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

// Diff compares the spec's properties with the brokers' current configuration (GET
// /v1/cluster_config without defaults: the properties set away from them). previous are the
// properties the operator applied before (status.clusterConfig.applied and pendingRestart):
// only those are removed when they leave the spec, so a property set with rpk is left alone.
func Diff(desired map[string]string, current map[string]json.RawMessage, previous []string) ConfigDiff {
	d := ConfigDiff{Upsert: map[string]json.RawMessage{}}
	for _, name := range slices.Sorted(maps.Keys(desired)) {
		want := ParseValue(desired[name])
		if have, ok := current[name]; ok && SameValue(want, have) {
			d.Unchanged = append(d.Unchanged, name)
			continue
		}
		d.Upsert[name] = want
	}
	for _, name := range slices.Sorted(slices.Values(previous)) {
		if _, wanted := desired[name]; wanted || slices.Contains(d.Remove, name) {
			continue
		}
		if _, set := current[name]; set {
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
