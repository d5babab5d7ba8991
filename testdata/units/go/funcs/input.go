package main

import "fmt"
import str "strings"

func main() {
	s := NewStore()
	fmt.Println(str.ToUpper("hi"), s)
	go worker(1)
	defer cleanup()
}

func worker(n int) {
	helper := func(x int) int { return x * n }
	fmt.Println(helper(2))
}

func cleanup() {}

func Map[T any, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func TestWorker(t *testing.T) {
	worker(3)
}
