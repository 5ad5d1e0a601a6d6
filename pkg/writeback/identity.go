package writeback

import "unsafe"

// identitySet finds objects by pointer identity, without reading them: scanning a large list
// this way does not pull every object into the CPU cache.
type identitySet struct {
	filter  [64]uint64
	indexOf map[uintptr]int
}

// emptyInterface is the layout of an interface{} value: its dynamic type and its data word.
type emptyInterface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// pointerOf returns the data word of an item: the object's address for the pointer types that
// stores hold. Copies of one interface value share it, and the store keeps its objects alive
// while the caller holds them, so equal words mean the same stored object. It is read directly
// because reflect costs more than the rest of the scan together.
func pointerOf(item interface{}) uintptr {
	return uintptr((*emptyInterface)(unsafe.Pointer(&item)).data)
}

// dataOf is pointerOf as a pointer, for holding on to the object.
func dataOf(item interface{}) *byte {
	return (*byte)((*emptyInterface)(unsafe.Pointer(&item)).data)
}

func identityBit(p uintptr) (word, bit uint) {
	h := uint64(p>>4) * 0x9E3779B97F4A7C15
	b := uint(h >> 52) // 12 bits
	return b >> 6, b & 63
}

// add remembers item at index i; it reports false for an item it cannot identify.
func (s *identitySet) add(item interface{}, i int) bool {
	p := pointerOf(item)
	if p == 0 {
		return false
	}
	if s.indexOf == nil {
		s.indexOf = map[uintptr]int{}
	}
	s.indexOf[p] = i
	w, b := identityBit(p)
	s.filter[w] |= 1 << b
	return true
}

func (s *identitySet) find(item interface{}) (int, bool) {
	p := pointerOf(item)
	w, b := identityBit(p)
	if s.filter[w]&(1<<b) == 0 {
		return 0, false
	}
	i, ok := s.indexOf[p]
	return i, ok
}
