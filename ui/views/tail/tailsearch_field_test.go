package tail_test

import "testing"

// A field term the topic's schema lacks is refused in the search form,
// naming the step and the fields there are: it scanned and found nothing.
func TestTailSearchFieldTheSchemaLacks(t *testing.T) {
	st, r := searchFieldOfShopOrders(t, demoSet(t))
	r.TypeText("customer.city=Seoul")
	r.Key("enter")
	r.MustShow(`field:customer.city=Seoul: shop.Order.customer has no field "city"`)
	if len(st.specs) != 0 {
		t.Fatalf("a search started: %+v", st.specs)
	}
}
