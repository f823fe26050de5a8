package expr

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

const functionsDoc = "../../docs/functions.md"

// functionTables renders the registry as the markdown tables of
// docs/functions.md, one per family.
func functionTables() string {
	var b strings.Builder
	family := ""
	for _, f := range functionsByFamily() {
		if f.Family != family {
			family = f.Family
			fmt.Fprintf(&b, "\n### %s\n\n| Function | Signature | Description |\n|---|---|---|\n", family)
		}
		sigs := "`" + strings.Join(f.Signatures, "` <br> `") + "`"
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Name, strings.ReplaceAll(sigs, "|", `\|`),
			strings.ReplaceAll(f.Description, "|", `\|`))
	}
	return b.String()
}

// functionsByFamily sorts the functions by family, then name.
func functionsByFamily() []FuncInfo {
	fs := Functions()
	byFam := map[string][]FuncInfo{}
	var fams []string
	for _, f := range fs {
		if byFam[f.Family] == nil {
			fams = append(fams, f.Family)
		}
		byFam[f.Family] = append(byFam[f.Family], f)
	}
	var out []FuncInfo
	for _, fam := range fams {
		out = append(out, byFam[fam]...)
	}
	return out
}

// TestFunctionsDoc checks that the generated tables of docs/functions.md
// match the registry; EDDY_REWRITE_DOCS=1 rewrites them.
func TestFunctionsDoc(t *testing.T) {
	raw, err := os.ReadFile(functionsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	const begin, end = "<!-- BEGIN GENERATED -->", "<!-- END GENERATED -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated section", functionsDoc)
	}
	want := functionTables() + "\n"
	if got := doc[i+len(begin) : j]; got != want {
		if os.Getenv("EDDY_REWRITE_DOCS") != "" {
			doc = doc[:i+len(begin)] + want + doc[j:]
			if err := os.WriteFile(functionsDoc, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the function tables of %s are stale; run EDDY_REWRITE_DOCS=1 go test ./internal/expr -run TestFunctionsDoc", functionsDoc)
	}
	for _, f := range Functions() {
		if f.Description == "" || len(f.Signatures) == 0 || f.Family == "" {
			t.Errorf("%s has no description, signature or family", f.Name)
		}
	}
}

// TestSuggestFunction checks the did-you-mean of unknown names.
func TestSuggestFunction(t *testing.T) {
	for in, want := range map[string]string{
		"UPPPER":         "UPPER",
		"substr1ng":      "SUBSTRING",
		"regexp_extrac":  "REGEXP_EXTRACT",
		"json_valu":      "JSON_VALUE",
		"xyzzy_frobnate": "",
		"concatws":       "CONCAT_WS",
	} {
		if got := SuggestFunction(in); got != want {
			t.Errorf("SuggestFunction(%q) = %q, want %q", in, got, want)
		}
	}
	if _, ok := LookupFunction("lpad"); !ok {
		t.Error("LookupFunction is not case-insensitive")
	}
}
