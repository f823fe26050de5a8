package tmpdeps

import (
	_ "github.com/cockroachdb/apd/v3"
	_ "github.com/cockroachdb/datadriven"
	_ "github.com/cockroachdb/pebble/v2"
	_ "github.com/cockroachdb/pebble/v2/vfs"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/jedib0t/go-pretty/v6/table"
	_ "github.com/knz/bubbline"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/spf13/cobra"
	_ "github.com/stretchr/testify/require"
	_ "go.uber.org/goleak"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/term"
)
