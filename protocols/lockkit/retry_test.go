package lockkit_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
)

// Tests of the retry policy: what each backoff waits, when a client gives up,
// and which random draws it makes (the clients' runs depend on them).

func stream() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// Fixed waits its delay every time, and draws nothing from the stream.
func TestFixedWaitsItsDelayAndDrawsNothing(t *testing.T) {
	r := lockkit.Retry{Backoff: lockkit.Fixed, Delay: 300 * time.Millisecond}
	rnd, twin := stream(), stream()
	for n := 1; n <= 5; n++ {
		if got := r.Wait(n, rnd); got != 300*time.Millisecond {
			t.Fatalf("wait after %d failures %s, want 300ms", n, got)
		}
	}
	if rnd.Uint64() != twin.Uint64() {
		t.Fatal("a fixed policy drew from the client's stream")
	}
}

// Uniform draws from [Delay, Max], both ends included, with one draw of
// Int64N(Max-Delay+1): "retry=R jitter=J" of redis-lock and "retry=R" of
// Redlock draw exactly as they did before the kit.
func TestUniformCoversBothEndsWithOneDraw(t *testing.T) {
	r := lockkit.Retry{Backoff: lockkit.Uniform, Delay: 10, Max: 13}
	seen := map[time.Duration]bool{}
	rnd, twin := stream(), stream()
	for range 200 {
		got := r.Wait(1, rnd)
		if want := 10 + time.Duration(twin.Int64N(4)); got != want {
			t.Fatalf("wait %s, want %s: the draw is not Int64N(Max-Delay+1)", got, want)
		}
		seen[got] = true
	}
	if len(seen) != 4 {
		t.Fatalf("200 draws in [10ns, 13ns] gave %v, want all four", seen)
	}
	if got := (lockkit.Retry{Backoff: lockkit.Uniform, Delay: 7, Max: 7}).Wait(1, rnd); got != 7 || rnd.Uint64() != twin.Uint64() {
		t.Fatalf("an empty range waited %s (want 7ns) or drew from the stream", got)
	}
	if got := (lockkit.Retry{Backoff: lockkit.Uniform, Max: math.MaxInt64}).Wait(1, rnd); got < 0 {
		t.Fatalf("the widest range waited %s", got)
	}
}

// Exponential doubles from the first delay after each failure, up to its cap,
// and without a cap never overflows.
func TestExponentialDoublesUpToItsCap(t *testing.T) {
	r := lockkit.Retry{Backoff: lockkit.Exponential, Delay: 100 * time.Millisecond, Max: 800 * time.Millisecond}
	for n, want := range []time.Duration{100, 200, 400, 800, 800, 800} {
		if got := r.Wait(n+1, nil); got != want*time.Millisecond {
			t.Errorf("wait after %d failures %s, want %dms", n+1, got, want)
		}
	}
	r.Max = 0
	if got := r.Wait(500, nil); got <= 0 {
		t.Fatalf("uncapped backoff after 500 failures waited %s", got)
	}
}

// Jitter adds a draw in [0, wait × p / 100), one Int64N of that spread (at
// least 1): db-lock's exponential backoff and etcd's request retry draw as they
// did before the kit.
func TestJitterIsAPercentOfTheWait(t *testing.T) {
	r := lockkit.Retry{Backoff: lockkit.Exponential, Delay: 100 * time.Millisecond, Max: 800 * time.Millisecond, JitterPercent: 10}
	rnd, twin := stream(), stream()
	for n := 1; n <= 6; n++ {
		base := lockkit.Retry{Backoff: r.Backoff, Delay: r.Delay, Max: r.Max}.Wait(n, nil)
		if got, want := r.Wait(n, rnd), base+time.Duration(twin.Int64N(int64(base/10))); got != want {
			t.Fatalf("wait after %d failures %s, want %s", n, got, want)
		}
	}
	etcd := lockkit.Retry{Backoff: lockkit.Fixed, Delay: 25 * time.Millisecond, JitterPercent: 10}
	for range 100 {
		if got := etcd.Wait(1, rnd); got < 25*time.Millisecond || got >= 27500*time.Microsecond {
			t.Fatalf("25ms with 10%% jitter waited %s", got)
		}
	}
	tiny := lockkit.Retry{Backoff: lockkit.Fixed, Delay: 5, JitterPercent: 10}
	rnd, twin = stream(), stream()
	if got := tiny.Wait(1, rnd); got != 5 || rnd.Uint64() == twin.Uint64() {
		t.Fatalf("a wait too short for its jitter waited %s, or drew nothing", got)
	}
}

// The zero policy never retries; Attempts limits the others, 0 never.
func TestAgainFollowsTheAttemptLimit(t *testing.T) {
	for _, tc := range []struct {
		r    lockkit.Retry
		want []bool // after 1, 2, 3 failures
	}{
		{lockkit.Retry{}, []bool{false, false, false}},
		{lockkit.Retry{Delay: time.Second, Attempts: 5}, []bool{false, false, false}}, // Never, whatever else it says
		{lockkit.Retry{Backoff: lockkit.Fixed}, []bool{true, true, true}},
		{lockkit.Retry{Backoff: lockkit.Uniform, Attempts: 1}, []bool{false, false, false}},
		{lockkit.Retry{Backoff: lockkit.Exponential, Attempts: 3}, []bool{true, true, false}},
	} {
		for i, want := range tc.want {
			if got := tc.r.Again(i + 1); got != want {
				t.Errorf("%+v after %d failures: again %v, want %v", tc.r, i+1, got, want)
			}
		}
	}
}
