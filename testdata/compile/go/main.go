// Package main prints an area.
package main

import "fmt"

// Area of a w by h rectangle.
func Area(w, h int) int {
	return w * h
}

func main() {
	unused := 3
	fmt.Println(Aera(2, 3))
}
