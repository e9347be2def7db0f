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

// Args reads the words after a kind on a declaration line (`client c1
// redis-lock server=r1 ttl=5s`), or after a verb in a command (`c1 acquire L
// ttl=5s`), strictly: a bad value, a missing required argument, or one that
// nothing read is an error naming its column. A kind's Build and a verb's Parse
// read every argument they take through it, whatever the others say: the
// registry lists a kind's arguments by calling its Build with none, and the
// parser refuses any argument that nothing read. Args keeps the first error;
// the parser reports it once the reading is done.
type Args struct {
	file    string
	line    int
	cmd     string
	kv      map[string]token // key -> value (col points at the key)
	keys    []token          // keys in order, for unknown-argument errors
	used    map[string]bool
	allowed []string
	first   error

	// For a declaration or a command: the parser that reads the line (nil for a
	// dry run, which records the arguments read instead).
	p     *parser
	ln    line
	self  string       // the declared process's name, or the commanded one's
	pos   []token      // the words that are not key=value
	usage string       // a command's usage, for errors about its words
	early error        // the first error about the words or the processes named: it comes before any value's
	dry   *[]Arg       // a dry run: the arguments read, in order
	named []sim.ProcID // the processes its arguments name
}

// Arg is one argument a kind takes, as its Build reads it: the name, the form
// of its value, its default as text, whether it is required, and for an
// argument that names processes, the kind they must be.
type Arg struct {
	Name     string // the key: "ttl" in ttl=3s
	Form     string // DUR, N, NAME, A,B,..., on|off, one|two|three
	Default  string // "" for none
	Required bool   // the declaration must give it
	Refers   string // the kind of the processes it names ("" for none)
}

func newArgs(file string, ln int, cmd string, toks []token) (*Args, []token) {
	a := &Args{file: file, line: ln, cmd: cmd, kv: map[string]token{}, used: map[string]bool{}}
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

// dryArgs reads nothing and records what a Build or a Parse asks for.
func dryArgs(cmd string) (*Args, *[]Arg) {
	a, _ := newArgs("", 0, cmd, nil)
	rec := &[]Arg{}
	a.dry = rec
	return a, rec
}

func (a *Args) fail(col int, msg, hint string) {
	if a.first == nil {
		a.first = &Error{File: a.file, Line: a.line, Col: col, Msg: msg, Hint: hint}
	}
}

// note records, in a dry run, an argument read with the form and default given.
func (a *Args) note(key, form, def string) {
	if a.dry == nil {
		return
	}
	for i, r := range *a.dry {
		if r.Name == key {
			if (*a.dry)[i].Form == "" {
				(*a.dry)[i].Form = form
			}
			return
		}
	}
	*a.dry = append(*a.dry, Arg{Name: key, Form: form, Default: def})
}

// take marks key as one this command accepts and returns its value token.
func (a *Args) take(key string) (token, bool) {
	a.note(key, "", "")
	a.allowed = append(a.allowed, key)
	t, ok := a.kv[key]
	if ok {
		a.used[key] = true
	}
	return t, ok
}

// Given reports whether the line gives key, without reading it.
func (a *Args) Given(key string) bool {
	_, ok := a.kv[key]
	return ok
}

// Value reads key as free text (its checks are the caller's): the value, and
// whether the line gives it.
func (a *Args) Value(key, form string) (string, bool) {
	a.note(key, form, "")
	t, ok := a.take(key)
	return t.text, ok
}

// Fail reports an error at key's column (the line's start when it is not
// given). The first error reported on a line is the one the user sees.
func (a *Args) Fail(key, msg, hint string) {
	col := 1
	if t, ok := a.kv[key]; ok {
		col = t.col
	}
	a.fail(col, msg, hint)
}

// Failed reports whether an error has been reported: a check that only makes
// sense on good values (a TTL against its minimum) waits for the others.
func (a *Args) Failed() bool { return a.first != nil || a.early != nil }

// Name reads a value that names a what ("service", "sorted set"): see isWord.
func (a *Args) Name(key, def, what string) string {
	a.note(key, "NAME", def)
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

// Required reads key, which the line must give: what says what it names, for
// the hint when it is missing.
func (a *Args) Required(key, what string) (string, bool) {
	a.required(key)
	t, ok := a.take(key)
	if !ok {
		col, hint := 1, key+"= names "+what
		for _, k := range a.keys { // a misspelling of it on the line: point at it
			if k.text != key && closest(k.text, []string{key}) == key {
				col, hint = k.col, "did you mean "+key+"=? ("+short(k.text)+"= is not an argument of "+a.cmd+"); "+hint
				break
			}
		}
		a.fail(col, a.cmd+" needs "+key+"=", hint)
	}
	return t.text, ok
}

func (a *Args) required(key string) {
	a.note(key, "", "")
	if a.dry != nil {
		for i := range *a.dry {
			if (*a.dry)[i].Name == key {
				(*a.dry)[i].Required = true
			}
		}
	}
}

// OneOf reads one of choices, def when the line does not give it.
func (a *Args) OneOf(key, def string, choices ...string) string {
	a.note(key, strings.Join(choices, "|"), def)
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

// Switch reads a two-way choice into a bool: off or on, def saying which is the
// default (a protocol's DefaultConfig field).
func (a *Args) Switch(key string, def bool, off, on string) bool {
	d := off
	if def {
		d = on
	}
	return a.OneOf(key, d, off, on) == on
}

// OnOff reads on or off.
func (a *Args) OnOff(key string, def bool) bool {
	d := "off"
	if def {
		d = "on"
	}
	return a.OneOf(key, d, "on", "off") == "on"
}

// Dur reads a duration of 0 or more.
func (a *Args) Dur(key string, def time.Duration) time.Duration {
	a.note(key, "DUR", durText(def))
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

// Positive reads a duration that must be more than 0; hint says what to write
// ("" for a generic hint naming the default).
func (a *Args) Positive(key string, def time.Duration, hint string) time.Duration {
	d := a.Dur(key, def)
	if t, ok := a.kv[key]; ok && d <= 0 {
		if hint == "" {
			hint = "write a duration like " + sim.FormatDuration(def)
		}
		a.fail(t.col, key+" must be more than 0", hint)
	}
	return d
}

// signedDur reads a duration that may be negative (a clock behind true time).
func (a *Args) signedDur(key string, def time.Duration) time.Duration {
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

// Int reads a whole number from lo to hi.
func (a *Args) Int(key string, def, lo, hi int64) int64 {
	a.note(key, "N", strconv.FormatInt(def, 10))
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
func (a *Args) size(key string, def, lo, hi int64) int64 {
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

func (a *Args) prob(key string, def float64) float64 {
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

// unused is the first argument nothing read.
func (a *Args) unused() (token, bool) {
	for _, k := range a.keys {
		if !a.used[k.text] {
			return k, true
		}
	}
	return token{}, false
}

// err reports the first error, or an argument the command does not take.
func (a *Args) err() error {
	if a.early != nil {
		return a.early
	}
	if a.first != nil {
		return a.first
	}
	if k, ok := a.unused(); ok {
		hint := a.cmd + " takes no arguments"
		if len(a.allowed) > 0 {
			hint = a.cmd + " takes: " + strings.Join(a.allowed, ", ")
			if s := closest(k.text, a.allowed); s != "" {
				hint = "did you mean " + s + "=? " + hint
			}
		}
		return &Error{File: a.file, Line: a.line, Col: k.col, Msg: "unknown argument " + short(k.text) + " for " + a.cmd, Hint: hint}
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

// closest returns the candidate nearest to s by edit distance, if it is close;
// case does not count (C1 is c1, not r1), and among equals the first wins.
func closest(s string, cands []string) string {
	best, bestD := "", 3
	for _, c := range cands {
		if strings.EqualFold(s, c) {
			return c
		}
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
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

// Closest is the candidate nearest to s by edit distance, when it is close
// enough to be a misspelling of it (case does not count), or "": for the
// command line's "did you mean" on flag values, as the parser's on words.
func Closest(s string, cands []string) string { return closest(s, cands) }
