package history

import "fmt"

// checkReal judges every read that found its key at a resourceVersion that parsed against
// RealVersions and RealUIDs, across processes, by what v says the revisions and UIDs were.
func checkReal(in Input, tl *timeline, v *versions) {
	for _, r := range tl.collect(func(e *Event) bool { return e.Kind == KindRead && e.Found && wellFormed(e.RV) }) {
		realVersion(in, tl, v, r)
		if tl.event(r).UID != "" {
			realUID(tl, v, r)
		}
	}
}

// realVersion: the read's revision is no other object's, lies in no span in which its key
// kept one version and, with in.AllWrites and at or above its resource's floor, a write of
// its key had produced it by the time the read ended.
func realVersion(in Input, tl *timeline, v *versions, r ref) {
	e := tl.event(r)
	at, spans := v.at[revision{e.Key.Resource, e.RV}], v.kept[e.Key]
	floor, full := v.floor[e.Key.Resource]
	full = full && in.AllWrites && compareRV(e.RV, floor) >= 0
	if len(at) == 0 && len(spans) == 0 && !full {
		return
	}
	tl.checks[r.h].judge(RealVersions, r.i)
	for _, w := range at {
		if w.key != e.Key {
			tl.violate(RealVersions, r, fmt.Sprintf("read %s at resourceVersion %s, a revision of another object: %s", e.Key, e.RV, w.from), w.witness)
			return
		}
	}
	if s, ok := v.keeping(e.Key, e.RV); ok {
		w := tl.event(s.write)
		tl.violate(RealVersions, r, fmt.Sprintf("read resourceVersion %s, which %s never had: it was at %s until a %s by %s (precondition %s) moved it to %s",
			e.RV, e.Key, s.from, w.Verb, tl.process(s.write), s.from, s.to), &s.write)
		return
	}
	if !full {
		return
	}
	for _, w := range at {
		if w.made && w.start < r.end {
			return
		}
	}
	tl.violate(RealVersions, r, fmt.Sprintf("read resourceVersion %s, which no write of %s had produced when the read ended, though every write is recorded "+
		"from %s on (the lowest resourceVersion a recorded write of %s made)", e.RV, e.Key, floor, e.Key.Resource), nil)
}

// realUID: the read's UID is no other key's, is the UID any event gave its key's revision,
// and was created at or below the read's resourceVersion.
func realUID(tl *timeline, v *versions, r ref) {
	e := tl.event(r)
	owner, owned := v.owner[e.UID]
	created, made := v.created[e.UID]
	_, named := v.named(e.Key, e.RV, "")
	if !owned && !made && !named {
		return
	}
	other, differs := v.named(e.Key, e.RV, e.UID)
	tl.checks[r.h].judge(RealUIDs, r.i)
	switch {
	case owned && owner.key != e.Key:
		tl.violate(RealUIDs, r, fmt.Sprintf("read %s with UID %s, another object's: %s", e.Key, e.UID, owner.from), owner.witness)
	case differs:
		tl.violate(RealUIDs, r, fmt.Sprintf("read UID %s at resourceVersion %s, which was UID %s's: %s", e.UID, e.RV, other.uid, other.from), other.witness)
	case made && compareRV(e.RV, created.rv) < 0:
		tl.violate(RealUIDs, r, fmt.Sprintf("read UID %s at resourceVersion %s, before it was created at %s: %s", e.UID, e.RV, created.rv, created.from), created.witness)
	}
}
