package ui

import (
	"testing"

	"ilinkdash/config"
	"ilinkdash/ui/internal/fakes"
)

// A fleet keeps each cluster's own theme: a member with theme: light
// stays light behind a dark Fleet context, one with theme: dark stays
// dark behind a light one (NewFleet once copied the Fleet's over them).
func TestFleetKeepsEachClustersTheme(t *testing.T) {
	env := func(string) string { return "" }
	member := func(name, theme string) *Model {
		c := config.DefaultContext()
		c.Name, c.Theme = name, theme
		return New(NewContext(c, false, env), fakes.NewDemo())
	}
	for _, fleetTheme := range []string{config.ThemeDark, config.ThemeLight} {
		light, dark := member("l", config.ThemeLight), member("d", config.ThemeDark)
		fc := config.DefaultContext()
		fc.Theme = fleetTheme
		NewFleet(NewContext(fc, false, env), []*Model{light, dark})
		if light.ctx.Dark || !dark.ctx.Dark {
			t.Errorf("behind a %s Fleet: theme light is Dark=%v, theme dark is Dark=%v", fleetTheme, light.ctx.Dark, dark.ctx.Dark)
		}
	}
}
