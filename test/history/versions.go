package history

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// revision is one resourceVersion of one resource. Revisions are compared per resource: a
// resource may be stored in an etcd of its own (--etcd-servers-overrides), whose revisions
// coincide with the others'.
type revision struct{ resource, rv string }

// version is what one event says about a revision: whose it was.
type version struct {
	key     Key
	uid, rv string // uid "" when the event did not say
	// made: a write's answer or an audit entry's object, so a write produced it; false for a
	// write's precondition and a delete's resourceVersion, which only name its owner.
	made bool
	// start is the producing event's start on the timeline; math.MinInt64 for an audit entry,
	// whose clock is the apiserver's.
	start int64
	// witness is the event, when it is a history's; from names it for a detail.
	witness *ref
	from    string
}

// kept is a span in which a key kept one version: a write with precondition from succeeded
// and was answered to, so the key was at from until that write moved it to to.
type kept struct {
	from, to string
	write    ref
	// widest is the index, among the key's spans sorted by from up to this one, of the one
	// that reaches furthest: spans of a real history never overlap, a planted one's may.
	widest int
}

// versions indexes what the histories and the audit log say about revisions and UIDs.
type versions struct {
	at   map[revision][]version
	kept map[Key][]kept
	// owner is, by UID, the first event that named the UID with its key; created, the create
	// answered with it (the lowest, if several).
	owner, created map[string]version
	// floor is, by resource, the lowest resourceVersion a recorded write made: a create's, or
	// one a write with a precondition was answered above it.
	floor map[string]string
}

// newVersions indexes the successful writes and the deletes of every history, and the audit
// log's successful entries that answer the object itself (no subresource but status and scale).
func newVersions(in Input, tl *timeline) *versions {
	v := &versions{at: map[revision][]version{}, kept: map[Key][]kept{}, owner: map[string]version{},
		created: map[string]version{}, floor: map[string]string{}}
	for _, r := range tl.collect(func(e *Event) bool { return e.Kind == KindWrite && e.Succeeded() || e.Kind == KindDelete }) {
		e := tl.event(r)
		if e.Key.Name == "" || e.Verb == "deletecollection" {
			continue // a collection's answer is a list, whose resourceVersion is nobody's
		}
		w := version{key: e.Key, uid: e.UID, made: e.Kind == KindWrite, start: r.start, witness: &r,
			from: fmt.Sprintf("%s of %s by %s", verbOf(e), e.Key, tl.process(r))}
		v.add(e.RV, e.Verb, w)
		if e.Kind == KindWrite && wellFormed(e.Precondition) {
			pre := w
			pre.made = false
			v.add(e.Precondition, "", pre)
			if wellFormed(e.RV) && compareRV(e.RV, e.Precondition) > 0 {
				v.kept[e.Key] = append(v.kept[e.Key], kept{from: e.Precondition, to: e.RV, write: r})
				v.lower(e.Key.Resource, e.RV)
			}
		}
	}
	if in.Audit != nil {
		for _, a := range in.Audit.Entries {
			if !a.Succeeded() || a.Key.Name == "" || a.Subresource != "" && a.Subresource != "status" && a.Subresource != "scale" {
				continue
			}
			v.add(a.RV, a.Verb, version{key: a.Key, uid: a.UID, made: true, start: math.MinInt64,
				from: fmt.Sprintf("%s of %s (audit %s, line %d)", a.Verb, a.Key, a.AuditID, a.Line)})
		}
	}
	for _, spans := range v.kept {
		slices.SortFunc(spans, func(a, b kept) int { return compareRV(a.from, b.from) })
		for j := range spans {
			if spans[j].widest = j; j > 0 && compareRV(spans[spans[j-1].widest].to, spans[j].to) > 0 {
				spans[j].widest = spans[j-1].widest
			}
		}
	}
	return v
}

// keeping returns the span of key that holds rv strictly inside it.
func (v *versions) keeping(key Key, rv string) (kept, bool) {
	spans := v.kept[key]
	j := sort.Search(len(spans), func(j int) bool { return compareRV(spans[j].from, rv) >= 0 })
	if j == 0 {
		return kept{}, false
	}
	s := spans[spans[j-1].widest]
	return s, compareRV(rv, s.to) < 0
}

func verbOf(e *Event) string {
	if e.Kind == KindDelete {
		return "delete " + string(e.Source)
	}
	return e.Verb
}

// add records that rv ("" or malformed: none) of verb's object was w's.
func (v *versions) add(rv, verb string, w version) {
	w.rv = rv
	if w.uid != "" {
		if _, ok := v.owner[w.uid]; !ok {
			v.owner[w.uid] = w
		}
	}
	if !wellFormed(rv) {
		return
	}
	v.at[revision{w.key.Resource, rv}] = append(v.at[revision{w.key.Resource, rv}], w)
	if verb != "create" || !w.made {
		return
	}
	v.lower(w.key.Resource, rv)
	if c, ok := v.created[w.uid]; w.uid != "" && (!ok || compareRV(rv, c.rv) < 0) {
		v.created[w.uid] = w
	}
}

func (v *versions) lower(resource, rv string) {
	if f, ok := v.floor[resource]; !ok || compareRV(rv, f) < 0 {
		v.floor[resource] = rv
	}
}

// named returns the first event that gave key's revision rv a UID other than except ("": any).
func (v *versions) named(key Key, rv, except string) (version, bool) {
	for _, w := range v.at[revision{key.Resource, rv}] {
		if w.key == key && w.uid != "" && w.uid != except {
			return w, true
		}
	}
	return version{}, false
}
