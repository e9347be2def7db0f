package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// FormatDuration builds its text without fmt; it says exactly what the fmt
// form said, for every kind of duration.
func TestFormatDurationIsTheFmtForm(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []time.Duration{0, 1, -1, time.Millisecond, -time.Millisecond, time.Microsecond, 1500 * time.Millisecond,
		-2500 * time.Microsecond, time.Hour, math.MaxInt64, math.MinInt64 + 1, math.MinInt64, 999_999_999, -999_999_999}
	for range 100000 {
		d := time.Duration(r.Int64())
		switch r.IntN(3) {
		case 0:
			d = d / time.Duration(time.Millisecond) * time.Duration(time.Millisecond)
		case 1:
			d = d / time.Duration(time.Microsecond) * time.Duration(time.Microsecond)
		}
		if r.IntN(2) == 0 {
			d = -d
		}
		cases = append(cases, d%time.Duration(1<<uint(r.IntN(63))))
	}
	for _, d := range cases {
		if Time(d) == Never {
			continue
		}
		if got, want := FormatDuration(d), formatDurationSlow(d); got != want {
			t.Fatalf("FormatDuration(%d) = %q, the fmt form %q", int64(d), got, want)
		}
	}
}
