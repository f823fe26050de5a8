package expr

import (
	"os"
	"strings"
	"testing"
)

// TestFunctionsDoc checks that docs/functions.md lists every registered
// function in a table row of its own.
func TestFunctionsDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/functions.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Functions() {
		if !strings.Contains(string(doc), "| `"+f.Name+"` |") {
			t.Errorf("docs/functions.md does not list %s", f.Name)
		}
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
