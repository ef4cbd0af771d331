package tail_test

import (
	"testing"

	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ui/internal/fakes"
)

// A field term the topic's schema lacks is refused in the search form,
// naming the step and the fields there are: it scanned and found nothing.
func TestTailSearchFieldTheSchemaLacks(t *testing.T) {
	set := demoSet(t)
	st := &searchTailer{Tailer: fakes.NewTailer(fakes.TailerOptions{})}
	r := newDecodingRigOver(t, set, st, st.Tailer)
	r.Run(r.v.Open(demo.ShopOrders))
	r.Key("S", "enter", "tab", "tab", "tab", "tab", "tab", "tab")
	r.TypeText("customer.city=Seoul")
	r.Key("enter")
	r.MustShow(`field:customer.city=Seoul: shop.Order.customer has no field "city"`)
	if len(st.specs) != 0 {
		t.Fatalf("a search started: %+v", st.specs)
	}
}
