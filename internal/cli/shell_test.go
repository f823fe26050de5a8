package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitFor polls until out contains s.
func waitFor(t *testing.T, out *syncBuffer, s string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), s) },
		5*time.Second, 5*time.Millisecond, "waiting for %q in:\n%s", s, out)
}

// testShell is a shell on the fake engine reading from a pipe, with
// interrupts sent by the test.
type testShell struct {
	eng        *fakeEngine
	stdin      *io.PipeWriter
	out        *syncBuffer
	interrupts chan os.Signal
	done       chan error
}

func startShell(t *testing.T, tty bool) *testShell {
	eng, err := openFake(t.Context(), "")
	require.NoError(t, err)
	pr, pw := io.Pipe()
	ts := &testShell{
		eng:        eng.(*fakeEngine),
		stdin:      pw,
		out:        &syncBuffer{},
		interrupts: make(chan os.Signal, 1),
		done:       make(chan error, 1),
	}
	in := newPlainReader(pr, ts.out, true, ts.interrupts)
	sh := &shell{
		eng: eng, out: ts.out, in: in, interrupts: ts.interrupts,
		tty: tty, size: func() (int, int) { return 80, 24 }, version: "test",
	}
	go func() { ts.done <- sh.run(context.Background()) }()
	t.Cleanup(func() {
		pw.Close()
		in.Close()
	})
	return ts
}

func (ts *testShell) send(t *testing.T, s string) {
	t.Helper()
	_, err := io.WriteString(ts.stdin, s)
	require.NoError(t, err)
}

func (ts *testShell) wait(t *testing.T) {
	t.Helper()
	require.NoError(t, ts.exit(t))
}

// exit waits for the shell to end and returns its error.
func (ts *testShell) exit(t *testing.T) error {
	t.Helper()
	select {
	case err := <-ts.done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("the shell did not exit; output:\n%s", ts.out)
		return nil
	}
}

// TestShellInterrupt: Ctrl-C cancels a running query and returns to the
// prompt; a second Ctrl-C at the empty prompt exits.
func TestShellInterrupt(t *testing.T) {
	ts := startShell(t, false)
	started := make(chan struct{})
	ts.eng.started = started
	waitFor(t, ts.out, prompt)
	ts.send(t, "SET 'sql-client.execution.result-mode' = 'changelog';\nSELECT *\n  FROM endless;\n")
	<-started
	ts.interrupts <- os.Interrupt
	waitFor(t, ts.out, "Query terminated, received a total of 1 row\n")
	ts.interrupts <- os.Interrupt
	ts.wait(t)
	require.Equal(t, banner("test")+
		prompt+"[INFO] Execute statement succeeded.\n\n"+
		prompt+contPrompt+
		"+----+-------------+--------------------------------+\n"+
		"| op |    order_id |                         status |\n"+
		"+----+-------------+--------------------------------+\n"+
		"| +I |           1 |                          first |\n"+
		"+----+-------------+--------------------------------+\n"+
		"Query terminated, received a total of 1 row\n\n"+
		prompt+"^C\nBye!\n",
		ts.out.String())
}

// TestShellInterruptAtPrompt: Ctrl-C on a partial entry discards it; one
// Ctrl-C at an empty prompt only warns; the session goes on.
func TestShellInterruptAtPrompt(t *testing.T) {
	ts := startShell(t, false)
	waitFor(t, ts.out, prompt)
	ts.send(t, "SELECT * FROM\n")
	waitFor(t, ts.out, contPrompt)
	ts.interrupts <- os.Interrupt // discards "SELECT * FROM"
	waitFor(t, ts.out, "^C\n"+prompt)
	ts.interrupts <- os.Interrupt // empty prompt: warn
	waitFor(t, ts.out, "Press Ctrl-C again")
	ts.send(t, "SHOW TABLES;\n")
	waitFor(t, ts.out, "3 rows in set")
	ts.send(t, "exit\n") // a bare command needs no ';'
	ts.wait(t)
	out := ts.out.String()
	require.NotContains(t, out, "[ERROR]")
	require.True(t, strings.HasSuffix(out, prompt+"Bye!\n"), out)
}

// TestShellTerminate: SIGTERM cancels the running query and ends the shell
// with status 143; so it does at the prompt.
func TestShellTerminate(t *testing.T) {
	ts := startShell(t, false)
	started := make(chan struct{})
	ts.eng.started = started
	waitFor(t, ts.out, prompt)
	ts.send(t, "SELECT * FROM endless; SHOW TABLES;\n")
	<-started
	ts.interrupts <- syscall.SIGTERM
	require.Equal(t, 143, ExitCode(ts.exit(t)))
	require.NotContains(t, ts.out.String(), "table name", "the entry's next statement did not run")
	require.True(t, strings.HasSuffix(ts.out.String(), "Terminated.\n"), ts.out.String())

	ts = startShell(t, false)
	waitFor(t, ts.out, prompt)
	ts.interrupts <- syscall.SIGTERM
	require.Equal(t, 143, ExitCode(ts.exit(t)))
}

// TestShellLiveTable: in table mode on a terminal the table is redrawn in
// place while the query runs, and left in full when it is cancelled.
func TestShellLiveTable(t *testing.T) {
	ts := startShell(t, true)
	started := make(chan struct{})
	ts.eng.started = started
	waitFor(t, ts.out, prompt)
	ts.send(t, "SELECT * FROM endless;\n")
	<-started
	waitFor(t, ts.out, "1 row, updating. Press Ctrl-C to stop.\n")
	ts.interrupts <- os.Interrupt
	waitFor(t, ts.out, "Query terminated, 1 row in set\n")
	ts.stdin.Close()
	ts.wait(t)
	out := ts.out.String()
	live := "\x1b[J" + // first draw: nothing to move over
		"+----------+--------+\n" +
		"| order_id | status |\n" +
		"+----------+--------+\n" +
		"|        1 |  first |\n" +
		"+----------+--------+\n" +
		"1 row, updating. Press Ctrl-C to stop.\n"
	require.Contains(t, out, live)
	final := "\x1b[6F\x1b[J" + // back over the 6 lines drawn, and clear
		"+----------+--------+\n" +
		"| order_id | status |\n" +
		"+----------+--------+\n" +
		"|        1 |  first |\n" +
		"+----------+--------+\n" +
		"Query terminated, 1 row in set\n"
	require.Contains(t, out, final)
}

func TestPlainReader(t *testing.T) {
	var out bytes.Buffer
	r := newPlainReader(strings.NewReader("SELECT 1\n  ;\nSELECT 'a\n;b';\nquit\nSELECT 2"), &out, true, nil)
	defer r.Close()
	ctx := t.Context()
	for _, want := range []string{"SELECT 1\n  ;", "SELECT 'a\n;b';", "quit"} {
		got, err := r.Read(ctx)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	got, err := r.Read(ctx)
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, "SELECT 2", got)
	_, err = r.Read(ctx)
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, prompt+contPrompt+prompt+contPrompt+prompt+prompt+prompt, out.String())
}

func TestShellCommand(t *testing.T) {
	for in, want := range map[string]shellCmd{
		"quit;": cmdQuit, " EXIT ; ": cmdQuit, "exit": cmdQuit, "HELP;": cmdHelp, "help": cmdHelp,
	} {
		got, ok := shellCommand(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"quit it;", "SELECT 1;", "helpme", ""} {
		_, ok := shellCommand(in)
		require.False(t, ok, in)
	}
}

func TestScreenLines(t *testing.T) {
	require.Equal(t, 0, screenLines("", 80))
	require.Equal(t, 2, screenLines("a\nb\n", 80))
	require.Equal(t, 3, screenLines(strings.Repeat("x", 81)+"\nb\n", 80))
	require.Equal(t, 1, screenLines(strings.Repeat("x", 80)+"\n", 80))
}

func TestCaretPad(t *testing.T) {
	require.Equal(t, "", caretPad("abc", 1))
	require.Equal(t, "  ", caretPad("abc", 3))
	require.Equal(t, "\t ", caretPad("\tab", 3))
	line, ok := lineAt("a\r\nbc\nd", 2)
	require.True(t, ok)
	require.Equal(t, "bc", line)
}

func TestDarkBackground(t *testing.T) {
	for in, want := range map[string]bool{"": true, "15;0": true, "0;15": false, "0;default;15": false, "0;7": false, "7;8": true, "x": true} {
		require.Equal(t, want, darkBackground(in), "COLORFGBG=%q", in)
	}
}
