package wire

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// updateGolden rewrites testdata/messages.golden from the current encoders.
// Only run it when a change of the bytes on the wire is intended (and
// docs/PROTOCOL.md says so).
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/messages.golden")

// goldenMessages is one constructor per message type of the package, keyed by
// type name; TestGoldenCoversEveryMessage checks that none is missing.
func goldenMessages() map[string]func() Message {
	ms := []Message{
		// errors.go, messages_session.go
		&ErrorBody{}, &Empty{}, &HelloRequest{}, &NodeInfo{}, &HelloReply{}, &QueueRequest{}, &DepthReply{},
		&PutRequest{}, &PutReply{}, &GetRequest{}, &GetReply{},
		// messages_topics.go
		&MetadataRequest{}, &MetadataReply{}, &ProduceRequest{}, &ProduceReply{}, &FetchRequest{}, &FetchReply{},
		&ListOffsetsRequest{}, &ListOffsetsReply{}, &AdminPublishRequest{}, &AdminPublishReply{}, &CreateTopicRequest{},
		&InitProducerRequest{}, &InitProducerReply{},
		// messages_groups.go
		&GroupRequest{}, &CoordinatorReply{}, &JoinGroupRequest{}, &JoinGroupReply{}, &MemberRequest{},
		&OffsetCommitRequest{}, &OffsetsReply{}, &OffsetFetchRequest{}, &DeleteGroupRequest{}, &TopicLeaveRequest{},
		// messages_admin.go
		&QmgrRequest{}, &TextReply{}, &QmgrListReply{}, &NodeListReply{}, &NodeControlRequest{}, &ForceElectionRequest{},
		&RebalanceRequest{}, &RebalanceReply{}, &TopicListRequest{}, &TopicListReply{}, &TopicRequest{}, &TopicPropsRequest{},
		&TopicDescriptionReply{}, &QueueNameRequest{}, &QueueDefineRequest{}, &QueueBrowseRequest{}, &QueueBrowseReply{},
		&QueueMoveRequest{}, &QueueMoveReply{}, &QueuePropertyReply{}, &QueueListReply{}, &ReloadQueueReply{},
		&ClusterRequest{}, &ClusterPropertyReply{}, &SetClusterPropertyRequest{}, &ClusterNodeRequest{}, &RemoveNodeRequest{},
		&CreateClusterRequest{}, &QmgrPropertyRequest{}, &QmgrPropertyReply{}, &ReplicationStatusReply{}, &StatSeriesRequest{},
		&StatSeriesReply{}, &ViewLoadRequest{}, &ViewLoadReply{}, &ShutdownRequest{}, &PatchRequest{}, &QuarantineRequest{},
		&ReinjectReply{}, &SpokeListReply{}, &SpokeSwitchRequest{}, &SpokeSwitchNodeRequest{}, &SpokeRegisterRequest{}, &SpokeTunnel{}, &GroupListReply{},
		&GroupDescriptionReply{}, &SeekGroupRequest{}, &SeekGroupReply{}, &SubscriptionListRequest{},
	}
	out := make(map[string]func() Message, len(ms))
	for _, m := range ms {
		t := reflect.TypeOf(m).Elem()
		out[t.Name()] = func() Message { return reflect.New(t).Interface().(Message) }
	}
	return out
}

// filler sets every exported field of a value, deterministically: each
// scalar gets the next small value of a counter and each slice `width`
// elements, down to `depth` levels of nested slices (deeper slices stay nil).
type filler struct {
	n     int
	width int
	depth int
}

func (f *filler) next() int { f.n++; return f.n%119 + 1 }

func (f *filler) fill(v reflect.Value, level int) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), level)
			}
		}
	case reflect.Slice:
		if level >= f.depth {
			return
		}
		s := reflect.MakeSlice(v.Type(), f.width, f.width)
		for i := 0; i < f.width; i++ {
			f.fill(s.Index(i), level+1)
		}
		v.Set(s)
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.next()))
	case reflect.Bool:
		v.SetBool(f.next()%2 == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.next()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.next()))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.next()) + 0.5)
	}
}

// goldenVariants are the values encoded per type: the zero value (every
// array empty), one element at the top level with empty nested arrays, and a
// rich value with two elements at every level.
var goldenVariants = []struct {
	name         string
	width, depth int
}{{"zero", 0, 0}, {"one", 1, 1}, {"rich", 2, 4}}

// goldenLines renders, per type and variant, the encoded bytes and the value
// they decode to (%#v, so nil and empty slices differ).
func goldenLines(t *testing.T) []string {
	var lines []string
	for name, ctor := range goldenMessages() {
		for _, vr := range goldenVariants {
			m := ctor()
			f := &filler{width: vr.width, depth: vr.depth}
			if vr.width > 0 {
				f.fill(reflect.ValueOf(m).Elem(), 0)
			}
			b := Encode(nil, m)
			back := ctor()
			dec := "ok"
			if err := Decode(b, back); err != nil {
				dec = "error: " + err.Error()
			}
			key := name + "/" + vr.name
			lines = append(lines,
				key+" enc "+hex.EncodeToString(b),
				key+" dec "+dec+" "+fmt.Sprintf("%#v", back))
		}
	}
	sort.Strings(lines)
	return lines
}

// TestGoldenMessageBytes pins the bytes every message type encodes to, and
// the value those bytes decode to, against testdata/messages.golden, which
// was captured before the codecs moved to writeArray/readArray: a refactor of
// the codecs must not change a byte or turn a nil slice into an empty one.
func TestGoldenMessageBytes(t *testing.T) {
	path := filepath.Join("testdata", "messages.golden")
	got := goldenLines(t)
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var want []string
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		want = append(want, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d golden lines, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("golden line %d differs:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// TestGoldenCoversEveryMessage reads the package's sources for every type
// with an Encode(*Writer) method and requires goldenMessages to list it, so a
// new message type cannot escape the byte pin.
func TestGoldenCoversEveryMessage(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	listed := goldenMessages()
	found := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Encode" || len(fn.Type.Params.List) != 1 {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			typ := star.X.(*ast.Ident).Name
			found++
			if _, ok := listed[typ]; !ok {
				t.Errorf("%s (%s) has Encode(*Writer) but is not in goldenMessages", typ, name)
			}
		}
	}
	if found != len(listed) {
		t.Errorf("sources have %d message types, goldenMessages lists %d", found, len(listed))
	}
}
