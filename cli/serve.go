package cli

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ui/live"
	"ilinkdash/ui/serve"
)

// serveFlags are the serve command's own flags; each overrides its field
// of the config file's serve section when given.
type serveFlags struct {
	listen, authorizedKeys, operatorKeys, hostKey, auditLog, saveDir string
	maxSessions, maxTails, tailBuffer, maxColumns, maxRows           int
	maxStartups, maxPerKey                                           int
	tailBufferBytes, saveMaxBytes                                    string
	idleTimeout, openTimeout                                         time.Duration
}

// shutdownGrace bounds a graceful stop: sessions told, tails closed.
const shutdownGrace = 15 * time.Second

func (a *app) serveCommand() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the dashboard over SSH, one shared poller for every operator",
		Long: "serve runs an SSH server: every `ssh -p PORT HOST` with a known key gets the\n" +
			"dashboard of the selected context (--context, --addr/--admin; none: the embedded\n" +
			"demo). Keys in --authorized-keys get a read-only dashboard, keys in --operator-keys\n" +
			"may change the cluster; every other key is refused. All sessions share one poller,\n" +
			"so the cluster's admin load does not grow with the number of operators.\n" +
			"Settings: flags > the config file's serve section > defaults. SIGINT/SIGTERM stop\n" +
			"it gracefully.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runServe(cmd, &f) },
	}
	d := config.DefaultServe()
	fs := cmd.Flags()
	fs.StringVar(&f.listen, "listen", d.Listen, "SSH listen address host:port")
	fs.StringVar(&f.authorizedKeys, "authorized-keys", "", "OpenSSH authorized_keys file of read-only viewers")
	fs.StringVar(&f.operatorKeys, "operator-keys", "", "OpenSSH authorized_keys file of operators (may mutate)")
	fs.StringVar(&f.hostKey, "host-key", "", "ed25519 host key, created on first start (default "+config.DefaultHostKey()+")")
	fs.IntVar(&f.maxSessions, "max-sessions", d.MaxSessions, "dashboards served at once")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", d.IdleTimeout, "close a session without input for this long (0: never)")
	fs.IntVar(&f.maxTails, "max-tails", d.MaxTails, "tails running at once over all sessions (0: no tailing)")
	fs.IntVar(&f.tailBuffer, "tail-buffer", d.TailBuffer, "records each session's tail keeps")
	fs.StringVar(&f.tailBufferBytes, "tail-buffer-bytes", config.FormatBytes(d.TailBufferBytes), "bytes of records each session's tail keeps (e.g. 16MiB)")
	fs.IntVar(&f.maxColumns, "max-columns", d.MaxColumns, "clamp every session's terminal to this many columns")
	fs.IntVar(&f.maxRows, "max-rows", d.MaxRows, "clamp every session's terminal to this many rows")
	fs.DurationVar(&f.openTimeout, "open-timeout", d.OpenTimeout, "close a connection that has no dashboard this long after authenticating")
	fs.IntVar(&f.maxStartups, "max-startups", d.MaxStartups, "connections without a dashboard yet (handshaking, authenticating, opening) at once")
	fs.IntVar(&f.maxPerKey, "max-sessions-per-key", d.MaxSessionsPerKey, "dashboards one key may hold at once")
	fs.StringVar(&f.saveDir, "save-dir", "", "the one directory operators' tail saves are written to, with names the server chooses (default: saving off)")
	fs.StringVar(&f.saveMaxBytes, "save-max-bytes", config.FormatBytes(d.SaveMaxBytes), "largest file one tail save writes")
	fs.StringVar(&f.auditLog, "audit-log", "", "append every mutating action, connect and disconnect to this file (JSON lines)")
	return cmd
}

// serveSettings applies the given flags over the file's serve section.
func serveSettings(cmd *cobra.Command, file config.Serve, f *serveFlags) (config.Serve, error) {
	s := file
	set := cmd.Flags().Changed
	if set("listen") {
		s.Listen = f.listen
	}
	if set("authorized-keys") {
		s.AuthorizedKeys = f.authorizedKeys
	}
	if set("operator-keys") {
		s.OperatorKeys = f.operatorKeys
	}
	if set("host-key") {
		s.HostKey = f.hostKey
	}
	if set("max-sessions") {
		s.MaxSessions = f.maxSessions
	}
	if set("idle-timeout") {
		s.IdleTimeout = f.idleTimeout
	}
	if set("max-tails") {
		s.MaxTails = f.maxTails
	}
	if set("tail-buffer") {
		s.TailBuffer = f.tailBuffer
	}
	if set("audit-log") {
		s.AuditLog = f.auditLog
	}
	if set("max-columns") {
		s.MaxColumns = f.maxColumns
	}
	if set("max-rows") {
		s.MaxRows = f.maxRows
	}
	if set("open-timeout") {
		s.OpenTimeout = f.openTimeout
	}
	if set("max-startups") {
		s.MaxStartups = f.maxStartups
	}
	if set("max-sessions-per-key") {
		s.MaxSessionsPerKey = f.maxPerKey
	}
	if set("save-dir") {
		dir, err := filepath.Abs(f.saveDir)
		if err != nil {
			return s, fmt.Errorf("--save-dir: %w", err)
		}
		s.SaveDir = dir
	}
	for _, b := range []struct {
		flag, v string
		dst     *int64
	}{{"tail-buffer-bytes", f.tailBufferBytes, &s.TailBufferBytes}, {"save-max-bytes", f.saveMaxBytes, &s.SaveMaxBytes}} {
		if !set(b.flag) {
			continue
		}
		n, err := config.ParseBytes(b.v)
		if err != nil {
			return s, fmt.Errorf("--%s: %w", b.flag, err)
		}
		*b.dst = n
	}
	if s.HostKey == "" {
		s.HostKey = config.DefaultHostKey()
	}
	if err := config.CheckListen(s.Listen); err != nil {
		return s, fmt.Errorf("--listen: %w", err)
	}
	if err := s.Check(); err != nil {
		return s, err
	}
	if s.AuthorizedKeys == "" && s.OperatorKeys == "" {
		return s, fmt.Errorf("nobody could connect: give --authorized-keys (read-only viewers) and/or --operator-keys, or set them in the serve section of %s", config.DefaultPath())
	}
	return s, nil
}

func (a *app) runServe(cmd *cobra.Command, f *serveFlags) error {
	r, err := a.resolve(cmd)
	if err != nil {
		return err
	}
	sc, err := serveSettings(cmd, r.File.Serve, f)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	// serve is no TUI: its log goes to stderr (the client's debug log, with
	// --debug, to --log-file as usual).
	out := cmd.ErrOrStderr()
	srvLog := log.New(out, "", log.LstdFlags)
	debugf, logCloser, err := debugLogger(r)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer logCloser.Close()

	cfg, stop, err := startCluster(cmd.Context(), r, debugf)
	if err != nil {
		return err
	}
	defer stop()
	viewerCfg := cfg
	viewerCfg.ReadOnly = true
	viewer, err := live.New(viewerCfg)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer viewer.Close()
	operator, err := live.New(cfg) // read-only too when the context is
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer operator.Close()

	srv, err := serve.New(serve.Config{Serve: sc, Context: r.Context, Demo: r.Embedded,
		Viewer: viewer, Operator: operator, Logf: srvLog.Printf})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	ln, err := net.Listen("tcp", sc.Listen)
	if err != nil {
		_ = srv.Shutdown(context.Background())
		return &exitError{code: 2, err: fmt.Errorf("--listen: %w", err)}
	}
	printServeBanner(out, srv, sc, r, ln.Addr())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		_ = srv.Shutdown(context.Background())
		return err
	case <-cmd.Context().Done(): // SIGINT/SIGTERM
	}
	srvLog.Printf("serve: shutting down, telling the open sessions (%d)", len(srv.Sessions()))
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(ctx)
	<-served
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	srvLog.Printf("serve: stopped")
	return nil
}

func printServeBanner(w io.Writer, srv *serve.Server, sc config.Serve, r config.Resolved, addr net.Addr) {
	target := "context " + r.Context.Name
	switch {
	case r.Embedded:
		target = "the embedded demo engine"
	case r.Context.Name == "":
		target = "admin " + r.Context.Admin
	}
	if r.Context.ReadOnly {
		target += " (read-only: operators are read-only too)"
	}
	fmt.Fprintf(w, "ilinkdash serve: listening on %s, serving %s\n", addr, target)
	created := ""
	if srv.HostKeyCreated() {
		created = " (created)"
	}
	fmt.Fprintf(w, "host key %s%s: %s\n", srv.HostKeyPath(), created, srv.HostKeyFingerprint())
	ops, views := srv.KeyCounts()
	fmt.Fprintf(w, "keys: %d operator (%s), %d viewer (%s)\n", ops, orNone(sc.OperatorKeys), views, orNone(sc.AuthorizedKeys))
	fmt.Fprintf(w, "limits: %d sessions (%d per key), %d tails of at most %s each, terminals up to %dx%d, idle timeout %v; audit log %s\n",
		sc.MaxSessions, sc.MaxSessionsPerKey, sc.MaxTails, config.FormatBytes(sc.TailBufferBytes), sc.MaxColumns, sc.MaxRows, sc.IdleTimeout, orNone(sc.AuditLog))
	save := "off"
	if sc.SaveDir != "" {
		save = sc.SaveDir + " (operators, at most " + config.FormatBytes(sc.SaveMaxBytes) + " a file)"
	}
	fmt.Fprintf(w, "connections: %d without a dashboard at once, each closed %v after authenticating without one; tail saves: %s\n", sc.MaxStartups, sc.OpenTimeout, save)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
