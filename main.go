// Command ilinkdash is a terminal dashboard for iLink clusters, with an
// embedded iLink client and an in-process iLink engine (the default target).
package main

import (
	"os"

	"ilinkdash/cli"
)

func main() { os.Exit(cli.Main()) }
