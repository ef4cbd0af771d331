package main

// Child processes and the line protocol between them and the orchestrator.
//
// inproc child:  prints "RESULT <json>" and exits.
// server child:  prints "ADDRS a,b,c", then answers stdin commands
//                "mark <phase> <records>" -> "ok",
//                "verify <topic> <n>"     -> "verified <json>",
//                "report"                 -> "SERVER <json>" and exits.
// client child:  prints "MARK <phase> <records>" and waits for "ok" on stdin
//                at every phase boundary, then "RESULT <json>".
// Everything else a child writes goes to stderr.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

type childResult struct {
	Phases []phaseResult `json:"phases"`
	Err    string        `json:"error,omitempty"`
}

type verifyReply struct {
	Msg string `json:"msg"`
	OK  bool   `json:"ok"`
	Err string `json:"error,omitempty"`
}

func noMark(string, int) error { return nil }

func runChild(arg string) int {
	var s spec
	if err := json.Unmarshal([]byte(arg), &s); err != nil {
		fmt.Fprintln(os.Stderr, "child: bad spec:", err)
		return 2
	}
	st := stacks[s.Impl]
	if st == nil {
		fmt.Fprintf(os.Stderr, "child: stack %q not compiled in\n", s.Impl)
		return 2
	}
	switch s.Role {
	case "server":
		if err := serveLoop(st, &s, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "server child:", err)
			return 1
		}
		return 0
	case "client":
		in := bufio.NewReader(os.Stdin)
		mark := func(phase string, n int) error {
			fmt.Printf("MARK %s %d\n", phase, n)
			line, err := in.ReadString('\n')
			if err != nil || strings.TrimSpace(line) != "ok" {
				return fmt.Errorf("mark %s: orchestrator answered %q: %v", phase, line, err)
			}
			return nil
		}
		ctx, cancel := ctxFor(&s)
		defer cancel()
		phases, err := measure(ctx, st, &s, s.Addrs, nil, mark)
		emit("RESULT", resultOf(phases, err))
		return 0
	default:
		emit("RESULT", runHereResult(&s))
		return 0
	}
}

func emit(tag string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(childResult{Err: err.Error()})
	}
	fmt.Printf("%s %s\n", tag, b)
}

func resultOf(phases []phaseResult, err error) childResult {
	r := childResult{Phases: phases}
	if err != nil {
		r.Err = err.Error()
	}
	return r
}

// runHereResult starts the engine in this process and measures against it.
func runHereResult(s *spec) childResult {
	st := stacks[s.Impl]
	srv, err := st.serve(s)
	if err != nil {
		return childResult{Err: fmt.Sprintf("start %s engine: %v", s.Impl, err)}
	}
	ctx, cancel := ctxFor(s)
	defer cancel()
	var phases []phaseResult
	if s.E2E {
		phases, err = measureE2E(ctx, st, s, srv.Addrs())
	} else {
		phases, err = measure(ctx, st, s, srv.Addrs(), srv, noMark)
	}
	if cerr := srv.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("close engine: %w", cerr)
	}
	return resultOf(phases, err)
}

func runHere(s *spec) runResult {
	return toRun(s, runHereResult(s))
}

func toRun(s *spec, c childResult) runResult {
	return runResult{Run: s.Run, Label: s.Label, Impl: s.Impl, Replicas: s.Replicas, Phases: c.Phases, Err: c.Err}
}

func specArg(s *spec) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func childCmd(ctx context.Context, s *spec) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "--child", specArg(s))
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = 5 * time.Second
	return cmd, nil
}

// runIsolated runs one in-process measurement in a fresh child process.
func runIsolated(s *spec) runResult {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout+30*time.Second)
	defer cancel()
	cmd, err := childCmd(ctx, s)
	if err != nil {
		return toRun(s, childResult{Err: err.Error()})
	}
	out, err := cmd.Output()
	c, perr := parseTagged(string(out), "RESULT")
	if perr != nil {
		msg := perr.Error()
		if err != nil {
			msg = fmt.Sprintf("child: %v; %s", err, msg)
		}
		return toRun(s, childResult{Err: msg})
	}
	return toRun(s, c)
}

func parseTagged(out, tag string) (childResult, error) {
	var c childResult
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, tag+" "); ok {
			if err := json.Unmarshal([]byte(rest), &c); err != nil {
				return c, fmt.Errorf("bad %s line: %v", tag, err)
			}
			return c, nil
		}
	}
	return c, fmt.Errorf("no %s line from the child", tag)
}

// serveLoop runs the server child: the engine plus the mark/verify/report
// command loop.
func serveLoop(st *stackImpl, s *spec, stdin io.Reader, stdout io.Writer) error {
	srv, err := st.serve(s)
	if err != nil {
		return fmt.Errorf("start %s engine: %w", s.Impl, err)
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "ADDRS %s\n", strings.Join(srv.Addrs(), ","))
	phases := map[string]processDelta{}
	cur := ""
	var b procSnap
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "mark":
			if len(f) != 3 {
				return fmt.Errorf("bad command %q", sc.Text())
			}
			n, _ := strconv.Atoi(f[2])
			if cur != "" {
				phases[cur] = endPhase(b, int64(n))
			}
			cur = ""
			if f[1] != "idle" {
				cur = f[1]
				b = beginPhase()
			}
			fmt.Fprintln(stdout, "ok")
		case "verify":
			if len(f) != 3 {
				return fmt.Errorf("bad command %q", sc.Text())
			}
			n, _ := strconv.Atoi(f[2])
			msg, ok, err := srv.Verify(f[1], n)
			r := verifyReply{Msg: msg, OK: ok}
			if err != nil {
				r.Err = err.Error()
			}
			bs, _ := json.Marshal(r)
			fmt.Fprintf(stdout, "verified %s\n", bs)
		case "report":
			bs, _ := json.Marshal(phases)
			fmt.Fprintf(stdout, "SERVER %s\n", bs)
			return nil
		default:
			return fmt.Errorf("unknown command %q", sc.Text())
		}
	}
	return sc.Err()
}

// runTwoProc runs the engine and the client in two child processes.
func runTwoProc(s *spec) runResult {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout+30*time.Second)
	defer cancel()
	fail := func(err error) runResult { return toRun(s, childResult{Err: err.Error()}) }

	srvCmd, srvIn, srvOutPipe, err := startChild(ctx, s, "server", nil)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = srvIn.Close(); _ = srvCmd.Wait() }()
	srvOut := bufio.NewReader(srvOutPipe)
	readSrv := func() (string, error) {
		line, err := srvOut.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("server child: %w", err)
		}
		return strings.TrimRight(line, "\n"), nil
	}
	line, err := readSrv()
	if err != nil {
		return fail(err)
	}
	addrs, ok := strings.CutPrefix(line, "ADDRS ")
	if !ok {
		return fail(fmt.Errorf("server child said %q, want ADDRS", line))
	}

	cliCmd, cliIn, cliOutPipe, err := startChild(ctx, s, "client", strings.Split(addrs, ","))
	if err != nil {
		return fail(err)
	}
	var res childResult
	got := false
	cliOut := bufio.NewScanner(cliOutPipe)
	cliOut.Buffer(make([]byte, 1<<20), 16<<20)
	for cliOut.Scan() {
		l := cliOut.Text()
		if rest, ok := strings.CutPrefix(l, "MARK "); ok {
			fmt.Fprintf(srvIn, "mark %s\n", rest)
			if ack, err := readSrv(); err != nil || ack != "ok" {
				_ = cliCmd.Process.Kill()
				return fail(fmt.Errorf("server mark %s: %q %v", rest, ack, err))
			}
			fmt.Fprintln(cliIn, "ok")
			continue
		}
		if rest, ok := strings.CutPrefix(l, "RESULT "); ok {
			if err := json.Unmarshal([]byte(rest), &res); err != nil {
				res.Err = "bad RESULT line: " + err.Error()
			}
			got = true
		}
	}
	_ = cliIn.Close()
	werr := cliCmd.Wait()
	if !got {
		return fail(fmt.Errorf("client child gave no result: %v", werr))
	}
	r := serverVerifyAndReport(s, toRun(s, res), srvIn, readSrv)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		r.Err = joinNonEmpty(r.Err, "timed out")
	}
	return r
}

// startChild starts a child of s in role (the client's with the server's
// addrs) with pipes to its stdin and from its stdout.
func startChild(ctx context.Context, s *spec, role string, addrs []string) (*exec.Cmd, io.WriteCloser, io.ReadCloser, error) {
	cs := *s
	cs.Role = role
	if addrs != nil {
		cs.Addrs = addrs
	}
	cmd, err := childCmd(ctx, &cs)
	if err != nil {
		return nil, nil, nil, err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	return cmd, in, out, nil
}

// serverVerifyAndReport asks the server child to verify what the client
// wrote (when the run succeeded) and for its per-phase resource use, and
// adds both to r.
func serverVerifyAndReport(s *spec, r runResult, srvIn io.Writer, readSrv func() (string, error)) runResult {
	if r.Err == "" {
		fmt.Fprintf(srvIn, "verify %s %d\n", benchTopic, s.Count)
		line, err := readSrv()
		if err != nil {
			r.Err = err.Error()
			return r
		}
		var v verifyReply
		if rest, ok := strings.CutPrefix(line, "verified "); !ok || json.Unmarshal([]byte(rest), &v) != nil {
			r.Err = fmt.Sprintf("server verify: %q", line)
			return r
		}
		if v.Err != "" {
			r.Err = "engine verify: " + v.Err
		} else if v.OK && len(r.Phases) > 0 {
			r.Phases[0].Verified = joinNonEmpty(r.Phases[0].Verified, "engine: "+v.Msg)
		}
	}
	fmt.Fprintln(srvIn, "report")
	line, err := readSrv()
	if err != nil {
		r.Err = joinNonEmpty(r.Err, err.Error())
		return r
	}
	rest, ok := strings.CutPrefix(line, "SERVER ")
	if !ok {
		r.Err = joinNonEmpty(r.Err, fmt.Sprintf("server report: %q", line))
		return r
	}
	var sp map[string]processDelta
	if err := json.Unmarshal([]byte(rest), &sp); err != nil {
		r.Err = joinNonEmpty(r.Err, err.Error())
		return r
	}
	for i := range r.Phases {
		if d, ok := sp[r.Phases[i].Phase]; ok {
			r.Phases[i].Server = &d
		}
	}
	return r
}
