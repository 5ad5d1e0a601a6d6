package writeback

import "reflect"

// The informer's store holds pointers, and never changes an object it has handed out: a
// newer state is a new object. Two interface values that compare equal therefore hold the
// very same stored object, and a read that meets an informer copy it has met before can reuse
// what it concluded then, without reading the object again. Equality of interfaces is defined
// by the language, needs no unsafe and does not allocate.

// identitySet finds objects of a list by identity, without reading them: by the address a
// pointer item holds (reflect's Value.Pointer, no unsafe), checked first against a small bit
// filter, so that most items of a long list cost a multiplication and one load. The caller
// holds every item it adds and looks up for the whole scan, so no address is reused meanwhile.
type identitySet struct {
	filter  [64]uint64
	indexOf map[uintptr]int
}

func identityBit(p uintptr) (word, bit uint) {
	h := uint64(p>>4) * 0x9E3779B97F4A7C15
	b := uint(h >> 52) // 12 bits
	return b >> 6, b & 63
}

// identifiable tells whether item can be found by identity: a non-nil pointer. Comparing
// interfaces that hold another kind of value could read the whole value, or panic.
func identifiable(item any) bool {
	v := reflect.ValueOf(item)
	return v.Kind() == reflect.Pointer && !v.IsNil()
}

// add remembers item at index i; it reports false for an item it cannot identify.
func (s *identitySet) add(item any, i int) bool {
	if !identifiable(item) {
		return false
	}
	if s.indexOf == nil {
		s.indexOf = map[uintptr]int{}
	}
	p := reflect.ValueOf(item).Pointer()
	s.indexOf[p] = i
	w, b := identityBit(p)
	s.filter[w] |= 1 << b
	return true
}

func (s *identitySet) find(item any) (int, bool) {
	v := reflect.ValueOf(item)
	if v.Kind() != reflect.Pointer {
		return 0, false
	}
	p := v.Pointer()
	w, b := identityBit(p)
	if s.filter[w]&(1<<b) == 0 {
		return 0, false
	}
	i, ok := s.indexOf[p]
	return i, ok
}

// rememberBeaten notes that e is newer than the informer copy item, so that a read that
// finds the same copy again serves e at once. Callers have checked that item is identifiable.
func (e *entry) rememberBeaten(item any) {
	if prev := e.beaten.Load(); prev != nil && reflect.TypeOf(prev) != reflect.TypeOf(item) {
		return // atomic.Value holds one type; the informer holds one type per resource anyway
	}
	e.beaten.Store(item)
}

// beats tells whether item is the informer copy e was last found newer than.
func (e *entry) beats(item any) bool {
	return e.beaten.Load() == item
}
