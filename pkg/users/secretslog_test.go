package users

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/broker-operator/broker-operator/internal/klogtest"
)

// A Secret made with kubectl apply holds its data in an annotation, which a metadata list
// returns: the Secret watch's list and watch log nothing of it at -v=10, while the same list
// with the caller's context does.
func TestTheSecretWatchLogsNoSecretAtV10(t *testing.T) {
	const leaked = "c2VjcmV0LWluLWFuLWFubm90YXRpb24tb2Yta3ViZWN0bC1hcHBseQ"
	list := `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"5"},"items":[` +
		`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"s","namespace":"team","resourceVersion":"5",` +
		`"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"password\":\"` + leaked + `\"}}"}}}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("sendInitialEvents") == "true" {
			// An apiserver without streaming lists: the reflector falls back to list and watch.
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"BadRequest","code":400}`))
			return
		}
		if r.URL.Query().Get("watch") == "true" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		_, _ = w.Write([]byte(list))
	}))
	t.Cleanup(srv.Close)

	out := klogtest.AtV10(t)

	// Made at -v=10, so that client-go's debugging round tripper is in it too.
	client, err := metadata.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	nc := &namespaceCache{}
	nc.watchSecrets(Config{MetadataClient: client}, "team")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	nc.secretRunner.Start(ctx.Done())
	synced := cache.WaitForCacheSync(ctx.Done(), nc.secretInformer.HasSynced)
	_, listed, _ := nc.secretInformer.GetStore().GetByKey("team/s")
	cancel()
	nc.secretRunner.Shutdown()
	if !synced || !listed {
		t.Fatalf("the Secret watch did not list the Secret (synced %v)", synced)
	}
	klog.Flush()
	if strings.Contains(out.String(), leaked) {
		t.Fatal("the Secret watch logged the annotation that holds the Secret's data")
	}

	// Control: the same list with a context that keeps klog's logger shows the annotation, so
	// the test reaches client-go's body logging.
	if _, err := client.Resource(secretsGVR).Namespace("team").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	klog.Flush()
	if !strings.Contains(out.String(), leaked) {
		t.Fatal("control: a list at -v=10 logs nothing of its body; the test proves nothing")
	}
}
