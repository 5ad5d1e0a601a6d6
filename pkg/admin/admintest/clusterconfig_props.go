package admintest

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// property is one cluster property the simulator knows, as redpanda-data/redpanda
// src/v/config/configuration.cc declares it: its default, whether a change needs a restart
// (needs_restart::yes is the default of base_property::metadata, config/base_property.h) and
// its validation (config/bounded_property.h, config/validators.cc).
type property struct {
	kind         propertyKind
	needsRestart bool
	def          any    // the default, as JSON would carry it (nil for null)
	example      string // metadata example, quoted in type errors
	min, align   int64  // integer bounds; 0 for none
	odd          bool
	validate     func([]string) string // for string lists; "" means valid
	// secret: is_secret::yes. GET /v1/cluster_config answers "[secret]" for its value unless
	// it is at its default (config/property.h to_json, redact_secrets::yes;
	// config/base_property.h secret_placeholder).
	secret bool
	enum   []string // accepted values of an enum property (kindEnum)
}

type propertyKind int

const (
	kindBool propertyKind = iota
	kindInt
	kindOptionalInt
	kindStringList
	// kindOptionalString is std::optional<ss::sstring> with validate_non_empty_string_opt
	// (config/validators.cc): null or a string that is not empty.
	kindOptionalString
	// kindEnum is enum_property: one of enum, as a string.
	kindEnum
)

// typeName is config/property.h property_type_name: what "expected type ..." names.
func (k propertyKind) typeName() string {
	switch k {
	case kindBool:
		return "boolean"
	case kindInt, kindOptionalInt:
		return "integer"
	case kindEnum:
		return "string"
	default:
		return "string"
	}
}

// knownProperties are the properties modelled; any other name is "Unknown property", as it is to
// a Redpanda release that lacks it.
var knownProperties = map[string]property{
	// configuration.cc: needs_restart::no, default false.
	"enable_rack_awareness":      {kind: kindBool, def: false},
	"auto_create_topics_enabled": {kind: kindBool, def: false},
	"enable_sasl":                {kind: kindBool, def: false},
	// needs_restart::no, example "2147483648", default 128_MiB, min 1_MiB.
	"log_segment_size": {kind: kindInt, def: int64(128 << 20), example: "2147483648", min: 1 << 20},
	// needs_restart::no, default 1, min 1, odd.
	"default_topic_replications": {kind: kindInt, def: int64(1), min: 1, odd: true},
	// No needs_restart in its metadata, so needs_restart::yes; example "65536", default null,
	// min 32_KiB, align 4_KiB.
	"kafka_rpc_server_tcp_recv_buf": {kind: kindOptionalInt, needsRestart: true, example: "65536", min: 32 << 10, align: 4 << 10},
	// needs_restart::no, default ["SCRAM"], validate_sasl_mechanisms.
	"sasl_mechanisms": {kind: kindStringList, def: []string{"SCRAM"}, validate: validateSASLMechanisms},
	// needs_restart::no, default [].
	"superusers": {kind: kindStringList, def: []string{}},
	// needs_restart::no, default false; read live by the admin API's authenticator (auth.go).
	"admin_api_require_auth": {kind: kindBool, def: false},
	// needs_restart::no, default 5_GiB, min 10_MiB; and default 5, range 0 to 50 (the maximum
	// is not modelled). The scale-down pre-flight reads both.
	"storage_min_free_bytes":                     {kind: kindInt, def: int64(5 << 30), min: 10 << 20},
	"storage_space_alert_free_threshold_percent": {kind: kindInt, def: int64(5)},
	// Tiered storage, as configuration.cc declares them: cloud_storage_enabled needs_restart::yes,
	// default false; the keys, region and bucket have no needs_restart in their metadata (so
	// yes), default null, validate_non_empty_string_opt; cloud_storage_secret_key and
	// cloud_storage_azure_shared_key are is_secret::yes, the shared key needs_restart::no;
	// cloud_storage_credentials_source needs_restart::yes, default config_file.
	"cloud_storage_enabled":               {kind: kindBool, needsRestart: true, def: false},
	"cloud_storage_access_key":            {kind: kindOptionalString, needsRestart: true},
	"cloud_storage_secret_key":            {kind: kindOptionalString, needsRestart: true, secret: true},
	"cloud_storage_region":                {kind: kindOptionalString, needsRestart: true},
	"cloud_storage_bucket":                {kind: kindOptionalString, needsRestart: true},
	"cloud_storage_azure_storage_account": {kind: kindOptionalString, needsRestart: true},
	"cloud_storage_azure_container":       {kind: kindOptionalString, needsRestart: true},
	"cloud_storage_azure_shared_key":      {kind: kindOptionalString, secret: true},
	"cloud_storage_credentials_source": {kind: kindEnum, needsRestart: true, def: "config_file", example: "config_file",
		enum: []string{"config_file", "aws_instance_metadata", "sts", "gcp_instance_metadata", "azure_aks_oidc_federation", "azure_vm_instance_metadata"}},
}

// validateSASLMechanisms is config/validators.cc validate_sasl_mechanisms.
func validateSASLMechanisms(ms []string) string {
	for _, m := range ms {
		switch m {
		case "GSSAPI", "SCRAM", "OAUTHBEARER", "PLAIN":
		default:
			return fmt.Sprintf("'%s' is not a supported SASL mechanism", m)
		}
	}
	if len(ms) == 1 && ms[0] == "PLAIN" {
		return "When PLAIN is enabled, at least one other mechanism must be enabled"
	}
	return ""
}

// parse converts a JSON value as the property's YAML conversion does (Redpanda re-encodes each
// upserted value and decodes it as YAML, server.cc patch_cluster_config_handler): a scalar
// converts from its text, quoted or not. It returns the canonical value or the handler's error.
func (p property) parse(raw json.RawMessage) (any, string) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, p.typeError()
	}
	switch p.kind {
	case kindBool:
		if b, ok := yamlBool(scalarText(v)); ok {
			return b, ""
		}
		return nil, p.typeError()
	case kindOptionalInt, kindInt:
		if v == nil && p.kind == kindOptionalInt {
			return nil, ""
		}
		return p.parseInt(v)
	case kindOptionalString:
		s := scalarText(v)
		switch {
		case v == nil:
			return nil, ""
		case s == "" && v != "":
			return nil, p.typeError() // a list or an object
		case s == "":
			return nil, "Empty string is not valid"
		}
		return s, ""
	case kindEnum:
		// An unknown value fails the conversion; the message is the simulator's own.
		s := scalarText(v)
		if !slices.Contains(p.enum, s) {
			return nil, p.typeError()
		}
		return s, ""
	default:
		list, ok := v.([]any)
		if !ok {
			return nil, p.typeError()
		}
		out := make([]string, 0, len(list))
		for _, e := range list {
			s := scalarText(e)
			if s == "" && e != "" {
				return nil, p.typeError()
			}
			out = append(out, s)
		}
		if p.validate != nil {
			if msg := p.validate(out); msg != "" {
				return nil, msg
			}
		}
		return out, ""
	}
}

// parseInt converts and checks an integer; bounded_property validate's messages, in its order.
func (p property) parseInt(v any) (any, string) {
	n, err := strconv.ParseInt(scalarText(v), 10, 64)
	if err != nil {
		return nil, p.typeError()
	}
	// The modelled integers are int32 or smaller on the broker except log_segment_size (uint64).
	if p.kind == kindOptionalInt && n > math.MaxInt32 {
		return nil, fmt.Sprintf("out of range: '%d'", n)
	}
	switch {
	case p.min != 0 && n < p.min:
		return nil, fmt.Sprintf("too small, must be at least %d", p.min)
	case p.align != 0 && n%p.align != 0:
		return nil, fmt.Sprintf("not aligned, must be aligned to nearest %d", p.align)
	case p.odd && n%2 == 0:
		return nil, "value must be odd"
	}
	return n, ""
}

// typeError is the handler's message for a YAML::BadConversion.
func (p property) typeError() string {
	msg := "expected type " + p.kind.typeName()
	if p.example != "" {
		msg += fmt.Sprintf(", for example '%s'", p.example)
	}
	return msg
}

// scalarText is the YAML text of a JSON scalar; "" for anything else.
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return ""
	}
}

// yamlBool is yaml-cpp's boolean conversion: true/false, yes/no, on/off, y/n, each in lower,
// upper or title case.
func yamlBool(s string) (value, ok bool) {
	for _, w := range []struct {
		word  string
		value bool
	}{{"true", true}, {"yes", true}, {"on", true}, {"y", true}, {"false", false}, {"no", false}, {"off", false}, {"n", false}} {
		title := strings.ToUpper(w.word[:1]) + w.word[1:]
		if s == w.word || s == strings.ToUpper(w.word) || s == title {
			return w.value, true
		}
	}
	return false, false
}
