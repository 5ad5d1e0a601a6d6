package admintest

import (
	"reflect"
	"slices"
)

// checkAdminAuth is the admin API part of config_multi_property_validation
// (redpanda-data/redpanda src/v/redpanda/admin/server.cc): a write that upserts
// admin_api_require_auth or superusers and leaves authentication required must leave a
// superuser, and, while authentication is not required yet, the caller (user, "" for anonymous)
// must be one of them, or it would lock itself out. Errors go into errs. Callers hold s.mu.
func (c *Cluster) checkAdminAuth(user string, p patchBody, parsed map[string]any, errs map[string]string) {
	_, authTouched := p.Upsert["admin_api_require_auth"]
	_, supersTouched := p.Upsert["superusers"]
	if !authTouched && !supersTouched {
		return
	}
	after := func(name string) any {
		if slices.Contains(p.Remove, name) {
			return knownProperties[name].def
		}
		if v, ok := parsed[name]; ok {
			return v
		}
		return c.currentValue(name)
	}
	if !reflect.DeepEqual(after("admin_api_require_auth"), true) {
		return
	}
	supers, _ := after("superusers").([]string)
	wasOn := c.currentValue("admin_api_require_auth") == true
	switch {
	case len(supers) == 0:
		errs["admin_api_require_auth"] = "No superusers defined"
	case !slices.Contains(supers, user) && !wasOn:
		errs["admin_api_require_auth"] = "May only be set by a superuser"
	}
}
