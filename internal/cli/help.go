package cli

import (
	"fmt"
	"strings"
)

// shellCmd is a command the shell handles itself.
type shellCmd int

const (
	cmdQuit shellCmd = iota + 1
	cmdHelp
)

// shellCommand recognises "quit", "exit" and "help", in any case, with or
// without the ';'.
func shellCommand(s string) (shellCmd, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	switch strings.ToLower(s) {
	case "quit", "exit":
		return cmdQuit, true
	case "help":
		return cmdHelp, true
	}
	return 0, false
}

// banner is printed when the shell starts.
func banner(version string) string {
	return fmt.Sprintf(`Welcome to the Eddy SQL shell (version %s).
Statements end with ';'. Type HELP; for help, and QUIT; or Ctrl-D to exit.

`, version)
}

// shellHelp is the text of HELP;.
const shellHelp = `Shell commands (end them with ';'):
  HELP;            Show this help.
  QUIT; or EXIT;   Leave the shell (Ctrl-D at an empty prompt, or Ctrl-C twice, too).

Statements end with ';' and may span several lines. Some to start with:
  SHOW TABLES;  SHOW FUNCTIONS;  DESCRIBE FUNCTION f;  DESCRIBE t;  SHOW CREATE TABLE t;
  CREATE TABLE t (...);  CREATE FUNCTION F AS 'examples.Name';
  INSERT INTO t SELECT ...;  SELECT ... FROM t;  EXPLAIN SELECT ...;
  SET 'key' = 'value';  RESET 'key';  SET;

A SELECT runs until you press Ctrl-C. How it is shown:
  SET 'sql-client.execution.result-mode' = 'table';      the table, updated in place (default)
  SET 'sql-client.execution.result-mode' = 'changelog';  every change, with an op column:
                                                          +I insert, -U/+U update, -D delete
  SET 'sql-client.execution.result-mode' = 'tableau';    same as changelog

Line editing (on a terminal): Up and Down step through the history, Ctrl-R
searches it, Ctrl-C clears the entry, Ctrl-D at an empty prompt exits. The
history is kept in the data directory (sql_history).
`
