package cli

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/ilinktest"
)

// cliCase is a table case: a command line and the text its output or
// error must contain.
type cliCase struct {
	args []string
	want string
}

// cliResult is one run of the command line.
type cliResult struct {
	stdout, stderr string
	code           int
	err            error
}

// testEnv is the environment a test's command reads: env's value for a
// variable env has, nothing for any other ILINKDASH_* one, the process's
// for the rest. Tests that would set the environment give it here and can
// run in parallel.
func testEnv(env map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if strings.HasPrefix(k, "ILINKDASH_") {
			return ""
		}
		return os.Getenv(k)
	}
}

// newTestApp is the command line reading testEnv(env), with state,
// config and data directories of its own unless env names them: parallel
// tests never share a lag history file, and none reads the developer's
// config file or writes into their home.
func newTestApp(t *testing.T, env map[string]string) *app {
	env = maps.Clone(env)
	if env == nil {
		env = map[string]string{}
	}
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		if _, ok := env[v]; !ok {
			env[v] = t.TempDir()
		}
	}
	a := newRootCommand()
	a.getenv = testEnv(env)
	return a
}

// runCLIResult runs the command line like Main does (the same output path,
// error print and exit status), with no config file and no ILINKDASH_*
// environment.
func runCLIResult(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	a := newTestApp(t, nil)
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code, err := a.execute(ctx, append(args, "--config", ""), strings.NewReader(stdin), &out, &errb)
	return cliResult{out.String(), errb.String(), code, err}
}

// runCLI is runCLIResult's streams and error.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	r := runCLIResult(t, stdin, args...)
	return r.stdout, r.stderr, r.err
}

// envMain makes the test binary run ilinkdash's Main (cliProcess).
const envMain = "ILINKDASH_CLI_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envMain) == "1" {
		os.Exit(Main())
	}
	// No test writes into the real state directory (the lag history
	// serve and the exporter keep): the run's own, removed after it.
	state, err := os.MkdirTemp("", "ilinkdash-cli-state-")
	if err != nil {
		panic(err)
	}
	// Nor into or out of the real config and data directories.
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		os.Setenv(v, state)
	}
	code := m.Run()
	os.RemoveAll(state)
	os.Exit(code)
}

// cliProcess returns the command that runs ilinkdash with args as a
// separate process (this test binary, running Main), with no config file
// and no ILINKDASH_* environment: real signals, a real stdout.
func cliProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append(args, "--config=")...)
	// GORACE: under -race the runtime sleeps 1 s at exit by default
	// (atexit_sleep_ms), which the stop tests would count against us.
	// Its own state, config and data directories, as newTestApp gives:
	// parallel processes never share a lag history file or a host key.
	env := []string{envMain + "=1", "GORACE=atexit_sleep_ms=0 " + os.Getenv("GORACE"),
		"XDG_STATE_HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(), "XDG_DATA_HOME=" + t.TempDir()}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ILINKDASH_") && !strings.HasPrefix(kv, "GORACE=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	return cmd
}

// startTestEngine starts an in-process engine for one test (election delay
// 300 ms unless cfg sets one) and closes it when the test ends.
func startTestEngine(t *testing.T, cfg engine.Config) *engine.Engine {
	t.Helper()
	if cfg.ElectionDelay == 0 {
		cfg.ElectionDelay = 300 * time.Millisecond
	}
	return enginetest.Start(t, cfg)
}

// topicEngine is queueEngine with topic created (props).
func topicEngine(t *testing.T, topic, props string) (*engine.Engine, []string) {
	t.Helper()
	e, tgt := queueEngine(t)
	if err := e.CreateTopic(topic, props); err != nil {
		t.Fatal(err)
	}
	return e, tgt
}

// adminAt connects an admin service to the admin address adm, to set up
// or check what the commands did without the CLI; closed at the test's end.
func adminAt(t *testing.T, adm string) (*admin.Service, *admin.Qmgr) {
	t.Helper()
	s, err := admin.Connect(context.Background(), adm, admin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, s.AccessAdminQmgr("")
}

// topicWithRecords creates topic (props) through q and publishes n
// records ("x", round-robin over the partitions) to it, then waits until
// all are below the high watermark. A publish is answered once the leader
// has the record, and the watermark moves once the followers have it; a
// seek lands at most at the watermark, so a seek made before it moved
// left a commit below the one asked (and a lag above the one checked).
func topicWithRecords(t *testing.T, q *admin.Qmgr, topic, props string, n int) {
	t.Helper()
	ctx := context.Background()
	if err := q.CreateTopic(ctx, topic, props); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := q.Publish(ctx, topic, nil, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	ilinktest.WaitFor(t, 30*time.Second, fmt.Sprintf("%s's %d records below the high watermark", topic, n), func() bool {
		d, err := q.DescribeTopic(ctx, topic)
		var hw int64
		for _, p := range d.PartitionList {
			hw += p.HighWatermark
		}
		return err == nil && hw == int64(n)
	})
}

// groupCommittedAt gives group a commit at offset on every partition of
// topic, with no member.
func groupCommittedAt(t *testing.T, q *admin.Qmgr, group, topic string, offset int64) {
	t.Helper()
	changes, err := q.SeekGroup(context.Background(), group, topic, admin.SeekTarget{Offset: offset})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.New != offset {
			t.Fatalf("%s's seek to %d on %s: partition %d at %d (end %d)", group, offset, topic, c.Partition, c.New, c.End)
		}
	}
}
