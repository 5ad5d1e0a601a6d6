package brokers

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/broker-operator/broker-operator/pkg/admin"
	"github.com/broker-operator/broker-operator/pkg/admin/admintest"
)

// Each admin error lands under the result its kind names.
func TestAdminResult(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, resultSuccess},
		{&admin.Error{Op: "decommission broker 1", Kind: admin.ErrBrokerNotFound}, "broker_not_found"},
		{&admin.Error{Kind: admin.ErrAlreadyDecommissioned}, "already_decommissioned"},
		{&admin.Error{Kind: admin.ErrNotDecommissioning}, "not_decommissioning"},
		{&admin.Error{Kind: admin.ErrUnavailable, StatusCode: 503}, "unavailable"},
		{&admin.Error{Kind: admin.ErrForbidden, StatusCode: 403}, "forbidden"},
		{&admin.Error{Kind: admin.ErrTLS}, "tls"},
		{&admin.Error{Kind: admin.ErrBadResponse}, "bad_response"},
		{&admin.Error{Err: context.Canceled}, "canceled"},
		{fmt.Errorf("wrapped: %w", &admin.Error{Err: context.DeadlineExceeded}), "canceled"},
		{errors.New("no URL for broker 3"), resultError},
	} {
		if got := adminResult(tc.err); got != tc.want {
			t.Errorf("adminResult(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

// Every admin.Client method is counted, under its own operation label (the method's name in
// snake_case), so that a method added to the interface cannot pass uncounted.
func TestCountingAdminClientCountsEveryMethod(t *testing.T) {
	sim := admintest.NewServer(admintest.Options{})
	defer sim.Close()
	urls := sim.Cluster(testNamespace, testName).URLs(1)
	inner, err := admin.NewClient(admin.Config{URLs: urls, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "broker_operator", Name: "admin_requests_total"}, []string{"operation", "result"})
	reg.MustRegister(requests)
	client := reflect.ValueOf(decoratedAdmin{inner: inner, requests: requests})
	ifaces := []reflect.Type{reflect.TypeFor[admin.Client](), reflect.TypeFor[admin.ClusterConfigClient](), reflect.TypeFor[admin.UsersClient]()}
	var methods []reflect.Method
	for _, iface := range ifaces {
		for i := range iface.NumMethod() {
			methods = append(methods, iface.Method(i))
		}
	}
	if len(methods) != len(Operations) {
		t.Errorf("admin.Client, admin.ClusterConfigClient and admin.UsersClient have %d methods, Operations names %d", len(methods), len(Operations))
	}
	for _, method := range methods {
		args := []reflect.Value{reflect.ValueOf(context.Background())}
		for j := 1; j < method.Type.NumIn(); j++ {
			args = append(args, reflect.Zero(method.Type.In(j)))
		}
		before := adminRequestsTotal(t, reg)
		client.MethodByName(method.Name).Call(args)
		op := snakeCase(method.Name)
		if !slices.Contains(Operations, op) {
			t.Errorf("%s: operation %q is not in Operations", method.Name, op)
		}
		if got := adminRequestsTotal(t, reg); got[op] != before[op]+1 {
			t.Errorf("calling %s counted %v under operation %q, want 1", method.Name, got[op]-before[op], op)
		}
	}
}

func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// adminRequestsTotal sums admin_requests_total by operation.
func adminRequestsTotal(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "broker_operator_admin_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "operation" {
					out[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}
