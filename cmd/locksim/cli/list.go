package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/locksim/locksim/scenarios"
)

func cmdList(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("list", "list [--format text|json]",
		"Lists the catalogue: every scenario's id, protocol, expected verdict and one-line summary.")
	format := fs.String("format", "text", "output format: text or json")
	pos, err := parseFlags(fs, args, stdout, stderr)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("list takes no arguments (got %q)", pos[0])
	}
	if err := checkFormat(*format, "text", "json"); err != nil {
		return err
	}
	cat, err := app.scenarioCatalogue()
	if err != nil {
		return err
	}
	if *format == "json" {
		type entry struct {
			ID       string `json:"id"`
			Protocol string `json:"protocol"`
			Verdict  string `json:"expected_verdict"`
			Summary  string `json:"summary"`
			Seed     uint64 `json:"seed"`
		}
		out := struct {
			SchemaVersion int     `json:"schema_version"`
			Scenarios     []entry `json:"scenarios"`
		}{scenarios.SchemaVersion, []entry{}}
		for _, s := range cat {
			out.Scenarios = append(out.Scenarios, entry{s.ID, s.Protocol, s.ExpectedVerdict(), s.Summary, s.Seed})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPROTOCOL\tVERDICT\tSUMMARY")
	for _, s := range cat {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.ID, s.Protocol, s.ExpectedVerdict(), s.Summary)
	}
	return tw.Flush()
}
