package soak

import (
	"net/http"
	"strings"
)

// request is what one REST request addresses, as the apiserver's request info resolver would
// classify the paths a typed client produces (/api/v1/... and /apis/GROUP/VERSION/...).
type request struct {
	verb, resource string
	// listing is a request that reads a whole collection from scratch: a list, or a watch that
	// asks for the initial state (sendInitialEvents). An informer makes one when it starts and
	// one each time it must relist.
	listing bool
}

// Verbs as the apiserver's audit log names them, in report order.
var Verbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "other"}

func classify(r *http.Request) request {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		segs = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		segs = segs[3:]
	default:
		return request{verb: "other"}
	}
	if len(segs) >= 3 && segs[0] == "namespaces" {
		segs = segs[2:]
	}
	var out request
	if len(segs) > 0 {
		out.resource = segs[0]
	}
	named := len(segs) > 1
	q := r.URL.Query()
	switch r.Method {
	case http.MethodGet:
		switch {
		case q.Get("watch") == "true" || q.Get("watch") == "1":
			out.verb = "watch"
			out.listing = q.Get("sendInitialEvents") == "true"
		case named:
			out.verb = "get"
		default:
			out.verb, out.listing = "list", true
		}
	case http.MethodPost:
		out.verb = "create"
	case http.MethodPut:
		out.verb = "update"
	case http.MethodPatch:
		out.verb = "patch"
	case http.MethodDelete:
		out.verb = "delete"
		if !named {
			out.verb = "deletecollection"
		}
	default:
		out.verb = "other"
	}
	return out
}

// changesObject reports whether a successful request of this verb answers with the object it
// wrote.
func (r request) changesObject() bool {
	return r.verb == "create" || r.verb == "update" || r.verb == "patch"
}
