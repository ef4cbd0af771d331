// Command gendocs writes ilinkdash's man pages into a directory:
// go run ./scripts/gendocs DIR (scripts/release.sh runs it).
package main

import (
	"fmt"
	"os"

	"ilinkdash/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/gendocs DIR")
		os.Exit(2)
	}
	if err := cli.WriteManPages(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}
