package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// A page of docs/ as a script, for the docscript command of TestScript: the
// page's shell and SQL blocks are its commands, in order, and a plain block
// right after a command is what the command prints. An HTML comment
// `<!-- doc-test: skip -->` before a block leaves it out; `<!-- doc-test:
// file PATH -->` says that the block is the file PATH of the repository,
// verbatim.
//
//	docscript gen DOC SCRIPT   write SCRIPT, a bash script of DOC's
//	                           commands, and link the repository's files
//	                           into the working directory (the page's
//	                           commands run from the root of a checkout)
//	docscript check            compare what each command printed with the
//	                           block after it
//
// A shell block runs as written, but with port $PORT instead of 8080. A SQL
// block runs as `eddy sql --server $EDDY_SERVER -f` of its text, with the
// artifact id of the examples (docArtifactID) replaced by $ARTIFACT_ID, as
// the page tells its reader to do. An output block that starts with
// "Error:" means that the command block fails (its last command). Each
// line of an output block must appear in the command's output (stdout and
// stderr), in order, with any artifact id for docArtifactID; a line "..."
// stands for the lines the page leaves out, and port 8080 is $PORT.
func docScript(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: docscript gen DOC SCRIPT | docscript check")
	}
	switch {
	case args[0] == "gen" && len(args) == 3:
		genDocScript(ts, args[1], args[2])
	case args[0] == "check" && len(args) == 1:
		checkDocScript(ts)
	default:
		ts.Fatalf("usage: docscript gen DOC SCRIPT | docscript check")
	}
}

// docArtifactID is the artifact id the pages show; the reader's differs.
const docArtifactID = "art-3f9a0c2d4e1b"

type docBlock struct {
	line      int
	lang      string
	directive string
	text      string
}

var docDirective = regexp.MustCompile(`^<!--\s*doc-test:\s*(.*?)\s*-->$`)

// docBlocks returns the fenced blocks of a Markdown page.
func docBlocks(src string) ([]docBlock, error) {
	var out []docBlock
	var cur *docBlock
	directive := ""
	for i, line := range strings.Split(src, "\n") {
		if cur != nil {
			if strings.TrimSpace(line) == "```" {
				out = append(out, *cur)
				cur = nil
				continue
			}
			cur.text += line + "\n"
			continue
		}
		if m := docDirective.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			directive = m[1]
			continue
		}
		if lang, ok := strings.CutPrefix(line, "```"); ok {
			cur = &docBlock{line: i + 1, lang: strings.TrimSpace(lang), directive: directive}
			directive = ""
			continue
		}
		if strings.TrimSpace(line) != "" {
			directive = ""
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: the block does not end", cur.line)
	}
	return out, nil
}

func genDocScript(ts *testscript.TestScript, docPath, scriptPath string) {
	root := ts.Getenv("EDDY_REPO")
	blocks, err := docBlocks(ts.ReadFile(docPath))
	ts.Check(err)
	// The page runs from the root of a checkout: link the repository's
	// files (but not what running it makes) into the working directory.
	entries, err := os.ReadDir(root)
	ts.Check(err)
	for _, e := range entries {
		switch n := e.Name(); {
		case n == ".git", n == "bin", n == "build", n == "eddy-data", strings.HasSuffix(n, ".wasm"), strings.HasSuffix(n, ".log"):
		default:
			ts.Check(os.Symlink(filepath.Join(root, n), ts.MkAbs(n)))
		}
	}
	var b strings.Builder
	b.WriteString(`set -euo pipefail
cur=
trap 'rc=$?; if [ $rc -ne 0 ] && [ -n "$cur" ]; then echo "== failed: $cur"; cat "$cur.out" 2>/dev/null; fi; kill -INT $(jobs -p) 2>/dev/null || true; wait; exit $rc' EXIT
`)
	n := 0
	for i := 0; i < len(blocks); i++ {
		bl := blocks[i]
		kind, arg, _ := strings.Cut(bl.directive, " ")
		switch {
		case kind == "skip":
			continue
		case kind == "file":
			want, err := os.ReadFile(filepath.Join(root, arg))
			ts.Check(err)
			if string(want) != bl.text {
				ts.Fatalf("%s:%d: the block is not %s as it is:\n%s", docPath, bl.line, arg, want)
			}
			continue
		case kind != "":
			ts.Fatalf("%s:%d: unknown doc-test directive %q", docPath, bl.line, bl.directive)
		}
		if bl.lang != "sh" && bl.lang != "sql" {
			continue
		}
		n++
		name := fmt.Sprintf("block%d", n)
		cmd := strings.ReplaceAll(bl.text, "127.0.0.1:8080", "127.0.0.1:$PORT")
		if bl.lang == "sql" {
			ts.Check(os.WriteFile(ts.MkAbs(name+".sql"), []byte(bl.text), 0o644))
			cmd = fmt.Sprintf("sed \"s/%s/$ARTIFACT_ID/g\" %s.sql | eddy sql --server $EDDY_SERVER -f -\n", docArtifactID, name)
		}
		fmt.Fprintf(&b, "\n# %s:%d\ncur=%s\necho '== %s:%d'\n", docPath, bl.line, name, filepath.Base(docPath), bl.line)
		var expect *docBlock
		if i+1 < len(blocks) && blocks[i+1].lang == "" && blocks[i+1].directive == "" {
			expect = &blocks[i+1]
			i++
		}
		switch {
		case expect == nil:
			b.WriteString(cmd)
		case strings.HasPrefix(expect.text, "Error:"):
			fmt.Fprintf(&b, "set +e\n(\nset -e\n%s) > %s.out 2>&1\nrc=$?\nset -e\ncat %s.out\nif [ $rc -eq 0 ]; then echo '%s:%d: the commands did not fail'; exit 1; fi\n",
				cmd, name, name, filepath.Base(docPath), bl.line)
		default:
			fmt.Fprintf(&b, "{\n%s} > %s.out 2>&1\ncat %s.out\n", cmd, name, name)
		}
		if expect != nil {
			ts.Check(os.WriteFile(ts.MkAbs(name+".expect"), []byte(strconv.Itoa(expect.line)+" "+docPath+"\n"+expect.text), 0o644))
		}
	}
	b.WriteString("cur=\necho '== the page ran to its end'\n")
	ts.Check(os.WriteFile(ts.MkAbs(scriptPath), []byte(b.String()), 0o644))
}

func checkDocScript(ts *testscript.TestScript) {
	expects, err := filepath.Glob(ts.MkAbs("block*.expect"))
	ts.Check(err)
	if len(expects) == 0 {
		ts.Fatalf("no output blocks: run docscript gen first")
	}
	id := regexp.QuoteMeta(docArtifactID)
	for _, path := range expects {
		raw, err := os.ReadFile(path)
		ts.Check(err)
		where, want, _ := strings.Cut(string(raw), "\n")
		got, err := os.ReadFile(strings.TrimSuffix(path, ".expect") + ".out")
		ts.Check(err)
		lines := strings.Split(string(got), "\n")
		at := 0
		for _, w := range strings.Split(want, "\n") {
			w = strings.TrimRight(w, " ")
			if w == "" || w == "..." {
				continue
			}
			w = strings.ReplaceAll(w, "127.0.0.1:8080", "127.0.0.1:"+ts.Getenv("PORT"))
			re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(w), id, "art-[0-9a-f]{12}") + "$")
			found := false
			for at < len(lines) {
				l := strings.TrimRight(lines[at], " ")
				at++
				if re.MatchString(l) {
					found = true
					break
				}
			}
			if !found {
				line, doc, _ := strings.Cut(where, " ")
				ts.Fatalf("%s: the output block at line %s says\n\t%s\nwhich the command did not print (in this order); it printed:\n%s", doc, line, w, got)
			}
		}
	}
}
