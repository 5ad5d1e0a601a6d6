package writeback

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// lookup by namespace and name must hash exactly as get by key does.
func TestHashNamespacedIsHashKey(t *testing.T) {
	for _, c := range [][2]string{{"ns", "a"}, {"", "cluster-scoped"}, {"a-long-namespace-name-beyond-one-block-of-the-hash", "and-a-name-that-is-long-as-well-0123456789-0123456789-0123456789-0123456789"}} {
		if hashNamespaced(c[0], c[1]) != hashKey(keyOf(c[0], c[1])) {
			t.Errorf("%q/%q hashes differently by parts and by key", c[0], c[1])
		}
	}
}

// Random puts and removals against a map: every lookup agrees, through rebuilds.
func TestEntryTableAgainstMap(t *testing.T) {
	var s entries
	s.init()
	model := map[string]*entry{}
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 200_000 {
		ns, name := fmt.Sprintf("ns-%d", r.IntN(3)), fmt.Sprintf("n-%d", r.IntN(3000))
		key := keyOf(ns, name)
		if r.IntN(3) == 0 {
			if e := model[key]; e != nil {
				if !s.removeLocked(e) {
					t.Fatalf("step %d: remove of %s failed", step, key)
				}
				delete(model, key)
			}
		} else {
			e := &entry{key: key, namespace: ns, name: name}
			old := s.putLocked(e)
			if old != model[key] {
				t.Fatalf("step %d: put of %s replaced %p, want %p", step, key, old, model[key])
			}
			model[key] = e
		}
		if step%1000 == 0 || step > 199_000 {
			if s.len() != len(model) {
				t.Fatalf("step %d: %d entries, want %d", step, s.len(), len(model))
			}
			for k, e := range model {
				if s.get(k) != e || s.lookup(e.namespace, e.name) != e {
					t.Fatalf("step %d: %s not found", step, k)
				}
			}
			if got := len(s.all()); got != len(model) {
				t.Fatalf("step %d: all() has %d, want %d", step, got, len(model))
			}
		}
	}
	if s.get("ns-9/none") != nil {
		t.Fatal("found a key never put")
	}
}
