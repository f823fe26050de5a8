package eddy_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/eddy-sql/eddy"

// allowed lists, for each package (relative to the module), the Eddy
// packages it may import. It mirrors docs/ARCHITECTURE.md.
var allowed = map[string][]string{
	"types":                         {},
	"ptf":                           {"types"},
	"udf":                           {"types"},
	"udf/udftest":                   {"udf", "types", "internal/expr", "internal/sql/plan", "internal/jobgraph"},
	"examples":                      {"ptf", "udf", "types"},
	"internal/sqlerr":               {},
	"internal/docexample":           {},
	"internal/store":                {"internal/sqlerr"},
	"internal/logstore":             {"internal/store", "internal/sqlerr", "types"},
	"internal/state":                {"internal/store", "internal/sqlerr", "types"},
	"internal/expr":                 {"types", "internal/sqlerr"},
	"internal/jobgraph":             {"internal/expr", "internal/connector", "ptf", "types", "internal/sqlerr"},
	"internal/runtime":              {"internal/jobgraph", "internal/expr", "internal/state", "internal/logstore", "internal/store", "internal/connector", "ptf", "types", "internal/sqlerr"},
	"internal/connector":            {"types", "internal/sqlerr"},
	"internal/connector/kafka":      {"internal/connector", "internal/format", "internal/logstore", "types", "internal/sqlerr"},
	"internal/devkafka":             {"internal/sqlerr"},
	"internal/catalog":              {"types"},
	"internal/connector/datagen":    {"internal/connector", "types", "internal/expr", "internal/sqlerr"},
	"internal/connector/printsink":  {"internal/connector", "internal/format", "types"},
	"internal/connector/blackhole":  {"internal/connector", "types"},
	"internal/connector/nexmark":    {"internal/connector", "types", "internal/sqlerr"},
	"internal/connector/filesystem": {"internal/connector", "internal/format", "internal/sqlerr", "types"},
	"internal/connector/builtin":    {"internal/connector", "internal/connector/kafka", "internal/connector/datagen", "internal/connector/printsink", "internal/connector/blackhole", "internal/connector/filesystem", "internal/connector/nexmark"},
	"internal/format":               {"types", "internal/sqlerr"},
	"internal/sql/ast":              {"types", "internal/sqlerr"},
	"internal/sql/parser":           {"internal/sql/ast", "types", "internal/sqlerr"},
	"internal/sql/plan":             {"internal/sql/ast", "internal/sql/parser", "internal/catalog", "internal/jobgraph", "internal/expr", "internal/connector", "ptf", "udf", "types", "internal/sqlerr"},
	"internal/sql/opt":              {"internal/sql/plan", "internal/jobgraph", "internal/expr", "ptf", "types", "internal/sqlerr"},
	"internal/engine":               {"*"},
	"internal/nexmark":              {"*"},
	"internal/nexmark/reference":    {"internal/connector/nexmark", "types"},
	"internal/statement":            {"*"},
	"internal/server":               {"api/v1", "internal/statement", "internal/engine", "internal/runtime", "internal/store", "internal/sqlerr", "ptf", "udf", "internal/artifact", "internal/wasm"},
	"internal/local":                {"api/v1", "client", "internal/cli", "internal/engine", "internal/server", "internal/statement", "internal/sqlerr", "ptf", "udf"},
	"api/v1":                        {},
	"internal/cli":                  {"internal/sqlerr", "types", "api/v1", "client"},
	"client":                        {"api/v1"},
	"deploy":                        {"api/v1", "client", "internal/cli"},
	"ptf/ptftest":                   {"ptf", "types", "internal/ptfhost"},
	"internal/ptfhost":              {"ptf", "types", "internal/runtime", "internal/state", "internal/jobgraph", "internal/sql/plan"},
	"ptf/wasmguest":                 {"ptf", "types", "internal/wasm/wire"},
	"internal/wasm/wire":            {"ptf", "types"},
	"internal/wasm":                 {"internal/wasm/wire", "ptf", "types"},
	"internal/wasm/wasmtest":        {"internal/wasm"},
	"internal/artifact":             {"internal/store"},
	"table":                         {"*"},
	"":                              {"*"},
	"cmd/eddy":                      {"*"},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

func TestArchitecture(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	doc, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if strings.HasPrefix(rel, "examples/") {
			continue // example programs are leaves
		}
		rules, ok := allowed[rel]
		if !ok {
			t.Errorf("package %s is not in the architecture map (architecture_test.go and docs/ARCHITECTURE.md)", rel)
			continue
		}
		if rel != "" && !strings.Contains(string(doc), rel) {
			t.Errorf("package %s is missing from docs/ARCHITECTURE.md", rel)
		}
		if len(rules) > 0 && rules[0] == "*" {
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			okDep := false
			for _, a := range rules {
				if a == dep {
					okDep = true
				}
			}
			if !okDep {
				t.Errorf("%s imports %s, which crosses the layering in docs/ARCHITECTURE.md", rel, dep)
			}
		}
	}
}
