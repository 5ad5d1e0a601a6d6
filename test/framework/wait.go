package framework

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

const pollInterval = 100 * time.Millisecond

// waitHealthy polls check until it passes or ctx ends. It gives up at once if any of the running
// components exits, and reports that component's last log lines.
func waitHealthy(ctx context.Context, running []*process, what string, check func(context.Context) error) error {
	lastErr := fmt.Errorf("not checked yet")
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		for _, p := range running {
			if err := p.exitError(); err != nil {
				return false, err
			}
		}
		if lastErr = check(ctx); lastErr != nil {
			return false, nil
		}
		return true, nil
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("waiting for %s: %w (last check: %v)", what, err, lastErr)
	}
	if err != nil {
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	return nil
}

// plainHTTPCheck passes when url answers 200.
func plainHTTPCheck(url string) func(context.Context) error {
	return httpCheck(http.DefaultClient, url)
}

// localTLSCheck passes when a component's https health endpoint on 127.0.0.1 answers 200. The
// components serve self-signed certificates, and this probe only asks whether they are up.
func localTLSCheck(port int, path string) func(context.Context) error {
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	return httpCheck(client, fmt.Sprintf("https://127.0.0.1:%d%s", port, path))
}

func httpCheck(client *http.Client, url string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s: %s", url, resp.Status, body)
		}
		return nil
	}
}

// apiserverReadyCheck passes when the apiserver's /readyz answers ok to the admin.
func apiserverReadyCheck(client kubernetes.Interface) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err
	}
}
