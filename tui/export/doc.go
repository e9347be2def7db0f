// Package export writes a finished run in the forms people and other tools
// read: the text report `locksim run` prints (text.go), the comparison's JSON
// (json_compare.go, lined up by the layout), a Mermaid
// sequence diagram (Markdown on GitHub, the live editor), a standalone SVG image
// of the timeline (slides and papers), the walk as 16:9 slides (stops.go), and
// one self-contained HTML file that steps through the run offline, or walks its
// story (docs/exports.md). Each can be cut to a stretch of true time (Window). The JSON event list is the
// JSON output's (scenarios.EventList).
//
// Everything is drawn from the layout's rows (tui/layout): the same columns,
// cells and spans the text timeline and the terminal UI show, so the formats
// never disagree with each other; two runs side by side are lined up by the
// layout's own Compare, as the terminal UI's compare lines them up, and a quiet
// view is the layout's Filter. Nothing here re-simulates. The SVG and the HTML
// share one drawing; the HTML cuts it into chunks of rows and shows only the
// chunks in view, so a run of a hundred thousand events opens at once.
//
// May import: sim, sim/check, tui/layout, scenarios.
package export
