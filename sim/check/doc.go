// Package check is locksim's checker: it judges a finished run's invariants in TRUE
// time, from the trace's observations and fault events alone. It never imports a
// protocol, so a protocol cannot grade itself (the porcupine habit: the checker is
// separate from the thing it checks). Violations are data: a true time, the
// processes involved and one sentence a student can read.
//
// The names (mutex-belief, grant-exclusive, ...) are stable: scenarios, the JSON
// output and the TUI use them. Their definitions are in docs/invariants.md.
//
// May import: sim.
package check
