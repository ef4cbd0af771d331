package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
)

// refusal says why a key that would do nothing here does nothing, for the
// one flash on the hint line: a tab that is not shown ("read-only:
// publishing is off" for 7), or, in a read-only context, a key of the
// active view's help whose binding is disabled (n, D, F, p on the topics)
// when no enabled key of that view shares it. Keys a view refuses for its
// own reasons (P on the queue list) it flashes itself (common.Refuse).
func (m *Model) refusal(msg tea.KeyPressMsg, v common.View) (string, bool) {
	k := m.ctx.Keys
	for i, b := range k.Tabs {
		if key.Matches(msg, b) && !m.visible(common.ViewID(i)) {
			return "read-only: publishing is off (tab 7 is absent)", true
		}
	}
	if !m.ctx.ReadOnly {
		return "", false
	}
	var off *key.Binding
	for _, col := range v.FullHelp() {
		for i := range col {
			b := &col[i]
			if !hasKey(*b, msg.String()) {
				continue
			}
			if b.Enabled() {
				return "", false // the view has a key of its own for it
			}
			if off == nil {
				off = b
			}
		}
	}
	if off == nil {
		return "", false
	}
	return k.ReadOnlyWhy(*off), true
}

func hasKey(b key.Binding, keys ...string) bool {
	for _, s := range b.Keys() {
		for _, k := range keys {
			if s == k {
				return true
			}
		}
	}
	return false
}
