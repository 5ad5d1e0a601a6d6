package history_test

import (
	"testing"

	"github.com/broker-operator/broker-operator/test/history"
)

var bc2Key = history.Key{Resource: "brokerclusters", Namespace: "ns", Name: "bc-2"}

// Each planted case below passed the checker before RealVersions; each clean twin passes now.
func TestReadsReturnVersionsTheirKeyHad(t *testing.T) {
	all := history.Input{AllWrites: true}
	runRules(t, []ruleCase{
		{"planted: a read at the revision another object's write was answered", history.Input{}, one(newHistory("p").
			write(1, 1, bc2Key, "patch", "", "u-bc-2", "20", 200, 1, 2).
			read(1, 2, bcKey, "u1", "20", 3, 4)),
			map[history.Guarantee]int{history.RealVersions: 1}},
		{"another resource's revisions may coincide (an etcd of its own)", history.Input{}, one(newHistory("p").
			write(1, 1, stsKey, "patch", "", "s1", "20", 200, 1, 2).
			read(1, 2, bcKey, "u1", "20", 3, 4)), nil},
		{"planted: a version the key never had: a write showed it kept 10 until 15", history.Input{}, []*builder{
			newHistory("p").write(1, 1, bcKey, "patch", "10", "u1", "15", 200, 3, 4),
			newHistory("q").read(1, 1, bcKey, "u1", "12", 5, 6)},
			map[history.Guarantee]int{history.RealVersions: 1}},
		{"the versions at either end of what the write kept", history.Input{}, []*builder{
			newHistory("p").write(1, 1, bcKey, "patch", "10", "u1", "15", 200, 3, 4),
			newHistory("q").read(1, 1, bcKey, "u1", "10", 1, 2).read(1, 2, bcKey, "u1", "15", 5, 6)}, nil},
		{"planted: every write recorded, and none of the key produced the version read", all, one(newHistory("p").
			write(1, 1, bcKey, "create", "", "u1", "10", 201, 1, 2).
			write(1, 1, stsKey, "create", "", "s1", "14", 201, 1, 2).
			write(1, 1, bc2Key, "create", "", "u-bc-2", "13", 201, 1, 2).
			read(1, 2, bcKey, "u1", "12", 5, 6)),
			map[history.Guarantee]int{history.RealVersions: 1}},
		{"not every write recorded: a version someone else may have written", history.Input{}, one(newHistory("p").
			write(1, 1, bcKey, "create", "", "u1", "10", 201, 1, 2).
			write(1, 1, bc2Key, "create", "", "u-bc-2", "13", 201, 1, 2).
			read(1, 2, bcKey, "u1", "12", 5, 6)), nil},
		{"every write recorded: an object older than the first write it records", all, one(newHistory("p").
			write(1, 1, bcKey, "create", "", "u1", "10", 201, 1, 2).
			read(1, 2, bc2Key, "u-bc-2", "7", 5, 6)), nil},
		{"planted: every write recorded, and the version read was made after the read ended", all, []*builder{
			newHistory("q").write(1, 1, bc2Key, "create", "", "u-bc-2", "30", 201, 1, 8).
				write(2, 2, bcKey, "create", "", "u1", "20", 201, 5, 6),
			newHistory("p").read(1, 1, bcKey, "u1", "20", 3, 4)},
			map[history.Guarantee]int{history.RealVersions: 1}},
	})
}

// Each planted case below passed the checker before RealUIDs; each clean twin passes now.
func TestReadsReturnUIDsTheirKeyHad(t *testing.T) {
	all := history.Input{AllWrites: true}
	runRules(t, []ruleCase{
		{"planted: a read under the UID another object was created with", history.Input{}, one(newHistory("p").
			write(1, 1, stsKey, "create", "", "s1", "30", 201, 1, 2).
			read(1, 2, bcKey, "s1", "31", 3, 4)),
			map[history.Guarantee]int{history.RealUIDs: 1}},
		{"planted: another UID at a revision a write was answered with", history.Input{}, []*builder{
			newHistory("p").write(1, 1, bcKey, "patch", "", "u1", "11", 200, 1, 2),
			newHistory("q").read(1, 1, bcKey, "u2", "11", 3, 4)},
			map[history.Guarantee]int{history.RealUIDs: 1}},
		{"planted: a UID read at a version older than its create", history.Input{}, []*builder{
			newHistory("q").write(1, 1, stsKey, "create", "", "s2", "40", 201, 1, 2),
			newHistory("p").read(1, 1, stsKey, "s2", "35", 3, 4)},
			map[history.Guarantee]int{history.RealUIDs: 1}},
		{"the UID at its create's version and after", history.Input{}, []*builder{
			newHistory("q").write(1, 1, stsKey, "create", "", "s2", "40", 201, 1, 2),
			newHistory("p").read(1, 1, stsKey, "s2", "40", 3, 4).read(1, 2, stsKey, "s2", "44", 5, 6)}, nil},
		{"not every write recorded: a UID another process may have created", history.Input{}, one(newHistory("p").
			write(1, 1, bcKey, "create", "", "u1", "10", 201, 1, 2).
			read(1, 2, bcKey, "u9", "11", 3, 4)), nil},
		{"planted: every write recorded, and no create made the UID read (nor any write its version)", all, one(newHistory("p").
			write(1, 1, bcKey, "create", "", "u1", "10", 201, 1, 2).
			write(1, 1, stsKey, "create", "", "s1", "14", 201, 1, 2).
			read(1, 2, bcKey, "u9", "12", 3, 4)),
			map[history.Guarantee]int{history.RealVersions: 1}},
	})
}
