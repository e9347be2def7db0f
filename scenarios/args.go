package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// args reads one command's key=value arguments strictly: a bad value, a missing
// required one, or one the command does not take is an error naming its column.
// It keeps the first error; callers check err() once at the end.
type args struct {
	file    string
	line    int
	cmd     string
	kv      map[string]token // key -> value (col points at the key)
	keys    []token          // keys in order, for unknown-argument errors
	used    map[string]bool
	allowed []string
	first   error
}

func newArgs(file string, ln int, cmd string, toks []token) (*args, []token) {
	a := &args{file: file, line: ln, cmd: cmd, kv: map[string]token{}, used: map[string]bool{}}
	var pos []token
	for _, t := range toks {
		k, v, ok := strings.Cut(t.text, "=")
		if !ok || k == "" {
			pos = append(pos, t)
			continue
		}
		if _, dup := a.kv[k]; dup {
			a.fail(t.col, "argument "+short(k)+" given twice", "keep one "+short(k)+"=...")
			continue
		}
		a.kv[k] = token{text: v, col: t.col}
		a.keys = append(a.keys, token{text: k, col: t.col})
	}
	return a, pos
}

func (a *args) fail(col int, msg, hint string) {
	if a.first == nil {
		a.first = &Error{File: a.file, Line: a.line, Col: col, Msg: msg, Hint: hint}
	}
}

// take marks key as one this command accepts and returns its value token.
func (a *args) take(key string) (token, bool) {
	a.allowed = append(a.allowed, key)
	t, ok := a.kv[key]
	if ok {
		a.used[key] = true
	}
	return t, ok
}

// name reads a value that names a what ("service", "sorted set"): see isWord.
func (a *args) name(key, def, what string) string {
	t, ok := a.take(key)
	switch {
	case !ok:
		return def
	case t.text == "":
		a.fail(t.col, key+"= names no "+what, wordHint)
	case !isWord(t.text):
		a.fail(t.col, key+"="+short(t.text)+" is not a name", wordHint)
	}
	return t.text
}

func (a *args) required(key, what string) (token, bool) {
	t, ok := a.take(key)
	if !ok {
		a.fail(1, a.cmd+" needs "+key+"=", key+"= names "+what)
	}
	return t, ok
}

func (a *args) oneOf(key, def string, choices ...string) string {
	t, ok := a.take(key)
	if !ok {
		return def
	}
	if !slices.Contains(choices, t.text) {
		a.fail(t.col, fmt.Sprintf("%s=%s is not a choice", key, short(t.text)), key+" is one of: "+strings.Join(choices, ", "))
		return def
	}
	return t.text
}

func (a *args) onOff(key string, def bool) bool {
	d := "off"
	if def {
		d = "on"
	}
	return a.oneOf(key, d, "on", "off") == "on"
}

func (a *args) dur(key string, def time.Duration) time.Duration {
	t, ok := a.take(key)
	if !ok {
		return def
	}
	d, err := parseDuration(t.text)
	if err != nil || d < 0 {
		a.fail(t.col, fmt.Sprintf("%s=%s is not a duration", key, short(t.text)), "write a duration like 10s, 250ms or 1.5s")
		return def
	}
	if d > sim.MaxDuration {
		a.fail(t.col, fmt.Sprintf("%s=%s is longer than %s", key, short(t.text), maxDurationText), maxDurationHint)
		return def
	}
	return d
}

// positive reads a duration that must be more than 0; hint says what to write
// ("" for a generic hint naming the default).
func (a *args) positive(key string, def time.Duration, hint string) time.Duration {
	d := a.dur(key, def)
	if t, ok := a.kv[key]; ok && d <= 0 {
		if hint == "" {
			hint = "write a duration like " + sim.FormatDuration(def)
		}
		a.fail(t.col, key+" must be more than 0", hint)
	}
	return d
}

// signedDur reads a duration that may be negative (a clock behind true time).
func (a *args) signedDur(key string, def time.Duration) time.Duration {
	t, ok := a.take(key)
	if !ok {
		return def
	}
	d, err := parseDuration(t.text)
	if err != nil || d > sim.MaxDuration || d < -sim.MaxDuration {
		a.fail(t.col, fmt.Sprintf("%s=%s is not a duration within %s either way", key, short(t.text), maxDurationText), "write a duration like 2s or -1.5s")
		return def
	}
	return d
}

func (a *args) int(key string, def, lo, hi int64) int64 {
	t, ok := a.take(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil || n < lo || n > hi {
		a.fail(t.col, fmt.Sprintf("%s=%s is not a whole number from %d to %d", key, short(t.text), lo, hi),
			fmt.Sprintf("write %s=%d, say", key, min(max(def, lo), hi)))
		return def
	}
	return n
}

// size reads a byte count in decimal units: 4GB, 512MB, 1.5GB.
func (a *args) size(key string, def, lo, hi int64) int64 {
	t, ok := a.take(key)
	if !ok {
		return def
	}
	n, err := parseSize(t.text)
	if err != nil || n < lo || n > hi {
		a.fail(t.col, fmt.Sprintf("%s=%s is not a size from %s to %s", key, short(t.text), sim.FormatBytes(lo), sim.FormatBytes(hi)),
			fmt.Sprintf("write a size in MB or GB, like %s=%s", key, sim.FormatBytes(def)))
		return def
	}
	return n
}

// parseSize reads a number of bytes with a decimal unit (KB, MB, GB or TB).
func parseSize(s string) (int64, error) {
	u := strings.ToUpper(s)
	for i, unit := range []string{"TB", "GB", "MB", "KB"} {
		if num, ok := strings.CutSuffix(u, unit); ok {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil || !(f >= 0 && f <= 1e6) { // also refuses NaN
				return 0, fmt.Errorf("bad size %q", s)
			}
			return int64(f * math.Pow(1000, float64(4-i))), nil
		}
	}
	return 0, fmt.Errorf("size %q has no unit", s)
}

func (a *args) prob(key string, def float64) float64 {
	t, ok := a.take(key)
	if !ok {
		return def
	}
	p, err := strconv.ParseFloat(t.text, 64)
	if err != nil || !(p >= 0 && p <= 1) { // also rejects NaN
		a.fail(t.col, fmt.Sprintf("%s=%s is not a probability", key, short(t.text)), "write a number from 0 to 1, like 0.1")
		return def
	}
	return p
}

// err reports the first error, or an argument the command does not take.
func (a *args) err() error {
	if a.first != nil {
		return a.first
	}
	for _, k := range a.keys {
		if !a.used[k.text] {
			hint := a.cmd + " takes no arguments"
			if len(a.allowed) > 0 {
				hint = a.cmd + " takes: " + strings.Join(a.allowed, ", ")
				if s := closest(k.text, a.allowed); s != "" {
					hint = "did you mean " + s + "=? " + hint
				}
			}
			return &Error{File: a.file, Line: a.line, Col: k.col, Msg: "unknown argument " + short(k.text) + " for " + a.cmd, Hint: hint}
		}
	}
	return nil
}

// The longest duration the language takes, as a person writes it, and the hint
// that goes with refusing a longer one.
var (
	maxDurationText = hours(sim.MaxDuration)
	maxDurationHint = "durations are at most " + maxDurationText + ", far longer than any run (at most " + hours(sim.MaxRunTime) + ")"
)

func hours(d time.Duration) string { return fmt.Sprintf("%dh", d/time.Hour) }

// parseDuration reads a Go duration ("10s", "1.5s", "250ms"), and a bare 0.
func parseDuration(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	return time.ParseDuration(s)
}

// closest returns the candidate nearest to s by edit distance, if it is close.
func closest(s string, cands []string) string {
	best, bestD := "", 3
	for _, c := range cands {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
