package writeback

// snapshot is an immutable view of the overlay's entries. Writers build a new snapshot and
// publish it atomically, so readers never lock and never see a half-made change.
type snapshot struct {
	byKey map[string]*entry
	// list holds the same entries, for walks that need a stable order.
	list []*entry
	// byName finds entries from an object's name without building its key (List scans every
	// informer item and must not allocate per item).
	byName map[string][]*entry
	// keys and names are cheap pre-checks: most lookups miss, and a bit test is much cheaper
	// than hashing a whole string into a map.
	keys  bitFilter
	names bitFilter
}

var emptySnapshot = &snapshot{}

func (s *snapshot) len() int { return len(s.byKey) }

func (s *snapshot) get(key string) *entry {
	if len(s.byKey) == 0 || !s.keys.mayContain(key) {
		return nil
	}
	return s.byKey[key]
}

// lookup finds the entry for namespace/name without allocating.
func (s *snapshot) lookup(namespace, name string) *entry {
	if !s.names.mayContain(name) {
		return nil
	}
	for _, e := range s.byName[name] {
		if e.namespace == namespace {
			return e
		}
	}
	return nil
}

// with returns a copy of s in which key maps to e, or key is absent when e is nil.
func (s *snapshot) with(key string, e *entry) *snapshot {
	n := &snapshot{byKey: make(map[string]*entry, len(s.byKey)+1)}
	for k, old := range s.byKey {
		if k != key {
			n.byKey[k] = old
		}
	}
	if e != nil {
		n.byKey[key] = e
	}
	n.index()
	return n
}

// without returns a copy of s with every key in drop removed.
func (s *snapshot) without(drop map[string]bool) *snapshot {
	n := &snapshot{byKey: make(map[string]*entry, len(s.byKey))}
	for k, e := range s.byKey {
		if !drop[k] {
			n.byKey[k] = e
		}
	}
	n.index()
	return n
}

func (s *snapshot) index() {
	s.byName = make(map[string][]*entry, len(s.byKey))
	s.list = make([]*entry, 0, len(s.byKey))
	for k, e := range s.byKey {
		s.list = append(s.list, e)
		s.keys.add(k)
		s.names.add(e.name)
		s.byName[e.name] = append(s.byName[e.name], e)
	}
}

// bitFilter is a one-hash Bloom filter over strings: false means "surely absent".
type bitFilter [64]uint64

func filterHash(s string) uint {
	// The length, the last three bytes and the middle one, mixed by one multiplication: names
	// of one kind tend to share their prefix and differ at the end, and this must stay much
	// cheaper than the map lookup it saves. Collisions only cost that lookup.
	n := len(s)
	h := uint64(n)
	if n >= 3 {
		h |= uint64(s[n-1])<<8 | uint64(s[n-2])<<16 | uint64(s[n-3])<<24 | uint64(s[n/2])<<32
	} else if n > 0 {
		h |= uint64(s[0])<<8 | uint64(s[n-1])<<16
	}
	h *= 0x9E3779B97F4A7C15
	return uint(h >> 52) // 12 bits
}

func (f *bitFilter) add(s string) {
	h := filterHash(s)
	f[h>>6] |= 1 << (h & 63)
}

func (f *bitFilter) mayContain(s string) bool {
	h := filterHash(s)
	return f[h>>6]&(1<<(h&63)) != 0
}
