package config

import "testing"

// --theme and ILINKDASH_THEME follow the layers like every other field.
func TestResolveTheme(t *testing.T) {
	file := writeConfig(t, "current-context: l\ncontexts:\n  l: {admin: 'h:1', theme: light}\n")
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		want    string
		src     Source
		wantErr string
	}{
		{name: "default", env: map[string]string{EnvConfig: ""}, want: ThemeAuto},
		{name: "file", env: map[string]string{EnvConfig: file}, want: ThemeLight, src: FromFile},
		{name: "env over file", env: map[string]string{EnvConfig: file, EnvTheme: "dark"}, want: ThemeDark, src: FromEnv},
		{name: "flag over env", env: map[string]string{EnvConfig: file, EnvTheme: "dark"}, args: []string{"--theme", "Auto"}, want: ThemeAuto, src: FromFlag},
		{name: "unknown flag value", env: map[string]string{EnvConfig: ""}, args: []string{"--theme", "neon"}, wantErr: `--theme: unknown theme "neon" (want auto, dark or light)`},
		{name: "unknown env value", env: map[string]string{EnvConfig: "", EnvTheme: "solarized"}, wantErr: EnvTheme + `: unknown theme "solarized"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := resolveDashCase(t, tt.env, tt.args, tt.wantErr)
			if !ok {
				return
			}
			if r.Context.Theme != tt.want || r.Sources.Theme != tt.src {
				t.Fatalf("theme %q from %v, want %q from %v", r.Context.Theme, r.Sources.Theme, tt.want, tt.src)
			}
		})
	}
}
