package writeback

import (
	"hash/maphash"
	"sync/atomic"
)

// entryTable maps keys to entries. Readers look up without locks or allocations; writers,
// serialised by Overlay.mu, change slots in place, so a write costs the same whatever the
// number of entries. It is open addressing with linear probing. A removed entry leaves a
// marker that lookups step over; when markers and entries fill three quarters of the slots,
// the writer builds a new table and publishes it atomically. A reader still on the old table
// may see an entry that has just left: harmless, because entries leave only once the
// informer's store is at least as new, and reads always compare with the store.
type entryTable struct {
	slots []atomic.Pointer[entry]
	mask  uint64
	// used counts the slots that are not nil (entries and markers). Writers only.
	used int
}

// vacated marks a slot whose entry was removed.
var vacated = &entry{}

var tableSeed = maphash.MakeSeed()

// hashKey hashes a key with the runtime's own string hash.
func hashKey(key string) uint64 { return maphash.String(tableSeed, key) }

// hashNamespaced is hashKey(namespace + "/" + name) without building the key: a maphash.Hash
// gives the same sum however the bytes are split into writes.
func hashNamespaced(namespace, name string) uint64 {
	if namespace == "" {
		return maphash.String(tableSeed, name)
	}
	var h maphash.Hash
	h.SetSeed(tableSeed)
	_, _ = h.WriteString(namespace)
	_ = h.WriteByte('/')
	_, _ = h.WriteString(name)
	return h.Sum64()
}

func newEntryTable(size int) *entryTable {
	return &entryTable{slots: make([]atomic.Pointer[entry], size), mask: uint64(size - 1)}
}

// get finds the entry for key.
func (t *entryTable) get(key string) *entry {
	for i := hashKey(key) & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i].Load()
		if e == nil {
			return nil
		}
		if e.key == key && e != vacated {
			return e
		}
	}
}

// lookup finds the entry for namespace/name without building the key.
func (t *entryTable) lookup(namespace, name string) *entry {
	for i := hashNamespaced(namespace, name) & t.mask; ; i = (i + 1) & t.mask {
		e := t.slots[i].Load()
		if e == nil {
			return nil
		}
		if e.name == name && e.namespace == namespace && e != vacated {
			return e
		}
	}
}

// entries is the overlay's set of entries: the table, its size, and filters that answer "no
// entry" for most keys with a bit of arithmetic and one load.
type entries struct {
	table atomic.Pointer[entryTable]
	n     atomic.Int64
	keys  countingFilter
	names countingFilter
}

func (s *entries) init() { s.table.Store(newEntryTable(16)) }

func (s *entries) len() int { return int(s.n.Load()) }

// get finds the entry for key, or nil.
func (s *entries) get(key string) *entry {
	if s.n.Load() == 0 || !s.keys.mayContain(key) {
		return nil
	}
	return s.table.Load().get(key)
}

// lookup finds the entry for namespace/name, or nil.
func (s *entries) lookup(namespace, name string) *entry {
	if s.n.Load() == 0 || !s.names.mayContain(name) {
		return nil
	}
	return s.table.Load().lookup(namespace, name)
}

// all returns the entries held now; List and ByIndex work on this list, taken before they
// read the informer's store, so that an entry leaving meanwhile is still compared.
func (s *entries) all() []*entry {
	t := s.table.Load()
	out := make([]*entry, 0, s.n.Load())
	for i := range t.slots {
		if e := t.slots[i].Load(); e != nil && e != vacated {
			out = append(out, e)
		}
	}
	return out
}

// putLocked stores e for its key and returns the entry it replaced, if any. Writers only.
func (s *entries) putLocked(e *entry) *entry {
	t := s.table.Load()
	free := -1
	i := hashKey(e.key) & t.mask
	for ; ; i = (i + 1) & t.mask {
		cur := t.slots[i].Load()
		if cur == nil {
			break
		}
		if cur == vacated {
			if free < 0 {
				free = int(i)
			}
			continue
		}
		if cur.key == e.key {
			t.slots[i].Store(e)
			return cur
		}
	}
	s.keys.add(e.key)
	s.names.add(e.name)
	if free >= 0 {
		t.slots[free].Store(e)
	} else {
		t.slots[i].Store(e)
		t.used++
	}
	s.n.Add(1)
	if t.used*4 > len(t.slots)*3 {
		s.rebuildLocked(t)
	}
	return nil
}

// removeLocked takes e out, if it is still the entry for its key. Writers only.
func (s *entries) removeLocked(e *entry) bool {
	t := s.table.Load()
	for i := hashKey(e.key) & t.mask; ; i = (i + 1) & t.mask {
		cur := t.slots[i].Load()
		if cur == nil {
			return false
		}
		if cur == e {
			t.slots[i].Store(vacated)
			s.keys.remove(e.key)
			s.names.remove(e.name)
			s.n.Add(-1)
			return true
		}
	}
}

// clearLocked removes every entry. Writers only.
func (s *entries) clearLocked() {
	s.table.Store(newEntryTable(16))
	s.keys.clear()
	s.names.clear()
	s.n.Store(0)
}

// rebuildLocked moves the entries of t into a new table at most a quarter full, so that at
// least half of its slots take inserts before the next rebuild: a write's cost stays constant
// on average, whatever the number of entries.
func (s *entries) rebuildLocked(t *entryTable) {
	live := int(s.n.Load())
	size := 16
	for size < 4*live {
		size *= 2
	}
	n := newEntryTable(size)
	for i := range t.slots {
		e := t.slots[i].Load()
		if e == nil || e == vacated {
			continue
		}
		j := hashKey(e.key) & n.mask
		for n.slots[j].Load() != nil {
			j = (j + 1) & n.mask
		}
		n.slots[j].Store(e)
		n.used++
	}
	s.table.Store(n)
}

// countingFilter is a one-hash counting Bloom filter over strings: zero means "surely
// absent". Writers count up and down under the overlay's lock; readers load one counter.
type countingFilter [4096]atomic.Uint32

func filterHash(s string) uint {
	// The length, the last three bytes and the middle one, mixed by one multiplication: names
	// of one kind tend to share their prefix and differ at the end, and this must stay much
	// cheaper than the lookup it saves. Collisions only cost that lookup.
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

func (f *countingFilter) add(s string)    { f[filterHash(s)].Add(1) }
func (f *countingFilter) remove(s string) { f[filterHash(s)].Add(^uint32(0)) }

func (f *countingFilter) mayContain(s string) bool { return f[filterHash(s)].Load() != 0 }

func (f *countingFilter) clear() {
	for i := range f {
		f[i].Store(0)
	}
}

// bitFilter is the counting filter's one-shot sibling, for a set built once: false means
// "surely absent".
type bitFilter [64]uint64

func (f *bitFilter) add(s string) {
	h := filterHash(s)
	f[h>>6] |= 1 << (h & 63)
}

func (f *bitFilter) mayContain(s string) bool {
	h := filterHash(s)
	return f[h>>6]&(1<<(h&63)) != 0
}
