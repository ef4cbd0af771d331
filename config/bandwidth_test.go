package config

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func resolveDash(t *testing.T, env map[string]string, args ...string) (Resolved, error) {
	t.Helper()
	fs := pflag.NewFlagSet("ilinkdash", pflag.ContinueOnError)
	var f Flags
	f.Register(fs)
	f.RegisterDashboard(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return Resolve(fs, &f, newEnv(t, env))
}

// resolveDashCase runs resolveDash for one table case. With wantErr set
// it checks that the error contains it and returns false: nothing more
// to check. Otherwise any error fails the test.
func resolveDashCase(t *testing.T, env map[string]string, args []string, wantErr string) (Resolved, bool) {
	t.Helper()
	r, err := resolveDash(t, env, args...)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want %q", err, wantErr)
		}
		return r, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return r, true
}

// The bandwidth settings follow the layers like every other field: flag >
// environment > the context's low-bandwidth / fps > default.
func TestResolveBandwidth(t *testing.T) {
	file := writeConfig(t, "current-context: slow\ncontexts:\n  slow: {admin: 'h:1', low-bandwidth: true, fps: 5}\n  fast: {admin: 'h:1'}\n")
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		low     bool
		fps     int
		rate    int
		lowSrc  Source
		fpsSrc  Source
		wantErr string
	}{
		{name: "defaults", env: map[string]string{EnvConfig: ""}, rate: DefaultFPS},
		{name: "file", env: map[string]string{EnvConfig: file}, low: true, fps: 5, rate: 5, lowSrc: FromFile, fpsSrc: FromFile},
		{name: "other context", env: map[string]string{EnvConfig: file, EnvContext: "fast"}, rate: DefaultFPS, lowSrc: FromFile, fpsSrc: FromFile},
		{name: "low-bandwidth alone lowers the frame rate", env: map[string]string{EnvConfig: file, EnvContext: "fast"}, args: []string{"--low-bandwidth"}, low: true, rate: LowBandwidthFPS, lowSrc: FromFlag, fpsSrc: FromFile},
		{name: "env", env: map[string]string{EnvConfig: file, EnvLowBandwidth: "0", EnvMaxFPS: "30"}, fps: 30, rate: 30, lowSrc: FromEnv, fpsSrc: FromEnv},
		{name: "flag over env", env: map[string]string{EnvConfig: file, EnvLowBandwidth: "0", EnvMaxFPS: "30"}, args: []string{"--low-bandwidth", "--max-fps", "8"}, low: true, fps: 8, rate: 8, lowSrc: FromFlag, fpsSrc: FromFlag},
		{name: "fps out of range", env: map[string]string{EnvConfig: ""}, args: []string{"--max-fps", "0"}, wantErr: "--max-fps: invalid frame rate \"0\""},
		{name: "env fps not a number", env: map[string]string{EnvConfig: "", EnvMaxFPS: "fast"}, wantErr: EnvMaxFPS + ": invalid frame rate \"fast\""},
		{name: "env low-bandwidth not a boolean", env: map[string]string{EnvConfig: "", EnvLowBandwidth: "maybe"}, wantErr: EnvLowBandwidth + ": invalid value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := resolveDashCase(t, tt.env, tt.args, tt.wantErr)
			if !ok {
				return
			}
			c := r.Context
			if c.LowBandwidth != tt.low || c.FPS != tt.fps || c.FrameRate() != tt.rate || r.Sources.LowBandwidth != tt.lowSrc || r.Sources.FPS != tt.fpsSrc {
				t.Fatalf("low %v fps %d rate %d (from %v, %v); want %v %d %d (from %v, %v)",
					c.LowBandwidth, c.FPS, c.FrameRate(), r.Sources.LowBandwidth, r.Sources.FPS, tt.low, tt.fps, tt.rate, tt.lowSrc, tt.fpsSrc)
			}
		})
	}
}

func TestLoadBandwidthFields(t *testing.T) {
	_, err := Parse("c.yaml", []byte("contexts:\n  a: {admin: 'h:1', fps: 500}\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:2:26: contexts.a.fps: must be between 1 and 120") {
		t.Fatalf("fps 500: %v", err)
	}
	_, err = Parse("c.yaml", []byte("contexts:\n  a: {admin: 'h:1', low-bandwidth: sometimes}\n"))
	if err == nil || !strings.Contains(err.Error(), "contexts.a.low-bandwidth") {
		t.Fatalf("low-bandwidth sometimes: %v", err)
	}
}
