package plan

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// legacyOptions rewrites the options of Flink's legacy connector
// descriptors ('connector.type' = 'filesystem', 'connector.path',
// 'format.type', as Nexmark's q13 declares its side input) into the
// current ones ('connector', 'path', 'format', '<format>.*'), so that
// such scripts run and the table is stored (and shown) in today's terms.
// Only the filesystem descriptor is translated; Flink 2 itself no longer
// reads any of them.
func legacyOptions(o map[string]string, ct *ast.CreateTable) error {
	kind, ok := o["connector.type"]
	if !ok || o["connector"] != "" {
		return nil
	}
	if !strings.EqualFold(kind, "filesystem") {
		return errAt(ct.Pos(), sqlerr.InvalidOption, "Unsupported legacy option 'connector.type' = '%s'", kind).
			WithHint("declare the connector with 'connector' = '...' and its current options; Eddy translates the legacy options of 'filesystem' tables only")
	}
	delete(o, "connector.type")
	o["connector"] = "filesystem"
	if p, ok := o["connector.path"]; ok {
		delete(o, "connector.path")
		o["path"] = p
	}
	if strings.EqualFold(o["connector.property-version"], "1") {
		delete(o, "connector.property-version")
	}
	f, ok := o["format.type"]
	if !ok {
		return nil
	}
	f = strings.ToLower(f)
	delete(o, "format.type")
	o["format"] = f
	if strings.EqualFold(o["format.derive-schema"], "true") {
		delete(o, "format.derive-schema")
	}
	if strings.EqualFold(o["format.property-version"], "1") {
		delete(o, "format.property-version")
	}
	for k, v := range o {
		if rest, ok := strings.CutPrefix(k, "format."); ok {
			delete(o, k)
			o[f+"."+rest] = v
		}
	}
	return nil
}
