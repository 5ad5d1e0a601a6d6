// Package secretread reads a Secret so that nothing of its request or its response can reach a
// log, at any -v.
//
// client-go logs what it sends and receives through the logger of the request's context, not
// through klog's global logger (k8s.io/client-go v0.37.2):
//
//   - rest/request.go logBody writes every request and response body at V(8), up to 1 KiB, at
//     V(9) up to 10 KiB and at V(10) in full; a protobuf body as a hex dump whose ASCII column
//     shows each value. The logger is klog.FromContext(ctx) of the call.
//   - transport/round_trippers.go DebugWrappers installs a debugging round tripper when the
//     global verbosity is 6 or more as the clientset is built; it then logs the URL, the headers
//     and the curl command of each request at V(6) to V(9) of klog.FromContext(req.Context()).
//
// Get therefore calls Secrets(namespace).Get with a context whose logger discards everything
// (logr.Discard): the body logging, the debugging round tripper and every other message of that
// call see a logger for which no verbosity is enabled. The user's -v plays no part; the shared
// clientset and its transport are used as they are.
//
// klog.FromContext falls back to the global logger when contextual logging is disabled
// (klog.EnableContextualLogging(false); it is on by default and the operator never turns it
// off). Get checks that the discarding logger is the one client-go will find, and when it is not
// it reads nothing and returns ErrContextualLoggingDisabled, rather than let a body reach the log.
//
// The caller's context still carries the deadline and cancellation; only its logger is replaced.
// Errors are client-go's (apierrors.IsNotFound, IsForbidden work on them); they hold the
// Secret's name, never its data.
//
// TestNoSecretByteInTheLogAtV10 proves it: with klog at -v=10 writing into a buffer, a Secret
// read through a clientset talking JSON and one talking protobuf leaves no byte of the Secret's
// values in the log (raw, base64, each PEM line), while the same read with the caller's context
// does show them.
package secretread
