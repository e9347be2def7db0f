// Package layout turns a trace into a timeline grid of semantic cells: one column
// per process, true time downwards, one row per event (sends, deliveries, drops,
// timers, commands, faults) and one per violation. A cell says WHAT is there (a
// belief bar, a grant, a crash, an arrow), never how it looks: the plain-text
// rendering here is what `locksim run` prints, and the terminal UI colours the same
// cells, so the CI log and the screen never disagree.
//
// Rows are computed on demand from a small index (a few bytes per event plus the
// spans of beliefs, pauses and downtime), so a viewer lays out only visible rows.
//
// May import: sim, sim/check.
package layout
