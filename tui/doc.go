// Package tui is locksim's terminal UI: a catalogue browser and a viewer that walks
// a finished, immutable trace one keypress at a time. It colours the semantic cells
// of tui/layout (it never lays the timeline out a second time), so the screen and
// `locksim run`'s plain text always agree. Nothing here re-simulates a run it shows;
// a check started from the catalogue runs in short steps, each a Bubble Tea command.
//
// May import: scenarios, scenarios/explore (a check started from the catalogue),
// sim/check, sim/fault, sim, tui/layout and the Charm libraries; never
// a protocol package.
package tui
