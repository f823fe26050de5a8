package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	yaml "go.yaml.in/yaml/v3"
)

// printStatement prints the statement a command ends with: the whole
// resource with -o json or yaml; nothing more in table form, where the
// command's messages said what happened.
func (s *statementCmd) printStatement(st *v1.Statement) error {
	if s.output == "table" || st == nil {
		return nil
	}
	return s.printValue(st)
}

// printValue prints v as JSON or YAML, following -o.
func (s *statementCmd) printValue(v any) error {
	if s.output == "yaml" {
		return writeYAML(s.out(), v)
	}
	return writeJSON(s.out(), v)
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeYAML writes v as YAML with the field names and order of its JSON
// form: v is encoded to JSON, read back as a YAML node tree (JSON is YAML)
// and written in block style.
func writeYAML(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	blockStyle(&doc)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	return enc.Close()
}

// blockStyle drops the flow style and quoting JSON gave every node; the
// encoder quotes the strings that need it.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// timeText renders a time in UTC, RFC 3339, or "" for the zero time.
func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// oneLine squeezes the blanks and newlines of a SQL text and cuts it to n
// characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// writeStatementTable writes a list of statements, one per line.
func writeStatementTable(w io.Writer, list []v1.Statement) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPHASE\tCREATED\tSTATEMENT")
	for _, st := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", st.Name, st.Status.Phase, timeText(st.Metadata.CreatedAt), oneLine(st.Spec.Statement, 60))
	}
	return tw.Flush()
}

// writeExceptionTable writes exceptions, newest first.
func writeExceptionTable(w io.Writer, exs []v1.Exception) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tNAME\tMESSAGE")
	for _, e := range exs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", timeText(e.Timestamp), e.Name, strings.ReplaceAll(e.Message, "\n", " "))
	}
	return tw.Flush()
}

// writeStatementDetail writes one statement as "Key: value" lines, the SQL
// last.
func writeStatementDetail(w io.Writer, st *v1.Statement) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 8, 1, ' ', 0)
	field := func(key string, lines ...string) {
		if len(lines) == 0 || (len(lines) == 1 && lines[0] == "") {
			return
		}
		fmt.Fprintf(tw, "%s:\t%s\n", key, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(tw, "\t%s\n", l)
		}
	}
	field("Name", st.Name)
	field("Phase", string(st.Status.Phase))
	field("Detail", strings.Split(st.Status.Detail, "\n")...)
	field("Stopped", fmt.Sprint(st.Spec.Stopped))
	if t := st.Status.Traits; t != nil {
		field("Kind", traitsText(t))
		if t.Schema != nil {
			var cols []string
			for _, c := range t.Schema.Columns {
				col := c.Name + " " + c.Type
				if !c.Nullable {
					col += " NOT NULL"
				}
				cols = append(cols, col)
			}
			field("Columns", strings.Join(cols, ", "))
		}
	}
	field("Created", timeText(st.Metadata.CreatedAt))
	field("Updated", timeText(st.Metadata.UpdatedAt))
	if st.Status.StartTime != nil {
		field("Started", timeText(*st.Status.StartTime))
	}
	if st.Status.EndTime != nil {
		field("Ended", timeText(*st.Status.EndTime))
	}
	field("Resource version", st.Metadata.ResourceVersion)
	field("UID", st.Metadata.UID)
	field("Labels", sortedPairs(st.Metadata.Labels)...)
	field("Properties", sortedPairs(st.Spec.Properties)...)
	field("State carried from", st.Status.StateCarriedFrom)
	var offsets []string
	for _, k := range slices.Sorted(maps.Keys(st.Status.LatestOffsets)) {
		offsets = append(offsets, k+" "+st.Status.LatestOffsets[k])
	}
	field("Latest offsets", offsets...)
	var warnings []string
	for _, wn := range st.Status.Warnings {
		warnings = append(warnings, fmt.Sprintf("%s %s: %s", wn.Severity, wn.Reason, wn.Message))
	}
	field("Warnings", warnings...)
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("Statement:\n")
	for _, l := range splitLines(st.Spec.Statement) {
		b.WriteString("  " + l + "\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// traitsText renders "SELECT (unbounded, upsert on columns 0)".
func traitsText(t *v1.Traits) string {
	if t.SQLKind == "" {
		return ""
	}
	var parts []string
	if t.IsBounded {
		parts = append(parts, "bounded")
	} else {
		parts = append(parts, "unbounded")
	}
	switch {
	case t.IsAppendOnly:
		parts = append(parts, "append-only")
	case len(t.UpsertColumns) > 0:
		parts = append(parts, fmt.Sprintf("upsert key columns %v", t.UpsertColumns))
	}
	return t.SQLKind + " (" + strings.Join(parts, ", ") + ")"
}
