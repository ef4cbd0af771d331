package engine

import (
	"encoding/json"
	"slices"
	"sort"
	"time"
)

// Membership records (groups.go): the members of a group, their
// generations and the partitions each holds travel in one SYSTEM.GROUPS
// record, key "group|" (a group name never contains '|', so the key is
// neither a group record nor a commit), value a JSON document
//
//	{"members":[{"id":"member-00000001","client":"c","host":"h",
//	  "topics":["T"],"generation":3,"timeout_ms":30000,
//	  "partitions":{"T":[0,2]}}]}
//
// with the members sorted by id; a nil value (tombstone) means no members.
// It is written with every change of membership or ownership (JOIN, LEAVE,
// expiry, MIMQ_TOPIC_LEAVE, a topic delete), in the same batch as the group
// record when the generation moves, and answered once replicated. A new
// coordinator therefore knows every member: heartbeats, commits and rejoins
// go on with the same member ids and generations, and a coordinator move
// changes no assignment. What is not replicated is derived again on load:
// the rebalance flags (from the members and the topic set) and the time
// each member was last seen (the load itself, so every member has a full
// session timeout to find the new coordinator).

// membersRecKey is the key of a group's membership record.
func membersRecKey(group string) string { return group + "|" }

type memberJSON struct {
	ID         string             `json:"id"`
	Client     string             `json:"client,omitempty"`
	Host       string             `json:"host,omitempty"`
	Topics     []string           `json:"topics"`
	Generation int32              `json:"generation"`
	TimeoutMs  int64              `json:"timeout_ms"`
	Partitions map[string][]int32 `json:"partitions,omitempty"`
}

type membersJSON struct {
	Members []memberJSON `json:"members"`
}

// membersRec is the membership record of g: a tombstone once it has no
// member.
func membersRec(g *group) grec {
	if len(g.members) == 0 {
		return grec{key: membersRecKey(g.name)}
	}
	ids := make([]string, 0, len(g.members))
	for id := range g.members {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	doc := membersJSON{Members: make([]memberJSON, 0, len(ids))}
	held := map[string]map[string][]int32{}
	for k, o := range g.owner {
		if held[o] == nil {
			held[o] = map[string][]int32{}
		}
		held[o][k.topic] = append(held[o][k.topic], k.part)
	}
	for _, id := range ids {
		m := g.members[id]
		parts := held[id]
		for _, ps := range parts {
			slices.Sort(ps)
		}
		doc.Members = append(doc.Members, memberJSON{
			ID: m.id, Client: m.client, Host: m.host, Topics: m.topics,
			Generation: m.gen, TimeoutMs: m.timeout.Milliseconds(), Partitions: parts,
		})
	}
	b, err := json.Marshal(&doc)
	if err != nil {
		panic("engine: membership record: " + err.Error()) // plain strings and ints: cannot fail
	}
	return grec{key: membersRecKey(g.name), val: b}
}

// applyMembers replaces g's members and ownership by those of a
// membership record (nil: none). A record that does not decode leaves g
// without members, as a coordinator that lost them would be.
func applyMembers(g *group, val []byte) bool {
	g.members = map[string]*gmember{}
	g.owner = map[gtp]string{}
	if val == nil {
		return true
	}
	var doc membersJSON
	if err := json.Unmarshal(val, &doc); err != nil {
		return false
	}
	for _, mj := range doc.Members {
		topics := slices.Clone(mj.Topics)
		slices.Sort(topics)
		m := &gmember{id: mj.ID, client: mj.Client, host: mj.Host, topics: slices.Compact(topics),
			gen: mj.Generation, timeout: time.Duration(mj.TimeoutMs) * time.Millisecond}
		g.members[m.id] = m
		for topic, ps := range mj.Partitions {
			for _, p := range ps {
				g.owner[gtp{topic, p}] = m.id
			}
		}
	}
	return true
}

// loadedMembersLocked prepares the members a replay restored: it drops
// what they hold of topics or partitions that no longer exist, starts
// their session timeouts at seen and recomputes the rebalance flags. It
// reports whether ownership changed (the caller then rewrites the record).
func (gc *groupCoord) loadedMembersLocked(g *group, seen time.Time) bool {
	if len(g.members) == 0 {
		return false
	}
	changed := false
	ts := gc.e.topics
	for k, o := range g.owner {
		t := ts.lookup(k.topic)
		if g.members[o] == nil || t == nil || k.part < 0 || int(k.part) >= len(t.partitions()) {
			delete(g.owner, k)
			changed = true
		}
	}
	for _, m := range g.members {
		m.lastSeen = seen
	}
	gc.rebalanceLocked(g)
	return changed
}
