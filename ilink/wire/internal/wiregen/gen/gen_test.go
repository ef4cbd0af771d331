package gen

import (
	"strings"
	"testing"
)

// A definitions file with a mistake is refused, naming the line and what
// is wrong, and nothing is generated.
func TestParseRefusesMistakes(t *testing.T) {
	for _, c := range []struct{ def, want string }{
		{"message A\n\tX int\n", `line 2: field X: unknown type "int"`},
		{"message A\n\tX u8:\n", `line 2: field X: no Go type after "u8:"`},
		{"message A\n\tX B\n", "line 2: A.X: unknown type B"},
		{"message A\n\tX string\n\tX bool\n", "line 3: A.X declared twice"},
		{"message A\nmessage A\n", "line 2: A declared twice"},
		{"message A extra\n", `line 1: unknown option "extra" of message A`},
		{"struct A check\n", `line 1: unknown option "check" of struct A`},
		{"\tX string\n", "line 1: a field outside any declaration"},
		{"type A\n", "line 1: want message Name"},
		{"message A\n\tX string pooled\n", "line 2: field X: only an array can be pooled"},
		{"message A\n\tX [][]string\n", "arrays of arrays are not supported"},
		{"message A\n\tX string\n\tY bool\n\twire: Y\n", "A: wire order names 1 of 2 fields"},
		{"message A\n\tX string\n\twire: Z\n", "A: wire order names unknown field Z"},
		{"codec H P\n\tK string\nmessage A\n\tX H\n", "A.X: codec H only as an array element"},
	} {
		_, err := Generate([]byte(c.def))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.def, err, c.want)
		}
	}
}

// The bound an array count is checked against is the element's smallest
// encoding, summed from its field types, nested parts included.
func TestArrayBoundsFromFieldTypes(t *testing.T) {
	def := `
struct Err
	Name string
	Tail string

struct Part
	ID i32
	Hint u16
	Err Err
	N varint
	Big i64
	Rate f32
	Ids []varint
	Flag bool
	Seq uvarint
	Raw bytes

message M
	Parts []Part
	Ids []i32
	Nodes []u16
	Names []string
	Blobs []bytes
`
	out := generated(t, def)
	// Part: 4 + 2 + (1+1) + 1 + 8 + 4 + 1 + 1 + 1 + 1 = 25.
	outputHas(t, out,
		"m.Parts = readArray(r, 25, (*Part).decode)",
		"m.Ids = readArray(r, 4, decodeI32)",
		"m.Nodes = readArray(r, 2, decodeU16)",
		"m.Names = r.Strings()",
		"m.Blobs = readArray(r, 1, decodeBytes)",
		"m.Ids = readArray(r, 1, decodeInt)",
		"func (m *Err) decode(r *Reader)",
	)
}

// Pooled arrays are decoded by closures over reply-wide buffers, declared
// in the message's Decode; a part reached only that way gets no decode
// method of its own, a part also decoded elsewhere keeps it.
func TestPooledDecode(t *testing.T) {
	def := `
struct Leaf
	N varint

struct Mid
	Name string
	Leaves []Leaf pooled

message Reply
	Mids []Mid
	Leaf Leaf
`
	s := generated(t, def)
	outputHas(t, s,
		"var leaves []Leaf",
		"decodeMid := func(v *Mid, r *Reader) {",
		"v.Leaves = readArrayFrom(r, 1, &leaves, (*Leaf).decode)",
		"m.Mids = readArray(r, 2, decodeMid)",
		"m.Leaf.decode(r)",
		"func (m *Mid) encode(w *Writer)",
	)
	if strings.Contains(s, "func (m *Mid) decode(") {
		t.Errorf("Mid has a decode method, but it is only decoded pooled:\n%s", s)
	}
}

// A has_… array and a scalar under another Go type.
func TestNullableAndConverted(t *testing.T) {
	out := generated(t, "message M\n\tMode u8:Mode\n\tEpoch varint:int32\n\tTopics ?[]string\n")
	outputHas(t, out,
		"Mode   Mode", "Epoch  int32",
		"w.U8(uint8(m.Mode))", "m.Mode = Mode(r.U8())",
		"w.Varint(int64(m.Epoch))", "m.Epoch = int32(r.smallInt())",
		"w.Bool(m.Topics != nil)", "if r.Bool() {", "m.Topics = []string{}",
	)
}

// generated is the output of Generate on def, which must be accepted.
func generated(t *testing.T, def string) string {
	t.Helper()
	out, err := Generate([]byte(def))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// outputHas fails the test for each of wants that the generated output
// lacks.
func outputHas(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"QueueManager": "queue_manager", "MsgIDs": "msg_ids", "ID": "id", "NodeID": "node_id",
		"IlccPort": "ilcc_port", "PutTimeMs": "put_time_ms", "RecordsInPerSec": "records_in_per_sec",
		"HighWatermark": "high_watermark", "Qmgrs": "qmgrs",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestUpdateDoc(t *testing.T) {
	def := []byte("message A\n\tQueueName string\n\tIds ?[]varint\n\nstruct B\n\tX i32\n")
	doc := []byte("intro\n" + DocBegin + "\nold text\n" + DocEnd + "\nafter\n")
	out, err := UpdateDoc(def, doc)
	if err != nil {
		t.Fatal(err)
	}
	want := "intro\n" + DocBegin + "\n\n| body | min bytes | fields, in wire order |\n|---|---:|---|\n" +
		"| A | 2 | `queue_name` string, `has_ids` bool, then `ids` array<varint> |\n" +
		"| B (part) | 4 | `x` i32 |\n\n" + DocEnd + "\nafter\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if _, err := UpdateDoc(def, []byte("no markers")); err == nil {
		t.Error("a document without the markers was accepted")
	}
}

// The version option: a message above version 1 is listed in
// LayoutVersions and marked (vN) in the layout table; version 1, given or
// not, lists nothing. A bad version names the line and what is wrong.
func TestVersionOption(t *testing.T) {
	def := "message A version 2\n\tX string\n\nmessage B check version 1\n\tY bool\n\nmessage C\n\tZ u8\n"
	s := generated(t, def)
	if !strings.Contains(s, "var LayoutVersions = map[string]uint8{\n\t\"A\": 2,\n}\n") {
		t.Errorf("LayoutVersions does not list A at 2 alone:\n%s", s)
	}
	if !strings.Contains(s, "m.check(r)") {
		t.Errorf("check lost beside version:\n%s", s)
	}
	doc, err := UpdateDoc([]byte(def), []byte(DocBegin+"\n"+DocEnd))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| A (v2) | 1 | `x` string |", "| B | 1 | `y` bool |", "| C | 1 | `z` u8 |"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("the layout table lacks %q:\n%s", want, doc)
		}
	}
	out, err := Generate([]byte("message A\n\tX string\n"))
	if err != nil || !strings.Contains(string(out), "var LayoutVersions = map[string]uint8{}") {
		t.Errorf("no version given: LayoutVersions not empty (err %v):\n%s", err, out)
	}
	for _, c := range []struct{ def, want string }{
		{"message A version\n", "line 1: version of message A: no number after it"},
		{"message A version 0\n", `line 1: version of message A is "0": want 1 to 255`},
		{"message A version 256\n", `line 1: version of message A is "256": want 1 to 255`},
		{"message A version two\n", `line 1: version of message A is "two": want 1 to 255`},
		{"message A version 2 version 3\n", `line 1: unknown option "version" of message A`},
		{"struct A version 2\n", `line 1: unknown option "version" of struct A`},
	} {
		if _, err := Generate([]byte(c.def)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.def, err, c.want)
		}
	}
}

// The trailer option ends Encode, not Decode, with m.encodeTrailer(w).
func TestTrailerOption(t *testing.T) {
	out := generated(t, "message A trailer\n\tX string\n")
	if !strings.Contains(string(out), "w.String(m.X)\n\tm.encodeTrailer(w)\n}") || strings.Count(string(out), "encodeTrailer") != 1 {
		t.Errorf("Encode does not end with the trailer, or Decode has it:\n%s", out)
	}
}

// A codes block becomes a const block of type Code (its doc comment, the
// codes' comments and the blank lines between them kept; a block of one
// undocumented code is one const line), and every block fills the one
// table codeNames, in file order.
func TestCodes(t *testing.T) {
	def := "// Ours.\ncodes\n\tCodeA = 1000 \"A\"\n\tCodeB = 1001 \"B B\" // the second\n\n" +
		"\t// C stands apart.\n\tCodeC = 1100 \"C_C\"\n\n// CodeD is alone.\ncodes\n\tCodeD = 3401 \"D\"\n\n" +
		"message M\n\tX string\n"
	s := generated(t, def)
	outputHas(t, s,
		"// Ours.\nconst (\n\tCodeA Code = 1000\n\tCodeB Code = 1001 // the second\n\n\t// C stands apart.\n\tCodeC Code = 1100\n)\n",
		"// CodeD is alone.\nconst CodeD Code = 3401\n",
		"var codeNames = map[Code]string{\n\tCodeA: \"A\",\n\tCodeB: \"B B\",\n\tCodeC: \"C_C\",\n\tCodeD: \"D\",\n}\n",
		"type M struct {",
	)
	decls, err := Parse([]byte(def))
	if err != nil || len(decls) != 1 || decls[0].Name != "M" {
		t.Errorf("Parse returns %v (err %v), want the message M alone", decls, err)
	}
	out, err := Generate([]byte("message M\n\tX string\n"))
	if err != nil || !strings.Contains(string(out), "var codeNames = map[Code]string{}") {
		t.Errorf("no codes: codeNames not empty (err %v):\n%s", err, out)
	}
}

// Two codes with one value, one name or one constant are refused, the
// error naming both and their lines; so is a malformed code line.
func TestCodesRefused(t *testing.T) {
	for _, c := range []struct{ def, want string }{
		{"codes\n\tCodeA = 2000 \"A\"\ncodes\n\tCodeB = 2000 \"B\"\n", "line 4: code CodeB = 2000, the value of CodeA (line 2)"},
		{"codes\n\tCodeA = 2000 \"QMGR LIST\"\n\tCodeB = 2001 \"QMGR LIST\"\n", `line 3: code CodeB is named "QMGR LIST", as CodeA is (line 2)`},
		{"codes\n\tCodeA = 1 \"A\"\n\tCodeA = 2 \"B\"\n", "line 3: code CodeA declared twice (first at line 2)"},
		{"message CodeA\ncodes\n\tCodeA = 1 \"A\"\n", "line 3: code CodeA has the name of message CodeA (line 1)"},
		{"codes\n\tCodeA = 65536 \"A\"\n", `line 2: value of code CodeA is "65536": want 0 to 65535`},
		{"codes\n\tCodeA = x \"A\"\n", `line 2: value of code CodeA is "x": want 0 to 65535`},
		{"codes\n\tCodeA = 1 \"\"\n", "line 2: code CodeA has an empty name"},
		{"codes\n\tCodeA = 1 A\n", `line 2: want CodeName = value "NAME" [// comment], have "CodeA = 1 A"`},
		{"codes\n\tCodeA = 1 \"A\" junk\n", `line 2: want CodeName = value "NAME"`},
		{"codes\n\tCodeA 1 \"A\"\n", `line 2: want CodeName = value "NAME"`},
		{"codes\n\tcodeA = 1 \"A\"\n", `line 2: code "codeA" is not an exported Go name`},
		{"codes\nmessage M\n", "line 1: a codes block without any code"},
	} {
		_, err := Generate([]byte(c.def))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.def, err, c.want)
		}
	}
}
