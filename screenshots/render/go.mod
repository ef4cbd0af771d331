module ilinkdash/screenshots/render

go 1.26.0

require (
	github.com/charmbracelet/freeze v0.2.2
	github.com/mattn/go-runewidth v0.0.30
	golang.org/x/image v0.48.0
)

require (
	github.com/clipperhouse/uax29/v2 v2.2.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
