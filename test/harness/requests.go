package harness

import (
	"net/http"
	"strings"
)

// Verbs as the apiserver's audit log names them.
const (
	VerbGet              = "get"
	VerbList             = "list"
	VerbWatch            = "watch"
	VerbCreate           = "create"
	VerbUpdate           = "update"
	VerbPatch            = "patch"
	VerbDelete           = "delete"
	VerbDeleteCollection = "deletecollection"
	VerbOther            = "other"
)

// Verbs lists every verb Classify returns, in report order.
var Verbs = []string{VerbGet, VerbList, VerbWatch, VerbCreate, VerbUpdate, VerbPatch, VerbDelete, VerbDeleteCollection, VerbOther}

// Request is what one REST request addresses: the resource (plural), namespace, name and
// subresource, each "" when the path has none.
type Request struct {
	Verb, Resource, Namespace, Name, Subresource string
	// Listing is a request that reads a whole collection from scratch: a list, or a watch that
	// asks for the initial state (sendInitialEvents). An informer makes one when it starts and
	// one each time it must relist.
	Listing bool
}

// Classify classifies a REST request from its method and path, as the apiserver's request info
// resolver does for the paths a typed client produces: /api/v1/... and /apis/GROUP/VERSION/...
func Classify(r *http.Request) Request {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		segs = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		segs = segs[3:]
	default:
		return Request{Verb: VerbOther}
	}
	var out Request
	if len(segs) >= 3 && segs[0] == "namespaces" {
		out.Namespace, segs = segs[1], segs[2:]
	}
	if len(segs) > 0 {
		out.Resource = segs[0]
	}
	if len(segs) > 1 {
		out.Name = segs[1]
	}
	if len(segs) > 2 {
		out.Subresource = segs[2]
	}
	out.Verb, out.Listing = verbOf(r, out.Name != "")
	return out
}

// verbOf names a request's verb, and says whether it reads a whole collection from scratch.
func verbOf(r *http.Request, named bool) (string, bool) {
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		if w := q.Get("watch"); w == "true" || w == "1" {
			return VerbWatch, q.Get("sendInitialEvents") == "true"
		}
		if named {
			return VerbGet, false
		}
		return VerbList, true
	case http.MethodPost:
		return VerbCreate, false
	case http.MethodPut:
		return VerbUpdate, false
	case http.MethodPatch:
		return VerbPatch, false
	case http.MethodDelete:
		if named {
			return VerbDelete, false
		}
		return VerbDeleteCollection, false
	}
	return VerbOther, false
}

// Writes reports whether a successful request of this verb changes one object and answers with
// it (a delete answers with the object as it was deleted, or its last state before removal).
func (r Request) Writes() bool {
	return r.Verb == VerbCreate || r.Verb == VerbUpdate || r.Verb == VerbPatch || r.Verb == VerbDelete
}
