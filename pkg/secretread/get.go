package secretread

import (
	"context"
	"errors"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"
)

// ErrContextualLoggingDisabled is returned, and nothing is read, when klog's contextual logging
// is off: client-go would then log the Secret through the global logger.
var ErrContextualLoggingDisabled = errors.New("secretread: klog contextual logging is disabled, " +
	"so client-go would log the Secret's body through the global logger at -v=8 and above; refusing to read it")

// Get reads the Secret namespace/name through secrets (for a clientset: CoreV1()) with a
// context whose logger discards everything, so that client-go logs nothing of the call at any
// verbosity. ctx's deadline and cancellation apply.
func Get(ctx context.Context, secrets corev1client.SecretsGetter, namespace, name string) (*corev1.Secret, error) {
	quiet, err := Context(ctx)
	if err != nil {
		return nil, err
	}
	return secrets.Secrets(namespace).Get(quiet, name, metav1.GetOptions{})
}

// Context returns ctx with a logger that discards everything, for a client-go call whose request
// or response must not be logged. It fails with ErrContextualLoggingDisabled when client-go would
// not use that logger.
func Context(ctx context.Context) (context.Context, error) {
	quiet := klog.NewContext(ctx, logr.Discard())
	// With contextual logging on, FromContext returns the Discard logger, which has no sink; off,
	// it returns klog's global logger.
	if klog.FromContext(quiet).GetSink() != nil {
		return nil, ErrContextualLoggingDisabled
	}
	return quiet, nil
}
