package gen

import (
	"fmt"
	"strings"
	"testing"
)

// codeDoc is a document with the layout markers and the markers of the
// tables named.
func codeDoc(tables ...string) string {
	s := "intro\n" + DocBegin + "\n" + DocEnd + "\n"
	for _, t := range tables {
		s += "## " + t + "\n" + fmt.Sprintf(CodesBegin, t) + "\nold rows\n" + fmt.Sprintf(CodesEnd, t) + "\nprose of " + t + "\n"
	}
	return s
}

// The codes blocks write the request-code tables between their markers:
// one row a code in file order, the blocks of one table joined, "(iLink)"
// after the names of an ilink block, a note cell kept as written, and
// consecutive codes with the same note sharing one range row. The const
// blocks and names do not depend on the tables.
func TestCodeTables(t *testing.T) {
	def := "message AReq\n\tX string\n\nmessage ARep\n\tY bool\n\n" +
		"codes table one\n\tCodeA = 1000 \"A\" AReq -> ARep\n\tCodeB = 1001 \"B B\" empty -> empty // the second\n\n" +
		"codes table two\n\tCodeL1 = 2070 \"L1\" (link, §9) -> (link)\n\tCodeL2 = 2071 \"L2\" (link, §9) -> (link)\n" +
		"\tCodeC = 2072 \"C\" AReq (wait in `timeout_ms`) -> empty\n\n" +
		"codes table one ilink\n\tCodeD = 3401 \"D_D\" AReq -> ARep\n"
	out, err := UpdateDoc([]byte(def), []byte(codeDoc("one", "two")))
	if err != nil {
		t.Fatal(err)
	}
	one := fmt.Sprintf(CodesBegin, "one") + "\n\n| code | name | request | reply |\n|---:|---|---|---|\n" +
		"| 1000 | `A` | AReq | ARep |\n| 1001 | `B B` | empty | empty |\n| 3401 | `D_D` (iLink) | AReq | ARep |\n\n" +
		fmt.Sprintf(CodesEnd, "one") + "\nprose of one\n"
	two := fmt.Sprintf(CodesBegin, "two") + "\n\n| code | name | request | reply |\n|---:|---|---|---|\n" +
		"| 2070–2071 | `L1`, `L2` | (link, §9) | (link) |\n| 2072 | `C` | AReq (wait in `timeout_ms`) | empty |\n\n" +
		fmt.Sprintf(CodesEnd, "two") + "\nprose of two\n"
	outputHas(t, string(out), one, two)
	if strings.Contains(string(out), "old rows") {
		t.Errorf("the old rows stayed:\n%s", out)
	}
	outputHas(t, generated(t, def),
		"const (\n\tCodeA Code = 1000\n\tCodeB Code = 1001 // the second\n)\n",
		"const CodeD Code = 3401\n", "\"D_D\",\n")
}

// What keeps the tables true is refused, naming the line or the marker:
// a code of a table without its bodies, a body that is no declared
// message, a block in no table beside blocks in one, a table without its
// markers in the document, markers of a table no block names, and a
// malformed header or bodies.
func TestCodeTablesRefused(t *testing.T) {
	msgs := "message AReq\n\tX string\n\nstruct Part\n\tY bool\n\n"
	for _, c := range []struct{ def, doc, want string }{
		{"codes table one\n\tCodeA = 1 \"A\"\n", codeDoc("one"), "line 2: code CodeA is listed in table one but names no bodies (Request -> Reply)"},
		{msgs + "codes table one\n\tCodeA = 1 \"A\" AReq -> BRep\n", codeDoc("one"), `line 8: code CodeA carries "BRep", which is no declared message`},
		{msgs + "codes table one\n\tCodeA = 1 \"A\" Part -> empty\n", codeDoc("one"), `line 8: code CodeA carries "Part", which is no declared message`},
		{msgs + "codes table one\n\tCodeA = 1 \"A\" AReq -> empty\n\ncodes\n\tCodeB = 2 \"B\"\n", codeDoc("one"), "line 10: a codes block in no table, while others are"},
		{msgs + "codes table one\n\tCodeA = 1 \"A\" AReq -> empty\n", codeDoc("two"), "the document has no \"<!-- wiregen:codes one begin"},
		{msgs + "codes table one\n\tCodeA = 1 \"A\" AReq -> empty\n", codeDoc("one", "two"), "markers for a table no codes block names (it names one)"},
		{"codes table\n\tCodeA = 1 \"A\"\n", codeDoc(), `line 1: want codes [table NAME] [ilink], have "codes table"`},
		{"codes ilink ilink\n\tCodeA = 1 \"A\"\n", codeDoc(), `line 1: want codes [table NAME] [ilink]`},
		{msgs + "codes table one\n\tCodeA = 1 \"A\" AReq ->\n", codeDoc("one"), `line 8: want CodeName = value "NAME"`},
		{msgs + "codes table one\n\tCodeA = 1 \"A\" AReq empty\n", codeDoc("one"), `line 8: want CodeName = value "NAME"`},
	} {
		_, err := UpdateDoc([]byte(c.def), []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.def, err, c.want)
		}
	}
}
