package serve

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui"
	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
)

// sessionModel is the dashboard of one session: the root model above one
// status line of serve's own (who is connected, in which role, and the
// outcome of the session's last action from the audit log). It also ends
// the session after IdleTimeout without input.
type sessionModel struct {
	root tea.Model // a ui.Model, or a ui.Fleet of several
	ctx  *ui.Context
	sess *session

	idle      time.Duration // 0 = never
	lastInput time.Time

	// spokes are the followed hubs' sets, read when the server pokes the
	// session (nil: no hub followed).
	spokes func() []ui.SpokeSet

	width, height int
	note          string
	noteLevel     common.Level
}

// noteMsg carries an audit entry to the acting session's status line.
type noteMsg struct{ entry AuditEntry }

// idleMsg is the idle timer; at is the input time it was armed for.
type idleMsg struct{ at time.Time }

func newSessionModel(root tea.Model, ctx *ui.Context, ss *session, idle time.Duration) *sessionModel {
	return &sessionModel{root: root, ctx: ctx, sess: ss, idle: idle, lastInput: time.Now(), width: ctx.Width, height: ctx.Height}
}

func (m *sessionModel) Init() tea.Cmd {
	return tea.Batch(m.root.Init(), m.armIdle(), m.waitSpokes())
}

func (m *sessionModel) waitSpokes() tea.Cmd {
	if m.spokes == nil {
		return nil
	}
	return waitSpokes(m.sess)
}

// takeSpokes hands the Fleet every followed hub's newest set and waits
// for the next change.
func (m *sessionModel) takeSpokes() (tea.Model, tea.Cmd) {
	cmds := []tea.Cmd{m.waitSpokes()}
	for _, set := range m.spokes() {
		_, cmd := m.root.Update(ui.SpokesMsg{Set: set})
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...)
}

func (m *sessionModel) armIdle() tea.Cmd {
	if m.idle <= 0 {
		return nil
	}
	at := m.lastInput
	return sessionTick(m.sess.ctx.Done())(time.Until(at.Add(m.idle)), func(time.Time) tea.Msg { return idleMsg{at: at} })
}

// sessionTick is tea.Tick that also ends when the session does. Bubble
// Tea cannot cancel a command, so a plain tick outlives its program until
// it fires: a 30-minute idle timer would hold a goroutine that long after
// every session. Every timer of a session's dashboard goes through it
// (ui.Context.Tick).
func sessionTick(done <-chan struct{}) func(time.Duration, func(time.Time) tea.Msg) tea.Cmd {
	return func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		t := time.NewTimer(d)
		return func() tea.Msg {
			defer t.Stop()
			select {
			case ts := <-t.C:
				return fn(ts)
			case <-done:
				return nil
			}
		}
	}
}

func (m *sessionModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		msg.Height = max(msg.Height-1, 0) // the last line is serve's
		return m.forward(msg)
	case tea.KeyPressMsg, tea.KeyReleaseMsg, tea.MouseMsg, tea.PasteMsg:
		m.lastInput = time.Now()
		m.sess.lastInput.Store(m.lastInput.UnixNano())
	case idleMsg:
		if !msg.at.Equal(m.lastInput) {
			return m, m.armIdle() // there was input since: wait from it
		}
		m.sess.stop(reasonIdle)
		return m, tea.Quit
	case noteMsg:
		m.setNote(msg.entry)
		return m, nil
	case spokesPokeMsg:
		return m.takeSpokes()
	}
	return m.forward(msg)
}

func (m *sessionModel) forward(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.root.Update(msg)
	return m, cmd
}

func (m *sessionModel) setNote(e AuditEntry) {
	text := e.Action + " " + e.Target
	switch e.Outcome {
	case OutcomeOK:
		m.noteLevel, text = common.LevelOK, "✓ "+text+" (audited)"
	case OutcomeRefused:
		m.noteLevel, text = common.LevelWarn, "✗ "+text+" refused: read-only (audited)"
	default:
		m.noteLevel, text = common.LevelError, "✗ "+text+" failed: "+e.Error+" (audited)"
	}
	m.note = sanitize.String(e.Time.Local().Format("15:04:05") + " " + text)
}

func (m *sessionModel) View() tea.View {
	v := m.root.View()
	if m.height > 1 {
		v.Content += "\n" + m.statusLine()
	}
	m.sess.frame.Store(&v.Content)
	return v
}

// statusLine: who the session is, its role, and the last audited action.
func (m *sessionModel) statusLine() string {
	st := m.ctx.Styles
	role := "operator"
	if m.sess.readOnly {
		role = "read-only"
	}
	line := st.StatusBar.Render(" ssh " + sanitize.String(m.sess.who.Name()) + " · " + role + " ")
	if m.note != "" {
		line += " " + st.ForLevel(m.noteLevel).Render(m.note) // setNote sets OK, Warn or Error
	}
	line = common.ClipStyled(line, m.width)
	if pad := m.width - common.Width(line); pad > 0 {
		line += strings.Repeat(" ", pad)
	}
	return line
}
