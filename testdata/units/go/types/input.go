// Package store keeps users.
package store

import (
	"errors"
	"sync"
)

// ErrNotFound is returned when a user is missing.
var ErrNotFound = errors.New("not found")

const (
	// MaxUsers bounds the store.
	MaxUsers = 100
	minAge   = 0
)

// User is a person with an account.
type User struct {
	Name string `json:"name"`
	age  int
	sync.Mutex
}

// Store saves and loads users.
type Store interface {
	Saver
	// Load finds a user by name.
	Load(name string) (*User, error)
}

type Saver interface {
	Save(u *User) error
}

type ID int64

type memStore struct {
	users map[string]*User
}

// Load implements Store.
func (m *memStore) Load(name string) (*User, error) {
	u, ok := m.users[name]
	if !ok {
		return nil, ErrNotFound
	}
	return u, nil
}

func (m memStore) Save(u *User) error {
	m.users[u.Name] = u
	return nil
}

// NewStore makes an empty store.
func NewStore() Store {
	return &memStore{users: make(map[string]*User)}
}

func (u *User) Age() int { return u.age }
