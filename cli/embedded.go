package cli

import (
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/demo"
)

// startEmbedded starts the fresh in-process engine of --embedded, with the
// still demo data of the commands that print once (demo.Snapshot).
func startEmbedded() (*engine.Engine, error) {
	e, err := engine.Start(engine.Config{ElectionDelay: 500 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	if _, err := demo.Seed(e, demo.Snapshot); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}
