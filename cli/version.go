package cli

import (
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildInfo is what `ilinkdash version` reports, from the module build
// information the Go toolchain embeds (runtime/debug.ReadBuildInfo).
type buildInfo struct {
	Version    string `json:"version"`      // module version, "(devel)" for a local build
	Revision   string `json:"vcs_revision"` // commit, "" when built without VCS information
	Time       string `json:"vcs_time"`     // commit time, RFC 3339
	Modified   bool   `json:"vcs_modified"` // the work tree had uncommitted changes
	GoVersion  string `json:"go_version"`
	Platform   string `json:"platform"` // GOOS/GOARCH
	ModulePath string `json:"module"`
}

// stampVersion and stampCommit are set by a release build
// (scripts/release.sh: -ldflags "-X ilinkdash/cli.stampVersion=… -X
// ilinkdash/cli.stampCommit=…"). They win over the build information, which
// has no commit in a `go run` or a build from outside a checkout.
var (
	stampVersion string
	stampCommit  string
)

func readBuildInfo() buildInfo {
	b := readModuleInfo()
	if stampVersion != "" {
		b.Version = stampVersion
	}
	if stampCommit != "" && stampCommit != b.Revision {
		b.Revision, b.Time, b.Modified = stampCommit, "", false
	}
	return b
}

func readModuleInfo() buildInfo {
	b := buildInfo{Version: "(unknown)", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.ModulePath = bi.Main.Path
	if bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		b.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// versionLine is the one-line form (`ilinkdash --version`):
// "ilinkdash v1.2.3 (abc1234def56, 2026-01-02T15:04:05Z, modified) go1.26 linux/amd64".
func versionLine() string {
	b := readBuildInfo()
	s := "ilinkdash " + b.Version
	if b.Revision != "" {
		rev := b.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += " (" + rev
		if b.Time != "" {
			s += ", " + b.Time
		}
		if b.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + b.GoVersion + " " + b.Platform
}

func (a *app) versionCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version and build information (module version, commit, Go version)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := outputFormat(output, "table", "json"); err != nil {
				return err
			}
			b := readBuildInfo()
			if output == "json" {
				return writeJSON(cmd.OutOrStdout(), b, true)
			}
			t := newTable(cmd.OutOrStdout())
			t.row("VERSION", b.Version)
			commit := b.Revision
			if commit == "" {
				// go run and go test do not stamp the commit; say so
				// instead of a bare "-" that reads like a broken build.
				commit = "- (not stamped: go run does not; go build in a checkout or scripts/release.sh does)"
			}
			t.row("COMMIT", commit)
			t.row("COMMIT-TIME", orDash(b.Time))
			t.row("MODIFIED", b.Modified)
			t.row("GO", b.GoVersion)
			t.row("PLATFORM", b.Platform)
			return t.flush()
		},
	}
	addOutputFlag(cmd, &output, "table", "table or json")
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// addOutputFlag defines -o/--output on cmd.
func addOutputFlag(cmd *cobra.Command, dst *string, def, formats string) {
	cmd.Flags().StringVarP(dst, "output", "o", def, "output format: "+formats)
}
