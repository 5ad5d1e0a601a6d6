// Package brokerpod reads what a broker pod's own object says: its ordinal, the broker ID and
// template hash recorded on it, and whether it is Ready. It is the lowest room of the
// controller: step, objects and brokers all read pods through it, and it imports none of them.
package brokerpod
