package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCustomBinary builds this program and runs a script that calls the
// compiled-in function through SQL.
func TestCustomBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "my-eddy")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	script := `CREATE FUNCTION Greet AS 'acme.Greet';
CREATE TABLE people (name STRING);
INSERT INTO people VALUES ('Ada'), ('Linus');
SET 'sql-client.execution.result-mode' = 'changelog';
SELECT * FROM Greet(input => TABLE people);`
	out, err := exec.Command(bin, "sql", "--data-dir", filepath.Join(dir, "data"), "-e", script).CombinedOutput()
	if err != nil {
		t.Fatalf("running the custom binary: %v\n%s", err, out)
	}
	for _, want := range []string{"Hello, Ada!", "Hello, Linus!", "greeting"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The user-defined scalar function.
	out, err = exec.Command(bin, "sql", "--data-dir", filepath.Join(dir, "data3"), "-e",
		"CREATE FUNCTION Shout AS 'acme.Shout'; SELECT Shout('hi', 3) AS a, Shout('yo') AS b;").CombinedOutput()
	if err != nil {
		t.Fatalf("running Shout: %v\n%s", err, out)
	}
	for _, want := range []string{"HI!!!", "YO!"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The built-in examples are still there.
	out, err = exec.Command(bin, "sql", "--data-dir", filepath.Join(dir, "data2"), "-e",
		"CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker'").CombinedOutput()
	if err != nil {
		t.Fatalf("examples are not registered: %v\n%s", err, out)
	}
}
