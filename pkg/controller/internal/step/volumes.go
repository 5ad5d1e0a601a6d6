package step

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/broker-operator/broker-operator/pkg/apis/brokers/v1alpha1"
)

// Volumes that grow. When spec.storage.size grows, each broker's data volume claim is asked for
// the new size, all at once: a resize takes no capacity away, so there is nothing to pace. Only
// if the StorageClass of every claim allows expansion: one class that does not, or a claim with
// no class, and no claim is touched (nothing half-done). A claim whose volume has grown but
// whose file system waits for its pod to restart (FileSystemResizePending) gets that pod's
// restart requested, and the rollout restarts it like any other, one broker at a time behind
// every check of the step table. PlanVolumes decides; pkg/controller/volumes.go reads and writes.

// Condition reasons of ConditionStorageResized.
const (
	// ReasonStorageResizing: claims are growing to the new size, or the StatefulSet's claim
	// template does not carry it yet.
	ReasonStorageResizing = "StorageResizing"
	// ReasonStorageResized: every claim has the new size, and the claim template carries it.
	ReasonStorageResized = "StorageResized"
	// ReasonStorageExpansionNotAllowed: a claim's StorageClass does not allow volume expansion
	// (or the claim has none, or it cannot be read); no claim was changed.
	ReasonStorageExpansionNotAllowed = "StorageExpansionNotAllowed"
	// ReasonStorageExpansionRefused: kube-apiserver refused to expand a claim although its class
	// allows it (an admission plugin, or the operator's RBAC). Every claim is first tried with a
	// dry run, so a refusal normally leaves every claim unchanged.
	ReasonStorageExpansionRefused = "StorageExpansionRefused"
)

// ResizeRestartGrace is how long a claim may wait for FileSystemResizePending before its pod's
// restart is asked for: a CSI driver that grows file systems online finishes within it, and
// the pod need not restart at all.
const ResizeRestartGrace = 30 * time.Second

// VolumeClaim is what one broker's data volume claim, and its pod, show.
type VolumeClaim struct {
	// Name and ResourceVersion are the claim's, as read.
	Name, ResourceVersion string
	Ordinal               int32
	// Class is the claim's storageClassName, "" when it has none.
	Class string
	// Bound: the claim's phase is Bound; kube-apiserver refuses to expand any other
	// (plugin/pkg/admission/storage/persistentvolume/resize), so an unbound claim waits.
	Bound bool
	// Request is spec.resources.requests.storage; Capacity is status.capacity.storage, nil
	// when the claim reports none.
	Request  resource.Quantity
	Capacity *resource.Quantity
	// ResizePendingSince is when the claim's FileSystemResizePending condition became true;
	// zero when it has none.
	ResizePendingSince time.Time
	// Pod says whether the broker pod of the claim's ordinal exists; PodCreated is its
	// creation time, and RestartRequested whether its restart is already asked for.
	Pod              bool
	PodCreated       time.Time
	RestartRequested bool
}

// ClassVerdict is what a StorageClass says about expansion: Allows, or Why not.
type ClassVerdict struct {
	Allows bool
	Why    string
}

// Volumes is what a volume growth decision rests on.
type Volumes struct {
	// Size is spec.storage.size; Template is what the StatefulSet's claim template asks for.
	Size, Template resource.Quantity
	Claims         []VolumeClaim
	// Classes judges each class the claims name.
	Classes map[string]ClassVerdict
	Now     time.Time
}

// VolumePlan is what to do about the volumes.
type VolumePlan struct {
	// Allowed: every claim's class allows expansion; the claims and the StatefulSet's claim
	// template may grow.
	Allowed bool
	// Grow are the claims whose request is raised to the size, and Restart those whose pod's
	// restart is asked for.
	Grow, Restart []VolumeClaim
	// Status and Condition are what status.storage and StorageResized say once the plan is
	// carried out.
	Status    v1alpha1.StorageStatus
	Condition metav1.Condition
	// Done: every claim and the claim template have the size; nothing needs looking at again.
	Done bool
}

// NeedsVolumeGrowth reports whether the volumes need looking at: the claim template asks for
// less than the spec, or status shows a growth that has not finished, or one that lists
// another number of claims than the current brokers (a scale-up may bring back a claim a
// scale-down retained, at its old size). A cluster whose volumes never grew reads no claim.
func NeedsVolumeGrowth(size, template resource.Quantity, st *v1alpha1.StorageStatus, current int32) bool {
	if template.Cmp(size) < 0 {
		return true
	}
	if st == nil {
		return false
	}
	if st.Size.Cmp(size) != 0 || len(st.Claims) != int(current) {
		return true
	}
	return slices.ContainsFunc(st.Claims, func(c v1alpha1.ClaimGrowth) bool { return c.State != v1alpha1.ClaimResized })
}

// PlanVolumes decides what a growth of the volumes to v.Size does next.
func PlanVolumes(v Volumes) VolumePlan {
	claims := slices.Clone(v.Claims)
	slices.SortFunc(claims, func(a, b VolumeClaim) int { return int(a.Ordinal - b.Ordinal) })
	p := VolumePlan{Allowed: true, Status: v1alpha1.StorageStatus{Size: v.Size}}
	var refused []string
	for _, c := range claims {
		if why := refusal(c, v.Classes); why != "" {
			p.Allowed = false
			if !slices.Contains(refused, why) {
				refused = append(refused, why)
			}
		}
	}
	resized := 0
	var waiting []string
	for _, c := range claims {
		state := claimState(c, v.Size)
		if p.Allowed && c.Bound && c.Request.Cmp(v.Size) < 0 {
			p.Grow = append(p.Grow, c)
			state = v1alpha1.ClaimResizing
		}
		if state == v1alpha1.ClaimFileSystemResizePending {
			waiting = append(waiting, c.Name)
			if p.Allowed && restartDue(c, v.Now) {
				p.Restart = append(p.Restart, c)
			}
		}
		if state == v1alpha1.ClaimResized {
			resized++
		}
		g := v1alpha1.ClaimGrowth{Claim: c.Name, Ordinal: c.Ordinal, State: state}
		if c.Capacity != nil {
			capacity := c.Capacity.DeepCopy()
			g.Capacity = &capacity
		}
		p.Status.Claims = append(p.Status.Claims, g)
	}
	size := v.Size.String()
	cond := metav1.Condition{Type: v1alpha1.ConditionStorageResized, Status: metav1.ConditionFalse, Reason: ReasonStorageResizing}
	switch {
	case !p.Allowed:
		cond.Reason = ReasonStorageExpansionNotAllowed
		cond.Message = fmt.Sprintf("spec.storage.size asks for %s, but %s; no volume claim was changed", size, strings.Join(refused, ", and "))
	case resized == len(claims) && v.Template.Cmp(v.Size) >= 0:
		p.Done = true
		cond.Status, cond.Reason = metav1.ConditionTrue, ReasonStorageResized
		cond.Message = fmt.Sprintf("every broker's volume claim has %s", size)
	default:
		cond.Message = fmt.Sprintf("growing the brokers' volumes to %s: %d of %d claims resized", size, resized, len(claims))
		if len(waiting) > 0 {
			cond.Message += fmt.Sprintf("; %s wait for their pods to restart to grow the file system", strings.Join(waiting, ", "))
		}
		if v.Template.Cmp(v.Size) < 0 {
			cond.Message += fmt.Sprintf("; the StatefulSet's claim template still asks for %s, and is made again with %s once no decommission or restart is under way", v.Template.String(), size)
		}
	}
	p.Condition = cond
	return p
}

// Refused records that kube-apiserver refused to expand claim (why, in its words) after the
// first asked claims of Grow had been asked: the others stay Pending, the claim template does
// not grow, and StorageResized says why.
func (p *VolumePlan) Refused(claim, why string, asked int) {
	p.Allowed, p.Done = false, false
	for _, c := range p.Grow[asked:] {
		for j := range p.Status.Claims {
			if p.Status.Claims[j].Claim == c.Name {
				p.Status.Claims[j].State = v1alpha1.ClaimPending
			}
		}
	}
	p.Grow = p.Grow[:asked]
	p.Restart = nil
	p.Condition.Status, p.Condition.Reason = metav1.ConditionFalse, ReasonStorageExpansionRefused
	p.Condition.Message = fmt.Sprintf("spec.storage.size asks for %s, but kube-apiserver refused to expand volume claim %s: %s", p.Status.Size.String(), claim, why)
	if asked == 0 {
		p.Condition.Message += "; no volume claim was changed"
	}
}

// refusal says why claim c cannot grow, "" when its class allows it.
func refusal(c VolumeClaim, classes map[string]ClassVerdict) string {
	if c.Class == "" {
		return fmt.Sprintf("volume claim %s has no StorageClass, so it cannot be expanded", c.Name)
	}
	verdict, ok := classes[c.Class]
	switch {
	case !ok:
		return fmt.Sprintf("StorageClass %q of volume claim %s was not read", c.Class, c.Name)
	case !verdict.Allows:
		return fmt.Sprintf("StorageClass %q %s", c.Class, verdict.Why)
	}
	return ""
}

// claimState is where claim c is on its way to size, from what it shows.
func claimState(c VolumeClaim, size resource.Quantity) v1alpha1.ClaimGrowthState {
	switch {
	case c.Capacity != nil && c.Capacity.Cmp(size) >= 0:
		return v1alpha1.ClaimResized
	case c.Request.Cmp(size) < 0:
		return v1alpha1.ClaimPending
	case !c.ResizePendingSince.IsZero():
		return v1alpha1.ClaimFileSystemResizePending
	}
	return v1alpha1.ClaimResizing
}

// restartDue reports whether the pod of claim c, whose file system waits for a restart, should
// be restarted now: it exists, its restart is not asked for yet, it was made before the claim
// began to wait (a pod made since has mounted the grown volume already, and a second restart
// would not help), and the wait has outlasted ResizeRestartGrace.
func restartDue(c VolumeClaim, now time.Time) bool {
	// Both times are whole seconds: a pod made in the same second as the condition may have
	// mounted before it, and if its mount did finish the resize the condition is gone before
	// the grace ends.
	return c.Pod && !c.RestartRequested && !c.PodCreated.After(c.ResizePendingSince) &&
		now.Sub(c.ResizePendingSince) >= ResizeRestartGrace
}

// ResizeRestartBy is the value of a pod's restart-requested annotation that asks for the restart
// of claim's file system resize: who asked, in words.
func ResizeRestartBy(claim string) string {
	return fmt.Sprintf("volume claim %s%s", claim, resizePending)
}

const resizePending = " resize pending"

// IsResizeRestart says whether a restart-requested annotation's value is the operator's own
// (ResizeRestartBy), not a drain's or a person's.
func IsResizeRestart(by string) bool {
	return strings.HasPrefix(by, "volume claim ") && strings.HasSuffix(by, resizePending)
}
