package history_test

import (
	"testing"

	"github.com/broker-operator/broker-operator/test/history"
)

// An object back after its delete with no UID to tell: each planted case passed the checker
// before deletes without a resourceVersion had a floor and a read without a UID took its
// revision's; each clean twin passes now.
func TestAnObjectIsNotBackAfterItsDelete(t *testing.T) {
	none := history.Input{}
	runRules(t, []ruleCase{
		{"planted: the version read before an observed delete, read again without a UID", none, one(newHistory("p").
			read(1, 1, stsKey, "s1", "5", 1, 2).
			gone(history.DeleteObserved, stsKey, "s1", "", 3, 3).
			read(1, 2, stsKey, "", "5", 4, 5)),
			map[history.Guarantee]int{history.DeleteFloor: 1}},
		{"planted: the process's own delete, answered with neither UID nor resourceVersion", none, one(newHistory("p").
			read(1, 1, stsKey, "", "5", 1, 2).
			write(1, 1, stsKey, "delete", "", "", "", 200, 3, 4).
			gone(history.DeleteMade, stsKey, "", "", 3, 4).
			read(1, 2, stsKey, "", "5", 5, 6)),
			map[history.Guarantee]int{history.DeleteFloor: 1}},
		{"planted: a read without a UID at the resourceVersion the delete was observed at", none, one(newHistory("p").
			gone(history.DeleteObserved, stsKey, "s1", "7", 1, 1).
			read(1, 1, stsKey, "", "7", 3, 4)),
			map[history.Guarantee]int{history.NoResurrection: 1}},
		{"planted: no UID read, but another process's write gave the revision the deleted one", none, []*builder{
			newHistory("q").write(1, 1, stsKey, "patch", "", "s1", "9", 200, 1, 2),
			newHistory("p").read(1, 1, stsKey, "s1", "5", 1, 2).
				gone(history.DeleteObserved, stsKey, "s1", "", 3, 3).
				read(1, 2, stsKey, "", "9", 4, 5)},
			map[history.Guarantee]int{history.NoResurrection: 1}},
		{"re-created by the process after the delete", none, one(newHistory("p").
			read(1, 1, stsKey, "s1", "5", 1, 2).
			gone(history.DeleteObserved, stsKey, "s1", "", 3, 3).
			write(1, 2, stsKey, "create", "", "s2", "12", 201, 4, 5).
			read(1, 3, stsKey, "", "12", 6, 7)), nil},
		{"re-created by someone else: newer than anything the process knew of the deleted one", none, one(newHistory("p").
			read(1, 1, stsKey, "s1", "5", 1, 2).
			gone(history.DeleteObserved, stsKey, "s1", "", 3, 3).
			read(1, 2, stsKey, "", "8", 4, 5)), nil},
	})
	// An observed delete with neither UID nor resourceVersion names no object: nothing to judge.
	r := check(newHistory("p").
		read(1, 1, stsKey, "s1", "5", 1, 2).
		gone(history.DeleteObserved, stsKey, "", "", 3, 3).
		read(1, 2, stsKey, "", "5", 4, 5))
	wantViolations(t, r, nil)
	if r.Judged[history.DeleteFloor] != 0 {
		t.Errorf("DeleteFloor judged %d reads against a delete that names nothing", r.Judged[history.DeleteFloor])
	}
}
