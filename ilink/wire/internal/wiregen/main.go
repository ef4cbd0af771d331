// Command wiregen writes ilink/wire/messages_gen.go, and the layout table
// of docs/PROTOCOL.md, from ilink/wire/messages.def (go generate
// ./ilink/wire runs it in ilink/wire).
//
//	go run ./ilink/wire/internal/wiregen [-def messages.def] [-out messages_gen.go] [-doc ../../docs/PROTOCOL.md]
package main

import (
	"flag"
	"fmt"
	"os"

	"ilinkdash/ilink/wire/internal/wiregen/gen"
)

func main() {
	def := flag.String("def", "messages.def", "the definitions file")
	out := flag.String("out", "messages_gen.go", "the Go file to write")
	doc := flag.String("doc", "", "a document whose layout table to rewrite (between the wiregen markers)")
	flag.Parse()
	src, err := os.ReadFile(*def)
	if err != nil {
		fail(err)
	}
	code, err := gen.Generate(src)
	if err != nil {
		fail(fmt.Errorf("%s: %w", *def, err))
	}
	if err := os.WriteFile(*out, code, 0o644); err != nil {
		fail(err)
	}
	if *doc == "" {
		return
	}
	text, err := os.ReadFile(*doc)
	if err != nil {
		fail(err)
	}
	text, err = gen.UpdateDoc(src, text)
	if err != nil {
		fail(fmt.Errorf("%s: %w", *doc, err))
	}
	if err := os.WriteFile(*doc, text, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "wiregen:", err)
	os.Exit(1)
}
