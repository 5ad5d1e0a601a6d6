package admintest

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/broker-operator/broker-operator/pkg/admin"
)

// clusterConfig is a cluster's configuration: the values set away from the defaults, the
// version of the last write, and what each broker has applied (cluster/config_manager.cc).
type clusterConfig struct {
	version int64
	values  map[string]any // set properties: canonical values; unknown ones as sent (force)
	invalid map[string]bool
	unknown map[string]bool
	nodes   map[int]*nodeConfig // by node ID
}

// nodeConfig is one broker's config_status: the version it applied and whether a property it
// applied waits for a restart (config_manager.cc apply_delta: restart |= needs_restart && changed).
type nodeConfig struct {
	version int64
	restart bool
}

// cfg returns the cluster's configuration state, made on first use. Callers hold s.mu.
func (c *Cluster) cfg() *clusterConfig {
	if c.config == nil {
		c.config = &clusterConfig{values: map[string]any{}, invalid: map[string]bool{}, unknown: map[string]bool{}, nodes: map[int]*nodeConfig{}}
		if c.sec.Username != "" {
			// What the operator's .bootstrap.yaml sets when the cluster is created with auth.
			c.config.values["admin_api_require_auth"] = true
			c.config.values["superusers"] = []string{c.sec.Username}
		}
	}
	return c.config
}

// configRestarted records that the broker's process started again: it loads every property, so
// nothing waits for a restart any more and it has the current version. Callers hold s.mu.
func (c *Cluster) configRestarted(nodeID int) {
	cc := c.cfg()
	cc.nodes[nodeID] = &nodeConfig{version: cc.version}
}

// handleClusterConfig answers /v1/cluster_config and /v1/cluster_config/status as server.cc
// does (get_cluster_config, register_cluster_config_routes, patch_cluster_config_handler).
func (c *Cluster) handleClusterConfig(req request, method string) reply {
	switch {
	case req.rest == "/v1/cluster_config" && method == http.MethodGet:
		return c.getClusterConfig(req)
	case req.rest == "/v1/cluster_config" && method == http.MethodPut:
		return c.patchClusterConfig(req)
	case req.rest == "/v1/cluster_config/status" && method == http.MethodGet:
		return c.clusterConfigStatus()
	default:
		return errorReply(http.StatusNotFound, "Not found")
	}
}

// getClusterConfig: every known property with include_defaults (the default), otherwise only
// those whose value is not the default, whether or not it was ever written (the handler filters
// on base_property::is_default, which config/property.h defines as _value == _default); key=
// names one property, 400 "Unknown property {key}" when there is none.
func (c *Cluster) getClusterConfig(req request) reply {
	cc := c.cfg()
	current := func(name string) any {
		if v, ok := cc.values[name]; ok {
			if knownProperties[name].secret && !reflect.DeepEqual(v, knownProperties[name].def) {
				return secretPlaceholder
			}
			return v
		}
		return knownProperties[name].def
	}
	if key := req.query.Get("key"); key != "" {
		if _, ok := knownProperties[key]; !ok {
			return errorReply(http.StatusBadRequest, "Unknown property {%s}", key)
		}
		return reply{status: http.StatusOK, body: map[string]any{key: current(key)}}
	}
	includeDefaults := true
	if v := req.query.Get("include_defaults"); v != "" {
		includeDefaults, _ = yamlBool(v)
		includeDefaults = includeDefaults || v == "1"
	}
	out := map[string]any{}
	for name := range knownProperties {
		if v, set := cc.values[name]; includeDefaults || (set && !reflect.DeepEqual(v, knownProperties[name].def)) {
			out[name] = current(name)
		}
	}
	return reply{status: http.StatusOK, body: out}
}

// patchBody is the request body; the handler's schema requires both keys and nothing else.
type patchBody struct {
	Upsert map[string]json.RawMessage `json:"upsert"`
	Remove []string                   `json:"remove"`
}

func decodePatch(body []byte) (patchBody, bool) {
	var raw map[string]json.RawMessage
	if json.Unmarshal(body, &raw) != nil || len(raw) != 2 || raw["upsert"] == nil || raw["remove"] == nil {
		return patchBody{}, false
	}
	var p patchBody
	if json.Unmarshal(body, &p) != nil || p.Upsert == nil || p.Remove == nil {
		return patchBody{}, false
	}
	return p, true
}

// patchClusterConfig is patch_cluster_config_handler. Without force, every upsert and remove is
// validated first and any error answers 400 with a JSON object of property name to reason,
// changing nothing. dry_run stops there and answers the current version. Upserts that change
// nothing and no removes answer the current version without a write. Otherwise the version goes
// up by one and every running broker applies it (config_manager.cc).
func (c *Cluster) patchClusterConfig(req request) reply {
	p, ok := decodePatch(req.body)
	if !ok {
		// apply_validator: the JSON schema failed.
		return errorReply(http.StatusBadRequest, "JSON request body does not conform to schema")
	}
	cc := c.cfg()
	force := boolParam(req.query.Get("force"))
	parsed := map[string]any{}
	errs := map[string]string{}
	for name, raw := range p.Upsert {
		prop, known := knownProperties[name]
		if !known {
			errs[name] = "Unknown property"
			continue
		}
		v, msg := prop.parse(raw)
		if msg != "" {
			errs[name] = msg
			continue
		}
		parsed[name] = v
	}
	for _, name := range p.Remove {
		if _, known := knownProperties[name]; !known {
			errs[name] = "Unknown property"
		}
	}
	if len(errs) == 0 {
		c.checkCloudStorage(parsed, p.Remove, errs)
		c.checkAdminAuth(req.user, p, parsed, errs)
	}
	if len(errs) > 0 && !force {
		return reply{status: http.StatusBadRequest, body: errs}
	}
	if boolParam(req.query.Get("dry_run")) {
		return reply{status: http.StatusOK, body: map[string]int64{"config_version": cc.version}}
	}
	if len(p.Remove) == 0 && len(errs) == 0 && c.allNoOps(parsed) {
		return reply{status: http.StatusOK, body: map[string]int64{"config_version": cc.version}}
	}
	c.applyPatch(p, parsed, errs)
	return reply{status: http.StatusOK, body: map[string]int64{"config_version": cc.version}}
}

// allNoOps reports whether every upsert sets the value the property has already.
func (c *Cluster) allNoOps(parsed map[string]any) bool {
	for name, v := range parsed {
		if !reflect.DeepEqual(c.currentValue(name), v) {
			return false
		}
	}
	return true
}

func (c *Cluster) currentValue(name string) any {
	if v, ok := c.cfg().values[name]; ok {
		return v
	}
	return knownProperties[name].def
}

// applyPatch writes a new version and applies it on every running broker. A property that was
// forced in although unknown or invalid is listed so in each broker's status.
func (c *Cluster) applyPatch(p patchBody, parsed map[string]any, errs map[string]string) {
	cc := c.cfg()
	cc.version++
	restart := false
	for name, v := range parsed {
		changed := !reflect.DeepEqual(c.currentValue(name), v)
		cc.values[name] = v
		delete(cc.invalid, name)
		delete(cc.unknown, name)
		restart = restart || (changed && knownProperties[name].needsRestart)
	}
	for name := range errs {
		if _, known := knownProperties[name]; known {
			cc.invalid[name] = true
		} else if _, upserted := p.Upsert[name]; upserted {
			cc.unknown[name] = true
		}
	}
	for _, name := range p.Remove {
		prop, known := knownProperties[name]
		if !known {
			continue // config_manager.cc: removing an unknown property is a no-op
		}
		delete(cc.values, name)
		delete(cc.invalid, name)
		restart = restart || prop.needsRestart
	}
	for _, m := range c.members {
		if m.status == admin.MembershipRemoved || !c.podRunning[m.pod] || c.byPod[m.pod] != m {
			continue // a broker that is not running applies the change when it starts
		}
		n := cc.nodes[m.nodeID]
		if n == nil {
			n = &nodeConfig{}
			cc.nodes[m.nodeID] = n
		}
		n.version = cc.version
		n.restart = n.restart || restart
	}
}

// clusterConfigStatus lists each member's config_status, invalid and unknown always present
// (server.cc pushes a dummy element so seastar does not hide empty lists).
func (c *Cluster) clusterConfigStatus() reply {
	cc := c.cfg()
	type statusJSON struct {
		NodeID        int      `json:"node_id"`
		Restart       bool     `json:"restart"`
		ConfigVersion int64    `json:"config_version"`
		Invalid       []string `json:"invalid"`
		Unknown       []string `json:"unknown"`
	}
	out := []statusJSON{}
	for _, m := range c.brokersLocked() {
		if m.status == admin.MembershipRemoved {
			continue
		}
		st := statusJSON{NodeID: m.nodeID, Invalid: sortedKeys(cc.invalid), Unknown: sortedKeys(cc.unknown)}
		if n := cc.nodes[m.nodeID]; n != nil {
			st.Restart, st.ConfigVersion = n.restart, n.version
		}
		out = append(out, st)
	}
	return reply{status: http.StatusOK, body: out}
}

// sortedKeys is never nil: an empty list is written as [], not null.
func sortedKeys(m map[string]bool) []string {
	return append([]string{}, slices.Sorted(maps.Keys(m))...)
}

// boolParam is admin/util.cc get_boolean_query_param: "true" in any case, or "1".
func boolParam(v string) bool {
	return strings.EqualFold(v, "true") || v == "1"
}

// secretPlaceholder is what GET answers for a secret property's value (config/base_property.h).
const secretPlaceholder = "[secret]"

// maxConfigBody bounds the PUT /v1/cluster_config body the simulator reads.
const maxConfigBody = 1 << 20
