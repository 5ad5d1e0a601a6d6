package controller

import (
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
)

// retryRateLimiter is client-go's DefaultTypedControllerRateLimiter with the per-key backoff
// capped at maxDelay instead of 1000 s. A wait for the brokers' admin API is a retry: no watch
// says when the brokers answer again, so an uncapped backoff grown by a burst of fast failures
// would leave the cluster idle for minutes after they do.
func retryRateLimiter(maxDelay time.Duration) workqueue.TypedRateLimiter[string] {
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, maxDelay),
		// The overall 10 qps, burst 100, of client-go's default.
		&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(10), 100)},
	)
}
