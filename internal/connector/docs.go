package connector

import (
	"fmt"
	"reflect"
	"strings"
)

// Markdown renders the reference of the registered connectors from their
// declarations: per connector (sorted by identifier) what it is, whether
// it reads and writes, its options and its metadata keys.
// docs/connectors.md embeds it (a test keeps the two equal).
func (r *Registry) Markdown() string {
	var b strings.Builder
	var seen []*Spec
	for _, id := range r.Identifiers() {
		f := r.byID[id]
		s := f.Spec()
		_, source := f.(SourceFactory)
		_, sink := f.(SinkFactory)
		fmt.Fprintf(&b, "### `%s`\n\n%s\n\n", s.Identifier, s.Doc)
		var roles []string
		if source {
			roles = append(roles, "source (`FROM`)")
		}
		if sink {
			roles = append(roles, "sink (`INSERT INTO`)")
		}
		if s.Partitioned {
			roles = append(roles, "`PARTITIONED BY`, `INSERT OVERWRITE`, `INSERT ... PARTITION`")
		}
		fmt.Fprintf(&b, "Use: %s.\n\n", strings.Join(roles, ", "))
		same := ""
		for _, o := range seen {
			if reflect.DeepEqual(o.Options, s.Options) && reflect.DeepEqual(o.Metadata, s.Metadata) {
				same = o.Identifier
			}
		}
		seen = append(seen, s)
		if same != "" {
			fmt.Fprintf(&b, "Options and metadata: as `%s`.\n\n", same)
			continue
		}
		b.WriteString("| option | required | default | type | description |\n|---|---|---|---|---|\n")
		for _, o := range s.Options {
			req := ""
			if o.Required {
				req = "yes"
			}
			typ := o.Type
			if o.Type == TypeEnum {
				typ = "Enum: " + strings.Join(o.Values, ", ")
			}
			doc := o.Doc
			if o.Secret {
				doc += " Secret: shown as ****."
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", cell(o.Key), req, cell(o.Default), cell(typ), cell(doc))
		}
		b.WriteString("\n")
		if len(s.Metadata) > 0 {
			b.WriteString("| metadata key | type | writable | description |\n|---|---|---|---|\n")
			for _, m := range s.Metadata {
				w := "read-only (VIRTUAL)"
				if m.Writable {
					w = "yes"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.Key, m.Type, w, cell(m.Doc))
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// cell escapes text for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
