package race

import (
	"net/http"
	"strings"
)

// Verbs as the apiserver's audit log names them.
const (
	verbGet              = "get"
	verbList             = "list"
	verbWatch            = "watch"
	verbCreate           = "create"
	verbUpdate           = "update"
	verbPatch            = "patch"
	verbDelete           = "delete"
	verbDeleteCollection = "deletecollection"
	verbOther            = "other"
)

// Verbs lists every verb a Recorder counts, in report order.
var Verbs = []string{verbGet, verbList, verbWatch, verbCreate, verbUpdate, verbPatch, verbDelete, verbDeleteCollection, verbOther}

// requestInfo is what a request addresses: the resource (plural), namespace, name and
// subresource, each "" when the path has none.
type requestInfo struct {
	verb, resource, namespace, name, subresource string
}

// parseRequest classifies a REST request from its method and path, as the apiserver's request
// info resolver does for the paths a typed client produces: /api/v1/... and /apis/GROUP/VERSION/...
func parseRequest(r *http.Request) requestInfo {
	var info requestInfo
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		segs = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		segs = segs[3:]
	default:
		info.verb = verbOther
		return info
	}
	if len(segs) >= 3 && segs[0] == "namespaces" {
		info.namespace, segs = segs[1], segs[2:]
	}
	if len(segs) > 0 {
		info.resource = segs[0]
	}
	if len(segs) > 1 {
		info.name = segs[1]
	}
	if len(segs) > 2 {
		info.subresource = segs[2]
	}
	info.verb = verbOf(r, info.name != "")
	return info
}

func verbOf(r *http.Request, named bool) string {
	switch r.Method {
	case http.MethodGet:
		if w := r.URL.Query().Get("watch"); w == "true" || w == "1" {
			return verbWatch
		}
		if named {
			return verbGet
		}
		return verbList
	case http.MethodPost:
		return verbCreate
	case http.MethodPut:
		return verbUpdate
	case http.MethodPatch:
		return verbPatch
	case http.MethodDelete:
		if named {
			return verbDelete
		}
		return verbDeleteCollection
	}
	return verbOther
}

// isWrite reports whether a verb changes an object the response then describes.
func isWrite(verb string) bool {
	return verb == verbCreate || verb == verbUpdate || verb == verbPatch || verb == verbDelete
}
