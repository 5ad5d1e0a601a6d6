// Package history records what an operator process read, wrote and decided, and checks the
// recordings of every process of a run (histories) offline, against session guarantees and
// the operator's safety rules, as etcd's robustness tests and
// Jepsen do: a counter finds only the staleness it was written to look for, a checker finds
// every violation of the guarantees it checks.
//
// # The history
//
// A History is one process's events (Event), each of one Kind:
//
//   - KindRead: a read through a lister or the write-back overlay. Key, UID and RV are the
//     object's; Found is false when nothing was found (UID and RV then "").
//   - KindWrite: a create, update, patch or delete (Verb). Precondition is the
//     resourceVersion sent as a precondition ("" for none), RV and UID the answered object's,
//     Code the HTTP status (0: no answer), Err the error, AuditID the apiserver's audit ID (its
//     Audit-Id response header). A status write has its object's Key.
//   - KindDelete: the process learned that the object UID is gone, with its last RV if known:
//     Source DeleteMade (its own delete was answered with the object gone) or DeleteObserved
//     (an informer delivered the deletion).
//   - KindAdmin: an admin call to Broker, for the object Key whose facts it relies on (the
//     BrokerCluster); Err is its error ("" when it succeeded). The safety guarantees read the
//     Verbs CallDecommission ("decommission"), CallRecommission ("recommission"),
//     CallMaintenanceOn ("maintenance-on"), CallMaintenanceOff ("maintenance-off") and
//     CallDeletePod ("delete-pod", a pod deleted to restart its broker).
//   - KindLeading: the process became leader, holding the Lease Key; AuditID is the audit ID of
//     the Lease write that made it so, or "" for the process's last successful write of Key
//     (with an audit ID) that ended at or before the event's Start.
//
// Every event has Worker (WorkerNone, WorkerInformers and WorkerElection for events outside a
// worker), Seq (from 1 within its worker's log), Reconcile (unique within the process; 0 for
// none), and Start and End: nanoseconds on the process's monotonic clock since History.Anchor,
// comparable within one process only, except on the timeline below. Key.Resource is the
// plural resource without its API group ("brokerclusters"). History.Events is sorted by Start,
// then Worker, then Seq; Check sorts a copy of a history that is not. History.Unreadable counts
// what its recorder could not record (the lines of a trace its reader could not parse).
//
// # Recording
//
// NewRecorder makes one Recorder per process. Each worker goroutine appends to its own Log
// (Recorder.Log), an append-only list of 1,024-event chunks behind a mutex only that worker
// takes: no copying as it grows, no allocation but one chunk per 1,024 events
// (BenchmarkLogAppend). Recorder.History merges the logs once recording is over.
//
// *Recorder implements ReconcileHooks, the calls a controller makes: BeginReconcile (before a
// reconcile reads anything; it returns the context the reconcile runs with), Read, AdminCall
// and, from informer delete handlers, Deleted. Writes are recorded where their answers are seen
// (a transport wrapper) with Recorder.Write, given the request's context so that they are
// attributed to its reconcile (ReconcileOf), and Recorder.Gone when a delete's answer says the
// object is gone. Recorder.Leading records leadership. Times come from Recorder.Now, or from a
// time.Time with its monotonic reading (Recorder.Since).
//
// # Files
//
// History.WriteTo writes a history as JSON lines, and ReadHistory reads it back: first a header
// {"history":1,"process":P,"anchor":RFC 3339 time} with "unreadable":N when not zero, then one
// object per event with the fields kind ("read", "write", "delete", "admin", "leading"), worker,
// seq, start, end and, when not zero, reconcile, resource, namespace, name, uid, rv, found,
// verb, precondition, code, err, auditID, broker and source. ReadHistory rejects, naming the
// line, a missing header, a format version other than 1, a field the format does not have (in
// the header or an event), an unknown kind, malformed JSON or more than one value on a line,
// an event without start or end, an event that ends before it starts, and a line longer than
// 1 MiB.
//
// ParseAudit reads kube-apiserver's audit log (JSON lines of audit.k8s.io/v1 Event). It keeps
// the entries of stage ResponseComplete (or Panic) whose verb is create, update, patch, delete
// or deletecollection and whose objectRef names an object, in the log's order, with the user,
// objectRef, responseStatus.code, requestReceivedTimestamp and stageTimestamp, and, when the log
// holds it (level RequestResponse), the responseObject's resourceVersion and UID. A last line
// cut short is skipped and counted (Audit.Truncated); any other malformed line is an error
// naming its line.
//
// # The guarantees
//
// Check(Input) judges the histories, and returns a Report. Let R be a read and, below, "before R"
// mean "ended strictly before R started", in the same process. ResourceVersions are compared
// with k8s.io/apimachinery's resourceversion.CompareResourceVersion; an event whose
// resourceVersion it cannot read (a found read's, a write's, a delete's) is counted in
// Report.Unparseable and is neither judged nor evidence. A delete D of R's key covers an event
// E for R when R may reflect D (D ended before R started, or D is DeleteMade and started
// before R ended: the write-back overlay holds a tombstone before the answer is recorded) and
// D is at least as new as E: D's RV is at least E's, or D has no RV and either its UID is E's
// or D is DeleteMade and started after E ended. A D whose RV is older than E's (a stale
// relist's) covers nothing. A DeleteObserved event must be recorded no later than the
// informer's store drops the object (from the watch stream, say, not from a delete handler,
// which runs after), or a read between the two is judged stale.
//
// The read guarantees (ReadGuarantees):
//
//   - ReadYourWrites: let W be the successful write (2xx, with an answered RV) of R's key
//     before R with the highest RV. R found the key at an RV at least W's, or found nothing
//     and a delete covers W. Failed writes, conflicts and writes without an answer impose
//     nothing. A read that breaks it is a stale read: Report.StaleReads counts them by
//     resource, and Report.ReadsOf the reads it judged. This is the one judge of stale reads
//     in the test tree; test/race and test/soak report its counts. It lives here rather than in
//     test/harness because a stale read is a property of a whole history (which writes of the
//     process had ended before a read began, which deletes cover them), and only the checker
//     sees histories whole: the race's operator runs in the test process and the soak's as a
//     separate one, and both are recorded as histories for it.
//   - MonotonicReads: let P be the read of R's key before R, by any worker of the process,
//     that found it at the highest RV. R found it at an RV at least P's, or found nothing and
//     a delete covers P. Reads that overlap in time impose nothing on each other; reads of
//     different keys neither.
//   - NoResurrection: R finds no UID of which a delete is known before R. A found R without a
//     UID is judged by the UID an event gave its revision (Revisions, below).
//   - DeleteFloor: a delete D of R's key known before R has a floor, the newest RV of the
//     object it removed that the process knew: D's RV; else, for a DeleteMade, the highest RV
//     of the key the process had read or been answered that ended before D started (every
//     revision made after the delete is newer); else the highest at which it had read or
//     written D's UID. If R found the key: at an RV at least the highest of the deletes' RVs
//     and, unless NoResurrection flags R, above the highest floor.
//   - NoFuture, for an R that found its key (on the timeline, across processes): every
//     successful write of R's key with an answered RV that started after R ended was answered
//     with an RV at least R's (a write answered lower, or a read from the future: the
//     violation names R, the write its witness). With Input.AllWrites (every write the
//     apiserver applied is in the histories or, with its RV, in the audit log) also: R's RV is
//     at most the highest of the RVs answered to successful writes, of any key and process,
//     that started before R ended, and the RVs of the audit log's successful entries.
//   - RealVersions, for an R that found its key (across processes): R's revision is not
//     another object's, R's RV lies in no span in which its key kept one version, and, with
//     Input.AllWrites and R's RV at or above its resource's floor, R's revision was made by a
//     write that started before R ended or by an audit entry (Revisions, below).
//   - RealUIDs, for an R that found its key with a UID: the UID is no other key's, no event
//     gave R's revision another UID, and no create was answered with the UID at an RV above R's.
//   - FailoverReads (judged only when Input.Audit is set): for a leadership event L of process
//     Q, let E_L be the audit entry of its Lease write. A write W counts when its audit entry
//     is AppliedBefore E_L (W was answered 2xx and its stageTimestamp is strictly before E_L's
//     requestReceivedTimestamp: the apiserver had applied W before it received the write that
//     made Q leader), W is not a delete, and W is in the history of a process other than Q
//     (linked by audit ID) or in no history and made by Input.OperatorUser. W's RV is the
//     one its history recorded, or else the audit log's; a W with neither is counted in
//     Report.Unresolved. Every read R of Q that starts after L (and before Q's next leadership
//     event) of a key such a W wrote found it at an RV at least the highest such W's, or found
//     nothing and a delete of what W wrote is known before R: Q knew of a delete of W's UID,
//     or of W's key at an RV at least W's, that ended before R started (or was Q's own and
//     started before R ended); or the audit log holds a successful delete of the key
//     completed after W and before the apiserver received Q's Lease write or a write of Q
//     that ended before R started. A delete known only later excuses nothing: it may have
//     come after R. A leadership whose Lease write is not in the audit log is counted in
//     Report.Unlinked and not judged.
//
// A judged read is one at least one read guarantee other than RealVersions and RealUIDs
// constrained (Report.JudgedReads): a read with a write, a read or a delete known before it, a
// found read with a delete with a floor known before it, a found read with a later write of its
// key (any found read, with Input.AllWrites), a read after a leadership with a counted write of
// its key. RealVersions and RealUIDs say a version or UID is real, not how old it is, so a read
// only they constrained is no judged read for FreshDecisions.
//
// The decisions, for each admin call A:
//
//   - FreshDecisions: A is made in a reconcile (Reconcile not 0); a read of A's Key in that
//     reconcile, ending at or before A's Start, found the object at an RV that parses and is a
//     judged read (a decision on a read nobody judged is a violation named as such); and no
//     read of that reconcile ending at or before A's Start broke a read guarantee.
//
// The safety guarantees judge the admin calls of every process together, on the timeline: each
// history's times shifted by its Anchor's offset from the first history's Anchor (anchors
// taken in one test process are compared by their monotonic reading, others by the wall
// clock; a zero Anchor, or a first history's zero Anchor, gives no offset). A call succeeded when its Err is "". A broker is a Key and a Broker.
//
//   - OneDecommission: a decommission of a broker, whatever its outcome, follows no successful
//     decommission of it that ended before it started, unless a successful recommission of
//     the broker started after that decommission started and ended before this one started.
//   - OneUnavailable: a broker is in maintenance from the end of a successful maintenance-on
//     of it until the start of a successful maintenance-off. A maintenance-on or delete-pod of
//     a broker, whatever its outcome, starts while no other broker of its Key is in
//     maintenance, nor in one of Input.Outages (a pod that cannot start, a broker that has not
//     reclaimed its load: unavailable though no call shows it; a call whose broker is "-1" is
//     not judged against them). It needs the maintenance-off calls: with "maintenance-off" in
//     Input.Untraced it is not judged (Report.NotJudged says why).
//   - LeaderDecides (judged when the histories hold leadership events): the last leadership
//     event that began before an admin call started is the calling process's own. A deposed
//     leader that acts violates it even when its reads were fresh. Calls before any
//     leadership are not judged.
//
// Report.Judged counts, per guarantee, the reads (admin calls, for the decisions and the safety
// guarantees) the guarantee constrained; Report.NotJudged says why a guarantee the input gives
// no evidence for was not judged (FailoverReads without an audit log, OneUnavailable without
// maintenance-off, LeaderDecides without leadership events).
//
// # Revisions
//
// An object's RV is the etcd revision of the write that made it; a revision is made by one
// write of one object. RealVersions, RealUIDs and NoResurrection read what the events say about
// revisions, per resource (a resource may be stored in an etcd of its own, whose revisions
// coincide with the others'): a successful write of a named object (not deletecollection,
// whose answer is a list) says its answered RV and, when it sent one, its precondition were
// revisions of its key with its answered UID; a delete, that its RV was of its key and UID;
// an audit entry that succeeded on the object (no subresource but status and scale), that
// its RV was of its key and UID. A successful write with precondition P answered with an RV
// A above P shows a span in which its key kept one version: it was at P until the write
// moved it to A, so it had no version between. A successful create answered with UID U and
// RV C shows that U had no version below C. A resource's floor is the lowest RV a recorded
// write of it made (a create's, or an A above a P): with Input.AllWrites, every revision at
// or above it was made while the histories were recorded, by a write they or the audit log
// hold. An audit log at level Metadata (the test control plane's) holds no RV or UID, and
// says nothing of revisions.
//
// # What cannot be judged
//
// The histories record no watch event but deletions, and, unless Input.AllWrites, not every
// write: the race experiment's and the soak's record the operator's own writes and reads,
// not the test's or the cluster's writes its informers deliver. So, without AllWrites:
//
//   - a read of a revision no recorded event names, outside any kept span of its key, cannot
//     be told from a version an unrecorded write made: an invented RV is caught only when
//     another object's event names it, a kept span holds it, or (NoFuture) a later write of
//     its key was answered lower;
//   - a read of a UID no event names cannot be told from an object an unrecorded create
//     made;
//   - whether a found R is the deleted object or one re-created by an unrecorded create is
//     judged by UID, by the floor above, and by its revision's UID when an event names it;
//     an observed delete with neither UID nor RV names no object and is no evidence;
//   - a delete's RV may be the delete's own revision (a watch's DELETED event) or the last
//     the informer knew (DeletedFinalStateUnknown), and a delete's answer either: so a read at
//     exactly a delete's RV is judged as a version of the deleted object, never as invented;
//   - an RV is compared with the time of the write that made it only within a history or on
//     the timeline: an audit entry's times are the apiserver's clock and are never compared
//     with a process's, so an audit entry makes its revision real whenever it was received,
//     and orders a delete before a read only through another audit entry of that process.
//
// With AllWrites, a read below its resource's floor (an object older than the recording) is
// judged by none of RealVersions' third rule, and a revision a delete's answer names counts
// as made by a write (a graceful delete makes a version; one that removes the object may
// answer with its revision). A UID nobody created is then caught at or above the floor as a
// revision no write made or one another UID had, and not below it.
//
// # No green run without evidence
//
// Report.Err fails the run, naming each cause in Report.Failures, when two histories share a
// process name; when a history that holds reads judged none of them; when no read was judged
// at all; and when any of these counts is above zero and Input.Expect does not give the reason
// the caller expects it (by Gap): Report.Unparseable (GapUnparseable), Report.Unattributed,
// the reads made in no reconcile (GapUnattributed), Report.Unlinked (GapUnlinked) and
// Report.Unreadable, the histories' Unreadable summed (GapUnreadable). A run is green when Err
// is nil and Report.Violations is empty.
//
// # Violations
//
// Each Violation names its guarantee, process and offending event, says in Detail what it
// contradicts (the resourceVersions, for FailoverReads the write's audit ID and line, for the
// safety guarantees the other process and its time on the timeline), and shows in Excerpt the
// events around it, one per line as Event.String formats them: the offending event marked
// ">", the events it contradicts "*" (when they are of the same history), and up to three
// events of the same key (of the same reconcile, for an admin call) on each side, in order.
// Report.Summary gives the counts in a few lines.
//
// # Running the checker
//
//	rec := history.NewRecorder("operator-0")
//	// ... the controller calls rec's ReconcileHooks; a transport wrapper calls rec.Write ...
//	h := rec.History()
//	f, _ := os.Open(auditLogPath)
//	audit, err := history.ParseAudit(f)
//	report := history.Check(history.Input{Histories: []*history.History{h}, Audit: audit,
//		OperatorUser: "system:serviceaccount:broker-operator:broker-operator"})
//	if err := report.Err(); err != nil {
//		t.Error(err)
//	}
//	for _, v := range report.Violations {
//		t.Error(v)
//	}
//	t.Log(report.Summary())
package history
