// Package scenarios is the scenario language: a plain-text script that teaches
// (a # paragraph with its source), sets up a topology, schedules client operations
// and faults at a time or on a trigger, and states what the checker must find. It
// parses scripts strictly (every error has file:line:column, what was expected and a
// hint), wires them into a sim.World, runs them and compares the checker's report
// with their expectations. The catalogue of published results is embedded here, one
// file per scenario. docs/scenario-language.md documents every command.
//
// This package and cmd/locksim are the edge where github.com/pkg/errors is used.
//
// May import: sim, sim/check, protocols/*.
package scenarios
