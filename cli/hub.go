package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ilink"
	"ilinkdash/ilink/numfmt"
	"ilinkdash/ui"
	"ilinkdash/ui/sanitize"
)

// resolveTarget is resolve for the commands on one cluster (get,
// describe, tail, publish, search, group, queue, topic, node …): a
// context naming a hub and a spoke is reached through the hub
// (spokeRoute), whose route every client of the command takes.
func (a *app) resolveTarget(cmd *cobra.Command) (config.Resolved, *ilink.HubRoute, error) {
	r, err := a.resolve(cmd)
	if err != nil {
		return r, nil, err
	}
	hub, err := spokeRoute(&r.Context)
	return r, hub, err
}

// spokeRoute returns the route a spoke context's clients take (nil for a
// direct context) and points the context's admin and data addresses at
// the hub: every connection dials the hub and switches to the spoke's
// node (ilink.HubRoute), so the commands' own address handling is
// unchanged. A `spokes: all` context names no one cluster: refused,
// naming it.
func spokeRoute(c *config.Context) (*ilink.HubRoute, error) {
	if c.AllSpokes {
		return nil, &exitError{code: 2, err: fmt.Errorf("context %s is every spoke of hub %s (spokes: all): this command works on one cluster; pick a spoke with a context that names it (spoke: NAME), or watch them all with the dashboard or check", c.Name, c.Hub)}
	}
	if !c.IsSpoke() {
		return nil, nil
	}
	hub, err := ilink.NewHubRoute(c.Hub, c.Spoke, c.SpokeKey)
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("context %s: %w", c.Name, err)}
	}
	c.Admin, c.Addresses = c.Hub, []string{c.Hub}
	return hub, nil
}

// expandHubs replaces each `spokes: all` context of rs by one spoke
// context per spoke its hub lists now (running or not), named
// CONTEXT/SPOKE, and returns each expanded hub with the list it was
// expanded from (serve and the exporter follow them); at most max per hub
// (max > 0), the others said on warn. A hub whose list cannot be read
// with failed given stays one context, its error in failed by name; else,
// among other contexts, it is said on warn and followed with no spokes
// yet (one hub down at start kept serve and the exporter from watching
// every other cluster); alone it ends it with the error.
func expandHubs(ctx context.Context, rs []config.Resolved, max int, warn io.Writer, failed map[string]error) ([]config.Resolved, []fleetHub, error) {
	var out []config.Resolved
	var hubs []fleetHub
	var firstErr error
	for _, r := range rs {
		if !r.Context.AllSpokes {
			out = append(out, r)
			continue
		}
		h, spokes, err := spokeContexts(ctx, r)
		switch {
		case err != nil && failed != nil:
			failed[r.Context.Name] = err
			out = append(out, r)
			continue
		case err != nil && len(rs) > 1:
			fmt.Fprintf(warn, "ilinkdash: %s; following it: its spokes are watched once it lists them\n", sanitize.Error(err))
			hubs = append(hubs, fleetHub{r: r})
			firstErr = cmp.Or(firstErr, err)
			continue
		case err != nil:
			return nil, nil, err
		case max > 0 && len(spokes) > max:
			fmt.Fprintf(warn, "ilinkdash: context %s: %s not watched (at most %d per hub)\n", sanitize.String(r.Context.Name), numfmt.Plural(len(spokes)-max, "more spoke"), max)
			spokes = spokes[:max]
		}
		out = append(out, spokes...)
		hubs = append(hubs, h)
	}
	if len(out) == 0 && firstErr != nil {
		return nil, nil, firstErr // every context a hub down: nothing to watch
	}
	return out, hubs, nil
}

// maxSpokes is how many spokes of one hub the exporter watches.
const maxSpokes = ui.DefaultMaxSpokes

// resolveWatched resolves the contexts serve or the exporter watches
// (--context a,b,c, --all-contexts) and lists every `spokes: all` hub's
// spokes now, each watched as its own cluster; the hubs are returned to be
// followed for spokes that link later, and spokes says whether a context
// was such a hub. Errors are usage errors (exit 2).
func (a *app) resolveWatched(cmd *cobra.Command, allContexts bool) (rs []config.Resolved, hubs []fleetHub, spokes bool, err error) {
	rs, err = config.ResolveMany(cmd.Flags(), &a.flags, a.getenv, allContexts)
	if err != nil {
		return nil, nil, false, &exitError{code: 2, err: err}
	}
	spokes = hasAllSpokes(rs)
	rs, hubs, err = expandHubs(cmd.Context(), rs, maxSpokes, cmd.ErrOrStderr(), nil)
	if err != nil {
		return nil, nil, false, &exitError{code: 2, err: err}
	}
	return rs, hubs, spokes, nil
}

// hasAllSpokes reports whether a context of rs is `spokes: all`.
func hasAllSpokes(rs []config.Resolved) bool {
	return slices.ContainsFunc(rs, func(r config.Resolved) bool { return r.Context.AllSpokes })
}

// spokeContexts are a `spokes: all` context's spokes as its hub lists
// them now, running or not, each a spoke context named CONTEXT/SPOKE, and
// the hub as listed.
func spokeContexts(ctx context.Context, r config.Resolved) (fleetHub, []config.Resolved, error) {
	h, err := followHub(ctx, r, nil, nil)
	if err != nil {
		return h, nil, err
	}
	if len(h.known) == 0 {
		return h, nil, fmt.Errorf("context %s: hub %s lists no spokes", r.Context.Name, r.Context.Hub)
	}
	out := make([]config.Resolved, 0, len(h.known))
	for _, sp := range h.known {
		out = append(out, h.member(sp.Name).r)
	}
	return h, out, nil
}
