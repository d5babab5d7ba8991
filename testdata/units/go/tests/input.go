package cache

import "testing"

// Cache keeps values by key.
type Cache struct {
	items map[string]string
}

// Get returns the value of key.
func (c *Cache) Get(key string) (string, bool) {
	v, ok := c.items[key]
	return v, ok
}

func newCache() *Cache {
	return &Cache{items: map[string]string{}}
}

func TestGetMissing(t *testing.T) {
	if _, ok := newCache().Get("x"); ok {
		t.Fatal("found x")
	}
}

func TestGetPresent(t *testing.T) {
	c := newCache()
	c.items["x"] = "1"
	if v, _ := c.Get("x"); v != "1" {
		t.Fatal(v)
	}
}

func BenchmarkGet(b *testing.B) {
	c := newCache()
	for i := 0; i < b.N; i++ {
		c.Get("x")
	}
}
